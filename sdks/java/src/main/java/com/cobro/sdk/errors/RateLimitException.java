package com.cobro.sdk.errors;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * 429: a daily cap or quota (they reset at 00:00 Argentina time). Wait for {@link #availableAt()}; do not retry
 * in a loop. Near the cap a charge may exist though 429 was answered: check with a GET.
 */
public class RateLimitException extends CobroApiException {
  private static final long serialVersionUID = 1L;

  public RateLimitException(int status, String body, Map<String, List<String>> headers, Throwable cause) {
    super(status, body, headers, cause);
  }

  /**
   * When the cap resets, from the body's {@code availableAt} (ISO 8601 with {@code -03:00}) or
   * {@code availableAtUnixSeconds}, or else the {@code Retry-After} header (seconds); empty when the answer has
   * none of them.
   */
  public Optional<Instant> availableAt() {
    JsonNode body = json();
    if (body != null) {
      JsonNode at = body.get("availableAt");
      if (at != null && at.isTextual()) {
        try {
          return Optional.of(OffsetDateTime.parse(at.asText()).toInstant());
        } catch (DateTimeParseException ignored) {
          // fall through to the other forms
        }
      }
      JsonNode seconds = body.get("availableAtUnixSeconds");
      if (seconds != null && seconds.canConvertToLong()) return Optional.of(Instant.ofEpochSecond(seconds.asLong()));
    }
    return header("retry-after").flatMap(value -> {
      try {
        return Optional.of(Instant.now().plusSeconds(Long.parseLong(value.trim())));
      } catch (NumberFormatException ignored) {
        return Optional.empty();
      }
    });
  }
}
