package com.cobro.sdk.oauth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.cobro.sdk.CobroClients;
import com.cobro.sdk.ScriptedServer;
import com.cobro.sdk.errors.AuthenticationException;
import com.cobro.sdk.errors.BadRequestException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OAuthTest {
  private static final Instant NOW = Instant.parse("2026-11-28T12:00:00Z");
  private static final ObjectMapper JSON = new ObjectMapper();

  private ScriptedServer server;
  private CobroOAuth oauth;

  @BeforeEach
  void start() throws Exception {
    server = new ScriptedServer();
    oauth = new CobroOAuth(CobroClients.auth(server.url() + "/"), "client-1", "secret-1", Clock.fixed(NOW, ZoneOffset.UTC));
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private static Map<String, String> query(String url) {
    Map<String, String> query = new HashMap<>();
    for (String pair : URI.create(url).getRawQuery().split("&")) {
      String[] parts = pair.split("=", 2);
      query.put(URLDecoder.decode(parts[0], StandardCharsets.UTF_8), URLDecoder.decode(parts[1], StandardCharsets.UTF_8));
    }
    return query;
  }

  @Test
  void theChallengeIsS256OfTheVerifierAsRfc7636AppendixB() {
    assertEquals("E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", Pkce.challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"));
  }

  @Test
  void randomTokensAre43Base64UrlCharactersAndDiffer() {
    String token = Pkce.randomToken();
    assertTrue(token.matches("^[A-Za-z0-9_-]{43}$"), token);
    assertNotEquals(token, Pkce.randomToken());
  }

  @Test
  void theAuthorizationUrlCarriesStateAndTheS256ChallengeOfItsVerifier() {
    AuthorizationStart start = oauth.authorizationUrl("https://integrator.example/callback");
    assertTrue(start.url().startsWith(server.url() + "/integration/oauth2/authorize?"), start.url());
    Map<String, String> query = query(start.url());
    assertEquals("code", query.get("response_type"));
    assertEquals("client-1", query.get("client_id"));
    assertEquals("https://integrator.example/callback", query.get("redirect_uri"));
    assertEquals(start.state(), query.get("state"));
    assertEquals(Pkce.challenge(start.codeVerifier()), query.get("code_challenge"));
    assertEquals("S256", query.get("code_challenge_method"));
    assertNotEquals(start.state(), oauth.authorizationUrl("https://integrator.example/callback").state());
  }

  @Test
  void theCodeExchangeSendsCobrosJsonFormAndReadsTheTokenSet() throws Exception {
    server.answer(200, "{\"idToken\":\"id-1\",\"refreshToken\":\"refresh-1\",\"tokenType\":\"Bearer\",\"expiresIn\":3600}");
    MerchantTokens tokens = oauth.exchangeCode("code-1", "https://integrator.example/callback", "verifier-1");
    assertEquals(new MerchantTokens("id-1", "refresh-1", NOW.plusSeconds(3600)), tokens);
    ScriptedServer.Received request = server.received.get(0);
    assertEquals("POST /integration/oauth2/token", request.method() + " " + request.path());
    JsonNode body = JSON.readTree(request.body());
    assertEquals("authorization_code", body.get("grantType").asText());
    assertEquals("code-1", body.get("code").asText());
    assertEquals("client-1", body.get("clientId").asText());
    assertEquals("secret-1", body.get("clientSecret").asText());
    assertEquals("https://integrator.example/callback", body.get("redirectUri").asText());
    assertEquals("verifier-1", body.get("codeVerifier").asText());
    assertTrue(request.headers().get("Content-type").get(0).startsWith("application/json"));
    assertTrue(!tokens.toString().contains("id-1"), "no token in toString");
  }

  @Test
  void aRefusedCodeIsATypedErrorWithItsCode() {
    server.answer(400, "{\"error\":\"invalid_grant\",\"error_description\":\"the code was used\"}");
    BadRequestException error = assertThrows(BadRequestException.class, () -> oauth.exchangeCode("used", "https://integrator.example/callback", "v"));
    assertEquals("invalid_grant", error.code());
    assertEquals(400, error.status());
  }

  @Test
  void refreshKeepsTheRefreshTokenAndRevokeSendsTheHint() throws Exception {
    server.answer(200, "{\"idToken\":\"id-2\",\"tokenType\":\"Bearer\",\"expiresIn\":3600}").answer(200, "");
    assertEquals(new MerchantTokens("id-2", "refresh-1", NOW.plusSeconds(3600)), oauth.refresh("refresh-1"));
    oauth.revoke("refresh-1");
    assertEquals(java.util.List.of("POST /integration/oauth2/refresh", "POST /integration/oauth2/revoke"), server.paths());
    JsonNode refresh = JSON.readTree(server.received.get(0).body());
    assertEquals("refresh_token", refresh.get("grantType").asText());
    assertEquals("refresh-1", refresh.get("refreshToken").asText());
    JsonNode revoke = JSON.readTree(server.received.get(1).body());
    assertEquals("refresh_token", revoke.get("tokenTypeHint").asText());
    assertEquals("secret-1", revoke.get("clientSecret").asText());
  }

  @Test
  void freshTokensRefreshesWithinAMinuteOfExpiryAndSavesThem() {
    InMemoryTokenStore store = new InMemoryTokenStore();
    store.save("merchant-1", new MerchantTokens("id-old", "refresh-1", NOW.plusSeconds(61)));
    assertEquals("id-old", oauth.idTokens(store, "merchant-1").get());
    assertTrue(server.received.isEmpty(), "a token valid for more than the margin is not refreshed");

    store.save("merchant-1", new MerchantTokens("id-old", "refresh-1", NOW.plusSeconds(60)));
    server.answer(200, "{\"idToken\":\"id-new\",\"tokenType\":\"Bearer\",\"expiresIn\":3600}");
    assertEquals("id-new", oauth.idTokens(store, "merchant-1").get());
    assertEquals(new MerchantTokens("id-new", "refresh-1", NOW.plusSeconds(3600)), store.load("merchant-1").orElseThrow());
  }

  @Test
  void aRevokedRefreshTokenIsAnAuthenticationError() {
    server.answer(401, "{\"error\":\"invalid_grant\",\"message\":\"the refresh token was revoked\"}", Map.of("X-Request-Id", "req-7"));
    AuthenticationException error = assertThrows(AuthenticationException.class, () -> oauth.refresh("revoked"));
    assertEquals("req-7", error.id());
  }

  @Test
  void aMerchantAccountNotLinkedIsSaidSo() {
    assertThrows(IllegalStateException.class, () -> oauth.freshTokens(new InMemoryTokenStore(), "nobody"));
  }
}
