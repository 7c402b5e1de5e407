package com.cobro.sdk.retry;

import com.cobro.sdk.generated.integration.model.BulkResult;

/**
 * What {@link ChargeRetry#createBulkOrConfirm} did.
 *
 * @param outcome {@code CREATED} ({@code result} is the {@code BulkResult}) or {@code CREATED_EARLIER} (an
 *     earlier attempt created the whole batch: read the charges by {@code referenceId}; {@code result} is null)
 * @param result the bulk's answer, when this call created it
 */
public record CreateBulkResult(Outcome outcome, BulkResult result) {
  /** Who created the batch. */
  public enum Outcome {
    CREATED,
    CREATED_EARLIER
  }
}
