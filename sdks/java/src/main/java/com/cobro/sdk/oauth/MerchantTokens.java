package com.cobro.sdk.oauth;

import java.time.Instant;
import java.util.Objects;

/**
 * The tokens of one merchant account: the {@code idToken} is the Bearer of the Integration API (1 hour); the
 * {@code refreshToken} gets new ones (180 days, not rotated).
 *
 * @param idToken the Integration API's Bearer token
 * @param refreshToken the token that gets a new {@code idToken}
 * @param expiresAt when the {@code idToken} expires
 */
public record MerchantTokens(String idToken, String refreshToken, Instant expiresAt) {
  public MerchantTokens {
    Objects.requireNonNull(idToken, "idToken");
    Objects.requireNonNull(refreshToken, "refreshToken");
    Objects.requireNonNull(expiresAt, "expiresAt");
  }

  @Override
  public String toString() {
    // No token in a log.
    return "MerchantTokens[expiresAt=" + expiresAt + "]";
  }
}
