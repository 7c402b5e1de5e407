package com.cobro.sdk.webhook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.cobro.sdk.webhook.WebhookVerificationException.Reason;
import com.cobro.sdk.webhook.WebhookVerifier.Scheme;
import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WebhookVerifierTest {
  private static final String SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw2tNAs0bSyEk=";
  private static final String OTHER = "whsec_c2VjcmV0LW9mLWFub3RoZXItaW50ZWdyYXRpb24tMzI=";
  private static final long NOW = 1_790_000_000L;
  private static final byte[] BODY = "{\"event\":\"payment_request.payment_received\",\"referenceId\":\"INV-9\",\"paidAmount\":1500.5}"
      .getBytes(StandardCharsets.UTF_8);
  private static final byte[] ALTERED = "{\"event\":\"payment_request.payment_received\",\"referenceId\":\"INV-9\",\"paidAmount\":1.5}"
      .getBytes(StandardCharsets.UTF_8);

  private final WebhookVerifier verifier = new WebhookVerifier(SECRET, Scheme.STANDARD, Duration.ofSeconds(300), clockAt(NOW));

  private static Clock clockAt(long unixSeconds) {
    return Clock.fixed(Instant.ofEpochSecond(unixSeconds), ZoneOffset.UTC);
  }

  private static Map<String, List<String>> serviceHeaders(String secret, long at, byte[] body) {
    return Map.of("X-Service-Signature", List.of(WebhookVerifier.serviceSignature(body, secret, at)));
  }

  private static Map<String, List<String>> standardHeaders(String id, String secret, Scheme scheme, long at, byte[] body) {
    return Map.of(
        "webhook-id", List.of(id),
        "webhook-timestamp", List.of(Long.toString(at)),
        "webhook-signature", List.of(WebhookVerifier.standardWebhookSignature(id, at, body, secret, scheme)));
  }

  private Reason refusal(byte[] body, Map<String, List<String>> headers) {
    return assertThrows(WebhookVerificationException.class, () -> verifier.verify(body, headers)).reason();
  }

  @Test
  void aServiceSignatureOfTheBodyIsAcceptedAndTheEventReturned() {
    JsonNode event = verifier.verify(BODY, serviceHeaders(SECRET, NOW, BODY));
    assertEquals("INV-9", event.get("referenceId").asText());
  }

  @Test
  void theServiceSignatureIsTheHexHmacOfTheTimestampAndTheRawBodyKeyedWithTheSecretText() {
    // Computed independently: HMAC-SHA256("{t}.{body}") keyed with the secret's UTF-8 bytes, lowercase hex.
    String header = WebhookVerifier.serviceSignature("{}".getBytes(StandardCharsets.UTF_8), "whsec_test", 1_700_000_000L);
    assertEquals("t=1700000000,v1=" + hexHmac("whsec_test".getBytes(StandardCharsets.UTF_8), "1700000000.{}"), header);
  }

  @Test
  void aServiceSignatureMadeWithAnotherSecretIsRefused() {
    assertEquals(Reason.SIGNATURE_MISMATCH, refusal(BODY, serviceHeaders(OTHER, NOW, BODY)));
  }

  @Test
  void anAlteredBodyFailsTheServiceSignature() {
    assertEquals(Reason.SIGNATURE_MISMATCH, refusal(ALTERED, serviceHeaders(SECRET, NOW, BODY)));
  }

  @Test
  void aServiceSignatureOutsideTheToleranceIsStaleEitherWay() {
    assertEquals(Reason.STALE_TIMESTAMP, refusal(BODY, serviceHeaders(SECRET, NOW - 301, BODY)));
    assertEquals(Reason.STALE_TIMESTAMP, refusal(BODY, serviceHeaders(SECRET, NOW + 301, BODY)));
    // At the edge of the window it is still accepted.
    verifier.verify(BODY, serviceHeaders(SECRET, NOW - 300, BODY));
  }

  @Test
  void anyOfSeveralV1SignaturesIsEnoughWhileASecretIsRotated() {
    String ours = WebhookVerifier.serviceSignature(BODY, SECRET, NOW);
    String theirs = WebhookVerifier.serviceSignature(BODY, OTHER, NOW);
    String header = theirs + "," + ours.substring(ours.indexOf("v1=")) + ",v0=ignored";
    verifier.verify(BODY, Map.of("X-Service-Signature", List.of(header)));
  }

  @Test
  void aMalformedServiceSignatureIsRefusedAsMalformed() {
    assertEquals(Reason.MALFORMED_HEADER, refusal(BODY, Map.of("X-Service-Signature", List.of("v1=abc"))));
    assertEquals(Reason.MALFORMED_HEADER, refusal(BODY, Map.of("X-Service-Signature", List.of("t=12,t=13,v1=" + "a".repeat(64)))));
    assertEquals(Reason.MALFORMED_HEADER, refusal(BODY, Map.of("X-Service-Signature", List.of("garbage"))));
  }

  @Test
  void aStandardWebhooksSignatureIsAcceptedAndKeyedWithTheDecodedSecret() {
    JsonNode event = verifier.verify(BODY, standardHeaders("evt_1", SECRET, Scheme.STANDARD, NOW, BODY));
    assertEquals("payment_request.payment_received", event.get("event").asText());
  }

  @Test
  void theStandardWebhooksSignatureIsTheSpecificationsTestVector() {
    // The vector of the Standard Webhooks libraries (the npm package `standardwebhooks` signs the same).
    String signature = WebhookVerifier.standardWebhookSignature(
        "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330L, "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8),
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", Scheme.STANDARD);
    assertEquals("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=", signature);
  }

  @Test
  void aStandardWebhooksSignatureMadeWithAnotherSecretIsRefused() {
    assertEquals(Reason.SIGNATURE_MISMATCH, refusal(BODY, standardHeaders("evt_1", OTHER, Scheme.STANDARD, NOW, BODY)));
  }

  @Test
  void anAlteredBodyOrIdFailsTheStandardWebhooksSignature() {
    assertEquals(Reason.SIGNATURE_MISMATCH, refusal(ALTERED, standardHeaders("evt_1", SECRET, Scheme.STANDARD, NOW, BODY)));
    Map<String, List<String>> otherId = new HashMap<>(standardHeaders("evt_1", SECRET, Scheme.STANDARD, NOW, BODY));
    otherId.put("webhook-id", List.of("evt_2"));
    assertEquals(Reason.SIGNATURE_MISMATCH, refusal(BODY, otherId));
  }

  @Test
  void aStandardWebhooksTimestampOutsideTheToleranceIsStale() {
    assertEquals(Reason.STALE_TIMESTAMP, refusal(BODY, standardHeaders("evt_1", SECRET, Scheme.STANDARD, NOW - 301, BODY)));
    assertEquals(Reason.STALE_TIMESTAMP, refusal(BODY, standardHeaders("evt_1", SECRET, Scheme.STANDARD, NOW + 301, BODY)));
  }

  @Test
  void aLegacySecretKeysTheStandardSignatureWithItsText() {
    String legacy = "whsec_bGVnYWN5LXNlY3JldA-url_safe";
    WebhookVerifier legacyVerifier = new WebhookVerifier(legacy, Scheme.LEGACY, Duration.ofSeconds(300), clockAt(NOW));
    legacyVerifier.verify(BODY, standardHeaders("evt_1", legacy, Scheme.LEGACY, NOW, BODY));
    assertEquals(
        "v1," + java.util.Base64.getEncoder().encodeToString(hmac(legacy.getBytes(StandardCharsets.UTF_8), "evt_1." + NOW + "." + new String(BODY, StandardCharsets.UTF_8))),
        WebhookVerifier.standardWebhookSignature("evt_1", NOW, BODY, legacy, Scheme.LEGACY));
    // A legacy secret is not base64 after whsec_: taken as standard it is refused when the verifier is made.
    assertThrows(IllegalArgumentException.class, () -> new WebhookVerifier(legacy, Scheme.of("standard")));
  }

  @Test
  void everySignaturePresentMustBeValid() {
    Map<String, List<String>> both = new HashMap<>(standardHeaders("evt_1", SECRET, Scheme.STANDARD, NOW, BODY));
    both.putAll(serviceHeaders(SECRET, NOW, BODY));
    verifier.verify(BODY, both);
    both.putAll(serviceHeaders(OTHER, NOW, BODY));
    assertEquals(Reason.SIGNATURE_MISMATCH, refusal(BODY, both));
  }

  @Test
  void headersAreFoundWhateverTheirCaseAndThroughALookup() {
    Map<String, List<String>> lower = Map.of("x-service-signature", List.of(WebhookVerifier.serviceSignature(BODY, SECRET, NOW)));
    verifier.verify(BODY, lower);
    Map<String, String> single = Map.of("X-Service-Signature", WebhookVerifier.serviceSignature(BODY, SECRET, NOW));
    verifier.verify(BODY, single::get);
  }

  @Test
  void aRequestWithoutSignaturesOrWithIncompleteStandardHeadersIsRefused() {
    assertEquals(Reason.MISSING_HEADER, refusal(BODY, Map.of()));
    Map<String, List<String>> noId = new HashMap<>(standardHeaders("evt_1", SECRET, Scheme.STANDARD, NOW, BODY));
    noId.remove("webhook-id");
    assertEquals(Reason.MISSING_HEADER, refusal(BODY, noId));
  }

  @Test
  void aSignedBodyThatIsNotJsonIsRefused() {
    byte[] text = "not json".getBytes(StandardCharsets.UTF_8);
    assertEquals(Reason.MALFORMED_BODY, refusal(text, serviceHeaders(SECRET, NOW, text)));
  }

  private static byte[] hmac(byte[] key, String message) {
    try {
      javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
      mac.init(new javax.crypto.spec.SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(message.getBytes(StandardCharsets.UTF_8));
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static String hexHmac(byte[] key, String message) {
    return java.util.HexFormat.of().formatHex(hmac(key, message));
  }
}
