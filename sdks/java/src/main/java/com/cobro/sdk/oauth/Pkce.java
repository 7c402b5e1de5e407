package com.cobro.sdk.oauth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/** PKCE (RFC 7636) with S256, and the random {@code state}. */
public final class Pkce {
  private static final SecureRandom RANDOM = new SecureRandom();

  private Pkce() {}

  /** 32 random bytes, base64url without padding: a {@code state} or a PKCE verifier (43 characters, as RFC 7636 asks). */
  public static String randomToken() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** The S256 challenge of a verifier: base64url(SHA-256(verifier)), without padding. */
  public static String challenge(String codeVerifier) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(codeVerifier.getBytes(StandardCharsets.US_ASCII));
      return Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
    } catch (NoSuchAlgorithmException impossible) {
      throw new IllegalStateException("every JDK has SHA-256", impossible);
    }
  }
}
