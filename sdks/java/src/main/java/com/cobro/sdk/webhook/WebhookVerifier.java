package com.cobro.sdk.webhook;

import com.cobro.sdk.webhook.WebhookVerificationException.Reason;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.regex.Pattern;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Verifies a webhook delivery by the signatures it carries, and answers the event (the JSON body).
 *
 * <ul>
 *   <li>{@code X-Service-Signature: t=<unix seconds>,v1=<hex>}: the lowercase hex HMAC-SHA256 of
 *       {@code "{t}.{raw body}"} keyed with the signing secret's UTF-8 bytes, exactly as the Admin API returns it
 *       ({@code whsec_…}). While a secret is rotated a header may carry several {@code v1}: one matching is enough.
 *   <li><a href="https://www.standardwebhooks.com">Standard Webhooks</a>: {@code webhook-id},
 *       {@code webhook-timestamp} and {@code webhook-signature: v1,<base64>}, the HMAC-SHA256 of
 *       {@code "{id}.{timestamp}.{raw body}"} keyed with the base64-decoded part of the secret after
 *       {@code whsec_}; a {@code legacy} secret (the Admin API says its {@code scheme}) keys it with its UTF-8
 *       bytes until it is rotated.
 * </ul>
 *
 * <p>Every signature present must be valid, and at least one must be present. Comparisons are constant-time
 * ({@link MessageDigest#isEqual}); a timestamp more than the tolerance (300 seconds by default) from the clock,
 * either way, is refused. It takes the <b>raw</b> body (the exact bytes received, before any JSON parsing) and
 * the headers, whatever their case: a {@code Map} (Spring's {@code @RequestHeader HttpHeaders}, the JDK's
 * {@code HttpExchange.getRequestHeaders()}) or a lookup ({@code request::getHeader} of a servlet request).
 * Thread-safe.
 */
public final class WebhookVerifier {
  /** The service's own signature header (names are case-insensitive in HTTP). */
  public static final String SIGNATURE_HEADER = "X-Service-Signature";
  /** Identifies a delivery, identical across its retries (the same value as {@code webhook-id}): deduplicate by it. */
  public static final String WEBHOOK_ID_HEADER = "X-Service-Webhook-Id";

  public static final String STANDARD_ID_HEADER = "webhook-id";
  public static final String STANDARD_TIMESTAMP_HEADER = "webhook-timestamp";
  public static final String STANDARD_SIGNATURE_HEADER = "webhook-signature";
  public static final Duration DEFAULT_TOLERANCE = Duration.ofSeconds(300);

  private static final String SECRET_PREFIX = "whsec_";
  private static final Pattern HEX_SHA256 = Pattern.compile("^[0-9a-fA-F]{64}$");
  private static final Pattern TIMESTAMP = Pattern.compile("^\\d{1,15}$");
  private static final ObjectMapper JSON = new ObjectMapper();

  /** How the secret keys {@code webhook-signature}: as the Admin API's {@code scheme} says. */
  public enum Scheme {
    /** The base64 after {@code whsec_} is the key (Standard Webhooks). */
    STANDARD,
    /** A secret issued before 2026-11-27: its UTF-8 bytes are the key, until rotated. */
    LEGACY;

    /** The scheme of the Admin API's {@code scheme} value ({@code standard} or {@code legacy}). */
    public static Scheme of(String value) {
      return Scheme.valueOf(Objects.requireNonNull(value, "scheme").toUpperCase(Locale.ROOT));
    }
  }

  private final String secret;
  private final byte[] standardKey;
  private final Duration tolerance;
  private final Clock clock;

  /** A verifier of a {@code standard} secret, with the default tolerance. */
  public WebhookVerifier(String secret) {
    this(secret, Scheme.STANDARD, DEFAULT_TOLERANCE, Clock.systemUTC());
  }

  public WebhookVerifier(String secret, Scheme scheme) {
    this(secret, scheme, DEFAULT_TOLERANCE, Clock.systemUTC());
  }

  public WebhookVerifier(String secret, Scheme scheme, Duration tolerance, Clock clock) {
    if (secret == null || secret.isEmpty()) throw new IllegalArgumentException("the webhook signing secret is needed");
    this.secret = secret;
    // A secret of another scheme fails here, not on the first webhook.
    this.standardKey = standardKey(secret, Objects.requireNonNull(scheme, "scheme"));
    this.tolerance = Objects.requireNonNull(tolerance, "tolerance");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** The event once the signatures are checked; the headers by case-insensitive name. */
  public JsonNode verify(byte[] rawBody, Map<String, ? extends Collection<String>> headers) {
    return verify(rawBody, name -> firstValue(headers, name));
  }

  /** The event once the signatures are checked; {@code header} answers a header's value, or null. */
  public JsonNode verify(byte[] rawBody, Function<String, String> header) {
    Objects.requireNonNull(rawBody, "rawBody");
    boolean checked = false;
    String service = header.apply(SIGNATURE_HEADER);
    if (service != null) {
      verifyServiceSignature(rawBody, service);
      checked = true;
    }
    String standard = header.apply(STANDARD_SIGNATURE_HEADER);
    if (standard != null) {
      verifyStandardWebhook(rawBody, header.apply(STANDARD_ID_HEADER), header.apply(STANDARD_TIMESTAMP_HEADER), standard);
      checked = true;
    }
    if (!checked) {
      throw new WebhookVerificationException(Reason.MISSING_HEADER, "neither " + SIGNATURE_HEADER + " nor webhook-signature is present");
    }
    try {
      return JSON.readTree(rawBody);
    } catch (IOException notJson) {
      throw new WebhookVerificationException(Reason.MALFORMED_BODY, "the signed body is not JSON", notJson);
    }
  }

  /** The event once the signatures are checked; {@code rawBody} as the UTF-8 text received. */
  public JsonNode verify(String rawBody, Map<String, ? extends Collection<String>> headers) {
    return verify(rawBody.getBytes(StandardCharsets.UTF_8), headers);
  }

  /** Checks an {@code X-Service-Signature} value; throws {@link WebhookVerificationException} when it is not valid. */
  public void verifyServiceSignature(byte[] rawBody, String header) {
    if (header == null || header.isBlank()) throw new WebhookVerificationException(Reason.MISSING_HEADER, "no " + SIGNATURE_HEADER + " header");
    String timestamp = null;
    List<byte[]> signatures = new ArrayList<>();
    for (String part : header.split(",", -1)) {
      int equals = part.indexOf('=');
      String key = equals < 0 ? "" : part.substring(0, equals).strip();
      String value = equals < 0 ? "" : part.substring(equals + 1).strip();
      if (key.isEmpty()) throw new WebhookVerificationException(Reason.MALFORMED_HEADER, SIGNATURE_HEADER + " is not t=<seconds>,v1=<hex>");
      if (key.equals("t")) {
        if (timestamp != null || !TIMESTAMP.matcher(value).matches()) {
          throw new WebhookVerificationException(Reason.MALFORMED_HEADER, SIGNATURE_HEADER + " has no single numeric t");
        }
        timestamp = value;
      } else if (key.equals("v1") && HEX_SHA256.matcher(value).matches()) {
        signatures.add(value.toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII));
      }
      // Other schemes (v0, a future v2) are ignored, so that the service can add one without breaking receivers.
    }
    if (timestamp == null || signatures.isEmpty()) {
      throw new WebhookVerificationException(Reason.MALFORMED_HEADER, SIGNATURE_HEADER + " lacks t or a v1 signature");
    }
    checkTimestamp(timestamp);
    byte[] expected = HexFormat.of().formatHex(hmac(secret.getBytes(StandardCharsets.UTF_8), timestamp + ".", rawBody)).getBytes(StandardCharsets.US_ASCII);
    if (!anyMatches(expected, signatures)) {
      throw new WebhookVerificationException(Reason.SIGNATURE_MISMATCH, "no " + SIGNATURE_HEADER + " v1 signature matches the body");
    }
  }

  /** Checks the Standard Webhooks headers' values; throws {@link WebhookVerificationException} when they are not valid. */
  public void verifyStandardWebhook(byte[] rawBody, String webhookId, String webhookTimestamp, String webhookSignature) {
    if (isBlank(webhookId) || isBlank(webhookTimestamp) || isBlank(webhookSignature)) {
      throw new WebhookVerificationException(Reason.MISSING_HEADER, "webhook-id, webhook-timestamp and webhook-signature are all needed");
    }
    String timestamp = webhookTimestamp.strip();
    if (!TIMESTAMP.matcher(timestamp).matches()) throw new WebhookVerificationException(Reason.MALFORMED_HEADER, "webhook-timestamp is not unix seconds");
    List<byte[]> signatures = new ArrayList<>();
    // Space-delimited `<version>,<base64>` entries; only v1 (HMAC-SHA256) is this scheme's.
    for (String entry : webhookSignature.strip().split("\\s+")) {
      int comma = entry.indexOf(',');
      if (comma < 0 || !entry.substring(0, comma).equals("v1")) continue;
      try {
        signatures.add(Base64.getDecoder().decode(entry.substring(comma + 1)));
      } catch (IllegalArgumentException notBase64) {
        // an entry that is not base64 matches nothing
      }
    }
    if (signatures.isEmpty()) throw new WebhookVerificationException(Reason.MALFORMED_HEADER, "webhook-signature has no v1 signature");
    checkTimestamp(timestamp);
    byte[] expected = hmac(standardKey, webhookId + "." + timestamp + ".", rawBody);
    if (!anyMatches(expected, signatures)) {
      throw new WebhookVerificationException(Reason.SIGNATURE_MISMATCH, "no webhook-signature v1 signature matches the body");
    }
  }

  /** The {@code X-Service-Signature} value the service sends for {@code rawBody}: for your receiver's own tests. */
  public static String serviceSignature(byte[] rawBody, String secret, long unixSeconds) {
    return "t=" + unixSeconds + ",v1=" + HexFormat.of().formatHex(hmac(secret.getBytes(StandardCharsets.UTF_8), unixSeconds + ".", rawBody));
  }

  /** The {@code webhook-signature} value the service sends: for your receiver's own tests. */
  public static String standardWebhookSignature(String webhookId, long unixSeconds, byte[] rawBody, String secret, Scheme scheme) {
    return "v1," + Base64.getEncoder().encodeToString(hmac(standardKey(secret, scheme), webhookId + "." + unixSeconds + ".", rawBody));
  }

  /** The HMAC key of {@code webhook-signature}: the base64 after {@code whsec_}, or a legacy secret's UTF-8 bytes. */
  static byte[] standardKey(String secret, Scheme scheme) {
    if (secret.isEmpty()) throw new IllegalArgumentException("the webhook signing secret is needed");
    if (scheme == Scheme.LEGACY) return secret.getBytes(StandardCharsets.UTF_8);
    String encoded = secret.startsWith(SECRET_PREFIX) ? secret.substring(SECRET_PREFIX.length()) : secret;
    try {
      byte[] key = Base64.getDecoder().decode(encoded);
      if (key.length == 0) throw new IllegalArgumentException("the signing secret has no key after whsec_");
      return key;
    } catch (IllegalArgumentException notBase64) {
      throw new IllegalArgumentException("the signing secret is not whsec_ and base64: a legacy secret? pass Scheme.LEGACY", notBase64);
    }
  }

  private void checkTimestamp(String timestamp) {
    long seconds = Long.parseLong(timestamp);
    long now = clock.instant().getEpochSecond();
    if (Math.abs(now - seconds) > tolerance.getSeconds()) {
      throw new WebhookVerificationException(Reason.STALE_TIMESTAMP, "the timestamp " + timestamp + " is more than " + tolerance.getSeconds() + " s from now");
    }
  }

  private static boolean anyMatches(byte[] expected, List<byte[]> candidates) {
    boolean matched = false;
    // Every entry is compared (no early exit), each in constant time.
    for (byte[] candidate : candidates) matched |= MessageDigest.isEqual(expected, candidate);
    return matched;
  }

  private static byte[] hmac(byte[] key, String prefix, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      mac.update(prefix.getBytes(StandardCharsets.UTF_8));
      return mac.doFinal(body);
    } catch (NoSuchAlgorithmException | InvalidKeyException impossible) {
      throw new IllegalStateException("every JDK has HmacSHA256", impossible);
    }
  }

  private static String firstValue(Map<String, ? extends Collection<String>> headers, String name) {
    for (Map.Entry<String, ? extends Collection<String>> entry : headers.entrySet()) {
      if (entry.getKey() != null && entry.getKey().equalsIgnoreCase(name) && entry.getValue() != null && !entry.getValue().isEmpty()) {
        return entry.getValue().iterator().next();
      }
    }
    return null;
  }

  private static boolean isBlank(String value) {
    return value == null || value.isBlank();
  }
}
