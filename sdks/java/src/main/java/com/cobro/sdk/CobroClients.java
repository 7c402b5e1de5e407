package com.cobro.sdk;

import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The generated clients, configured: each API's base URL, the Bearer token, and timeouts. Pass the
 * {@code ApiClient} to the generated API classes ({@code new PaymentRequestsApi(client)}, …). Every call
 * throws the SDK's typed exceptions ({@link com.cobro.sdk.errors.CobroApiException} and its subclasses,
 * {@link com.cobro.sdk.errors.NoAnswerException}).
 *
 * <p>The HTTP client is the JDK's own ({@code java.net.http}); no transparent retries: a create is retried by
 * the {@code referenceId} rules ({@link com.cobro.sdk.retry.ChargeRetry}), never resent blindly.
 */
public final class CobroClients {
  /** How long a call waits for its answer; after that it throws {@code NoAnswerException}. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

  private CobroClients() {}

  /**
   * An Integration API client whose Bearer token is asked of {@code idToken} before every request: a merchant
   * account's {@code idToken}, e.g. {@link com.cobro.sdk.oauth.CobroOAuth#idTokens} (refreshed when it is
   * about to expire).
   */
  public static com.cobro.sdk.generated.integration.ApiClient integration(String baseUrl, Supplier<String> idToken) {
    com.cobro.sdk.generated.integration.ApiClient client = new com.cobro.sdk.generated.integration.ApiClient(
        httpClient(), com.cobro.sdk.generated.integration.ApiClient.createDefaultObjectMapper(), trimmed(baseUrl));
    client.setReadTimeout(DEFAULT_TIMEOUT);
    if (idToken != null) client.setRequestInterceptor(request -> request.header("Authorization", "Bearer " + idToken.get()));
    return client;
  }

  /** An Integration API client with a fixed {@code idToken} (e.g. the Sandbox's test tokens). */
  public static com.cobro.sdk.generated.integration.ApiClient integration(String baseUrl, String idToken) {
    Objects.requireNonNull(idToken, "idToken");
    return integration(baseUrl, () -> idToken);
  }

  /** An Auth API client (OAuth, the admins' sign-in): no token. */
  public static com.cobro.sdk.generated.auth.ApiClient auth(String baseUrl) {
    com.cobro.sdk.generated.auth.ApiClient client = new com.cobro.sdk.generated.auth.ApiClient(
        httpClient(), com.cobro.sdk.generated.auth.ApiClient.createDefaultObjectMapper(), trimmed(baseUrl));
    client.setReadTimeout(DEFAULT_TIMEOUT);
    return client;
  }

  /** An Admin API client with an admin session's {@code idToken} (or a platform API key), asked before every request. */
  public static com.cobro.sdk.generated.admin.ApiClient admin(String baseUrl, Supplier<String> idToken) {
    com.cobro.sdk.generated.admin.ApiClient client = new com.cobro.sdk.generated.admin.ApiClient(
        httpClient(), com.cobro.sdk.generated.admin.ApiClient.createDefaultObjectMapper(), trimmed(baseUrl));
    client.setReadTimeout(DEFAULT_TIMEOUT);
    if (idToken != null) client.setRequestInterceptor(request -> request.header("Authorization", "Bearer " + idToken.get()));
    return client;
  }

  /** An Admin API client with a fixed admin session's {@code idToken}. */
  public static com.cobro.sdk.generated.admin.ApiClient admin(String baseUrl, String idToken) {
    Objects.requireNonNull(idToken, "idToken");
    return admin(baseUrl, () -> idToken);
  }

  static HttpClient.Builder httpClient() {
    return HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).followRedirects(HttpClient.Redirect.NEVER);
  }

  static String trimmed(String baseUrl) {
    Objects.requireNonNull(baseUrl, "baseUrl");
    return baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
  }
}
