package com.cobro.sdk.oauth;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** A {@link TokenStore} in memory: for tests and scripts; a backend keeps tokens in its database. */
public final class InMemoryTokenStore implements TokenStore {
  private final Map<String, MerchantTokens> tokens = new ConcurrentHashMap<>();

  @Override
  public Optional<MerchantTokens> load(String merchantKey) {
    return Optional.ofNullable(tokens.get(merchantKey));
  }

  @Override
  public void save(String merchantKey, MerchantTokens merchantTokens) {
    tokens.put(merchantKey, merchantTokens);
  }
}
