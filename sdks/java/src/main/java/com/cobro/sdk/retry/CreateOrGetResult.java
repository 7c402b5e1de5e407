package com.cobro.sdk.retry;

import com.cobro.sdk.generated.integration.model.PaymentRequest;

/**
 * What {@link ChargeRetry#createOrGet} did.
 *
 * @param outcome {@code CREATED} (this call created it) or {@code EXISTING} (an earlier attempt, this call's or
 *     another's, did: check that it is the charge you meant, the {@code referenceId} is yours to keep unique)
 * @param paymentRequest the charge
 */
public record CreateOrGetResult(Outcome outcome, PaymentRequest paymentRequest) {
  /** Who created the charge. */
  public enum Outcome {
    CREATED,
    EXISTING
  }
}
