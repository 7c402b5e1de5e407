package com.cobro.sdk.oauth;

/**
 * Where to send the merchant's browser, and what to keep (in the session) until it comes back.
 *
 * @param url the authorization URL, with {@code state} and the PKCE S256 challenge
 * @param state compare it with the {@code state} of the callback before anything else
 * @param codeVerifier the PKCE verifier, for {@link CobroOAuth#exchangeCode}
 */
public record AuthorizationStart(String url, String state, String codeVerifier) {
  @Override
  public String toString() {
    return "AuthorizationStart[url=" + url + "]";
  }
}
