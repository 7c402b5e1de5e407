package com.cobro.sdk.oauth;

import java.util.Optional;

/**
 * Where the merchant accounts' tokens are kept (a database row per merchant account, a cache): yours to
 * implement. {@link CobroOAuth#freshTokens} loads them and saves them after each refresh.
 */
public interface TokenStore {
  /** The tokens stored for {@code merchantKey} (your own key of the merchant account), or empty when it is not linked. */
  Optional<MerchantTokens> load(String merchantKey);

  /** Stores the tokens of {@code merchantKey} (the {@code refreshToken} lasts 180 days and does not rotate). */
  void save(String merchantKey, MerchantTokens tokens);
}
