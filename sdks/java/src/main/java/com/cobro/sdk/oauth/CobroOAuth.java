package com.cobro.sdk.oauth;

import com.cobro.sdk.CobroClients;
import com.cobro.sdk.errors.CobroApiException;
import com.cobro.sdk.errors.CobroException;
import com.cobro.sdk.errors.NoAnswerException;
import com.cobro.sdk.generated.auth.ApiClient;
import com.cobro.sdk.generated.auth.ApiException;
import com.cobro.sdk.generated.auth.api.OAuthApi;
import com.cobro.sdk.generated.auth.model.CodeExchange;
import com.cobro.sdk.generated.auth.model.RefreshRequest;
import com.cobro.sdk.generated.auth.model.RefreshedToken;
import com.cobro.sdk.generated.auth.model.RevokeRequest;
import com.cobro.sdk.generated.auth.model.TokenSet;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Linking a merchant account to an integration with OAuth 2.0 (authorization code with PKCE S256), and the
 * token calls of the Auth API in the JSON form Cobro documents (camelCase bodies, the client secret in the
 * body). For the integrator's backend: the client secret never goes to a browser. One instance per
 * integration; thread-safe.
 *
 * <pre>{@code
 * CobroOAuth oauth = new CobroOAuth(authUrl, clientId, clientSecret);
 * AuthorizationStart start = oauth.authorizationUrl(redirectUri); // keep start.state() and start.codeVerifier()
 * // … the merchant signs in and comes back to redirectUri?code=…&state=…
 * MerchantTokens tokens = oauth.exchangeCode(code, redirectUri, start.codeVerifier());
 * }</pre>
 */
public final class CobroOAuth {
  /** How long before its expiry an {@code idToken} is refreshed. */
  public static final Duration REFRESH_MARGIN = Duration.ofSeconds(60);

  private final String authUrl;
  private final String clientId;
  private final String clientSecret;
  private final Clock clock;
  private final ApiClient apiClient;
  private final OAuthApi api;
  private final HttpClient http;
  private final Object refreshLock = new Object();

  public CobroOAuth(String authUrl, String clientId, String clientSecret) {
    this(CobroClients.auth(authUrl), clientId, clientSecret, Clock.systemUTC());
  }

  /** With an Auth API client of your own (timeouts, proxy) and a clock (tests). */
  public CobroOAuth(ApiClient authClient, String clientId, String clientSecret, Clock clock) {
    this.apiClient = Objects.requireNonNull(authClient, "authClient");
    this.authUrl = authClient.getBaseUri();
    this.clientId = Objects.requireNonNull(clientId, "clientId");
    this.clientSecret = Objects.requireNonNull(clientSecret, "clientSecret");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.api = new OAuthApi(authClient);
    this.http = authClient.getHttpClient();
  }

  /** The authorization URL with a random {@code state} and a PKCE S256 challenge of a random verifier. */
  public AuthorizationStart authorizationUrl(String redirectUri) {
    return authorizationUrl(redirectUri, null, Pkce.randomToken(), Pkce.randomToken());
  }

  /**
   * The authorization URL; {@code redirectUri} must be identical to a registered redirect URI, {@code scope}
   * may be null.
   */
  public AuthorizationStart authorizationUrl(String redirectUri, String scope, String state, String codeVerifier) {
    Map<String, String> query = new LinkedHashMap<>();
    query.put("response_type", "code");
    query.put("client_id", clientId);
    query.put("redirect_uri", Objects.requireNonNull(redirectUri, "redirectUri"));
    query.put("state", Objects.requireNonNull(state, "state"));
    if (scope != null) query.put("scope", scope);
    query.put("code_challenge", Pkce.challenge(Objects.requireNonNull(codeVerifier, "codeVerifier")));
    query.put("code_challenge_method", "S256");
    String encoded = query.entrySet().stream()
        .map(entry -> encode(entry.getKey()) + "=" + encode(entry.getValue()))
        .collect(Collectors.joining("&"));
    return new AuthorizationStart(authUrl + "/integration/oauth2/authorize?" + encoded, state, codeVerifier);
  }

  /**
   * Exchanges the authorization code (10 minutes, single use) for the merchant account's tokens.
   *
   * <p>The token endpoint answers the JSON form ({@code TokenSet}) to a JSON request and the standard form to
   * a form-encoded one; the generated {@code exchangeToken} reads its answer as either, so this reads the
   * {@code TokenSet} itself.
   */
  public MerchantTokens exchangeCode(String code, String redirectUri, String codeVerifier) {
    CodeExchange exchange = new CodeExchange()
        .grantType(CodeExchange.GrantTypeEnum.AUTHORIZATION_CODE)
        .code(Objects.requireNonNull(code, "code"))
        .clientId(clientId)
        .clientSecret(clientSecret)
        .redirectUri(Objects.requireNonNull(redirectUri, "redirectUri"))
        .codeVerifier(codeVerifier);
    ObjectMapper mapper = apiClient.getObjectMapper();
    try {
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(authUrl + "/integration/oauth2/token"))
          .header("Content-Type", "application/json")
          .header("Accept", "application/json")
          .POST(HttpRequest.BodyPublishers.ofByteArray(mapper.writeValueAsBytes(exchange)));
      if (apiClient.getReadTimeout() != null) request.timeout(apiClient.getReadTimeout());
      HttpResponse<String> response = http.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
      if (response.statusCode() / 100 != 2) {
        throw CobroApiException.of(response.statusCode(), response.body(), response.headers().map(), null);
      }
      TokenSet set = mapper.readValue(response.body(), TokenSet.class);
      if (set.getIdToken() == null || set.getRefreshToken() == null || set.getExpiresIn() == null) {
        throw new CobroException("the token endpoint did not answer a TokenSet");
      }
      return new MerchantTokens(set.getIdToken(), set.getRefreshToken(), clock.instant().plusSeconds(set.getExpiresIn()));
    } catch (com.fasterxml.jackson.core.JacksonException notATokenSet) {
      throw new CobroException("the token endpoint did not answer a TokenSet", notATokenSet);
    } catch (IOException noAnswer) {
      throw new NoAnswerException(noAnswer);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw new CobroException("interrupted while exchanging the code", interrupted);
    }
  }

  /** A new {@code idToken} for a stored {@code refreshToken} (which stays the same). */
  public MerchantTokens refresh(String refreshToken) {
    try {
      RefreshedToken refreshed = api.refreshToken(new RefreshRequest()
          .grantType(RefreshRequest.GrantTypeEnum.REFRESH_TOKEN)
          .refreshToken(Objects.requireNonNull(refreshToken, "refreshToken"))
          .clientId(clientId)
          .clientSecret(clientSecret));
      return new MerchantTokens(refreshed.getIdToken(), refreshToken, clock.instant().plusSeconds(refreshed.getExpiresIn()));
    } catch (ApiException notTheContract) {
      throw new CobroException("the refresh answered outside the contract: " + notTheContract.getMessage(), notTheContract);
    }
  }

  /** Revokes a refresh token (and the id tokens issued from it); succeeds for unknown tokens too. */
  public void revoke(String token) {
    revoke(token, RevokeRequest.TokenTypeHintEnum.REFRESH_TOKEN);
  }

  /** Revokes a token, with its type hint. */
  public void revoke(String token, RevokeRequest.TokenTypeHintEnum tokenTypeHint) {
    try {
      api.revokeToken(new RevokeRequest()
          .token(Objects.requireNonNull(token, "token"))
          .tokenTypeHint(tokenTypeHint)
          .clientId(clientId)
          .clientSecret(clientSecret));
    } catch (ApiException notTheContract) {
      throw new CobroException("the revoke answered outside the contract: " + notTheContract.getMessage(), notTheContract);
    }
  }

  /**
   * The stored tokens of {@code merchantKey}, refreshed and saved first when the {@code idToken} expires within
   * {@link #REFRESH_MARGIN}. Throws {@link IllegalStateException} when the store has none (link the merchant
   * account first).
   */
  public MerchantTokens freshTokens(TokenStore store, String merchantKey) {
    synchronized (refreshLock) {
      MerchantTokens tokens = store.load(merchantKey).orElseThrow(() -> new IllegalStateException(
          "the token store holds no tokens for " + merchantKey + ": link the merchant account first (exchangeCode)"));
      if (!tokens.expiresAt().minus(REFRESH_MARGIN).isAfter(clock.instant())) {
        tokens = refresh(tokens.refreshToken());
        store.save(merchantKey, tokens);
      }
      return tokens;
    }
  }

  /**
   * The {@code idToken} of {@code merchantKey}, fresh at each call: give it to
   * {@link CobroClients#integration(String, Supplier)}.
   */
  public Supplier<String> idTokens(TokenStore store, String merchantKey) {
    return () -> freshTokens(store, merchantKey).idToken();
  }

  private static String encode(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }
}
