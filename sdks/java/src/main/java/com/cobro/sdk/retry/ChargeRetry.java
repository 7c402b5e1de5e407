package com.cobro.sdk.retry;

import com.cobro.sdk.errors.CobroApiException;
import com.cobro.sdk.errors.ConflictException;
import com.cobro.sdk.errors.NoAnswerException;
import com.cobro.sdk.errors.NotFoundException;
import com.cobro.sdk.errors.RateLimitException;
import com.cobro.sdk.errors.ServerException;
import com.cobro.sdk.errors.UnprocessableException;
import com.cobro.sdk.generated.integration.ApiException;
import com.cobro.sdk.generated.integration.api.PaymentRequestsApi;
import com.cobro.sdk.generated.integration.model.BulkPaymentRequestCreate;
import com.cobro.sdk.generated.integration.model.BulkPaymentRequestItem;
import com.cobro.sdk.generated.integration.model.BulkResult;
import com.cobro.sdk.generated.integration.model.PaymentRequest;
import com.cobro.sdk.generated.integration.model.PaymentRequestCreate;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.regex.Pattern;

/**
 * The service's retry guidance for creating charges. A create has no idempotency key: the {@code referenceId} is
 * the key.
 *
 * <ul>
 *   <li>No answer or a 5xx of a create: GET the {@code referenceId}; found, it exists; 404, create again with the
 *       same {@code referenceId}.
 *   <li>409 {@code ReferenceIdAlreadyExists}: the charge exists (it is read and returned).
 *   <li>429: a daily cap; near it a charge may exist though 429 was answered, so it is checked with a GET, and
 *       otherwise the {@link RateLimitException} is thrown: wait for its {@code availableAt()} (the reset, 00:00
 *       Argentina time), do not loop.
 *   <li>A bulk is all or nothing: on no answer GET one {@code referenceId} of the batch; a 422 of a retried bulk
 *       whose items all fail because their {@code referenceId} already exists means the first attempt created it.
 * </ul>
 */
public final class ChargeRetry {
  /** What the helpers call: the generated {@link PaymentRequestsApi} has all three ({@link #of}). */
  public interface Charges {
    PaymentRequest create(PaymentRequestCreate body) throws ApiException;

    BulkResult createBulk(BulkPaymentRequestCreate body) throws ApiException;

    PaymentRequest get(String referenceId) throws ApiException;

    static Charges of(PaymentRequestsApi api) {
      return new Charges() {
        @Override
        public PaymentRequest create(PaymentRequestCreate body) throws ApiException {
          return api.createPaymentRequest(body);
        }

        @Override
        public BulkResult createBulk(BulkPaymentRequestCreate body) throws ApiException {
          return api.createPaymentRequestsBulk(body);
        }

        @Override
        public PaymentRequest get(String referenceId) throws ApiException {
          return api.getPaymentRequest(referenceId);
        }
      };
    }
  }

  /** Waits between attempts ({@code Thread::sleep} by default; a test passes its own). */
  @FunctionalInterface
  public interface Sleeper {
    void sleep(Duration duration) throws InterruptedException;
  }

  /** How a 422 of a retried bulk reads: the earlier attempt created the batch, or this batch was refused. */
  public enum BulkRetryInterpretation {
    CREATED_EARLIER,
    REJECTED
  }

  private static final Pattern REFERENCE_ID_EXISTS = Pattern.compile("referenceId already exists", Pattern.CASE_INSENSITIVE);

  private final Charges charges;
  private final int attempts;
  private final IntFunction<Duration> backoff;
  private final Sleeper sleeper;

  /** Three attempts, 0.5 s then 1 s apart. */
  public ChargeRetry(PaymentRequestsApi api) {
    this(Charges.of(api), 3, ChargeRetry::defaultBackoff, duration -> Thread.sleep(duration.toMillis()));
  }

  /** {@code backoff.apply(n)} is the wait before the n-th retry (1-based). */
  public ChargeRetry(Charges charges, int attempts, IntFunction<Duration> backoff, Sleeper sleeper) {
    if (attempts < 1) throw new IllegalArgumentException("attempts must be at least 1");
    this.charges = Objects.requireNonNull(charges, "charges");
    this.attempts = attempts;
    this.backoff = Objects.requireNonNull(backoff, "backoff");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
  }

  /** 0.5 s before the first retry, then doubling. */
  public static Duration defaultBackoff(int retry) {
    return Duration.ofMillis(500L << (retry - 1));
  }

  /**
   * Creates a charge, or finds the one an earlier attempt created. Safe to call again with the same body.
   *
   * @throws CobroApiException any answer the guidance does not settle (a 400, a 429 with no charge, …)
   * @throws NoAnswerException when no attempt got an answer and the check found nothing
   */
  public CreateOrGetResult createOrGet(PaymentRequestCreate body) throws ApiException {
    String referenceId = Objects.requireNonNull(body.getReferenceId(), "the charge needs a referenceId: it is the idempotency key");
    RuntimeException last = null;
    for (int attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) pause(attempt - 1);
      try {
        return new CreateOrGetResult(CreateOrGetResult.Outcome.CREATED, charges.create(body));
      } catch (ConflictException conflict) {
        last = conflict;
        if (conflict.hasCode("ReferenceIdAlreadyExists")) {
          PaymentRequest existing = find(referenceId);
          if (existing != null) return new CreateOrGetResult(CreateOrGetResult.Outcome.EXISTING, existing);
          throw conflict;
        }
        // Two simultaneous creates for one payer: the next attempt settles it.
        if (!conflict.hasCode("CustomerAlreadyAssociated")) throw conflict;
      } catch (RateLimitException rateLimited) {
        PaymentRequest existing = find(referenceId);
        if (existing != null) return new CreateOrGetResult(CreateOrGetResult.Outcome.EXISTING, existing);
        throw rateLimited;
      } catch (NoAnswerException | ServerException unknown) {
        last = unknown;
        try {
          PaymentRequest existing = find(referenceId);
          if (existing != null) return new CreateOrGetResult(CreateOrGetResult.Outcome.EXISTING, existing);
        } catch (NoAnswerException | ServerException checkFailed) {
          // The check failed too: the next create settles it (201, or 409 if it exists).
        }
      }
    }
    throw last;
  }

  /**
   * Creates a batch (all or nothing), following the guidance for a bulk that got no answer: GET one
   * {@code referenceId} of the batch; found, it was created; 404, send it again. A 422 on a retry is read with
   * {@link #interpretBulkRetry}. Other answers are thrown.
   */
  public CreateBulkResult createBulkOrConfirm(BulkPaymentRequestCreate body) throws ApiException {
    List<BulkPaymentRequestItem> items = body.getPaymentRequests();
    if (items == null || items.isEmpty()) throw new IllegalArgumentException("a bulk needs at least one payment request");
    String probe = Objects.requireNonNull(items.get(0).getReferenceId(), "each item needs a referenceId");
    RuntimeException last = null;
    for (int attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) pause(attempt - 1);
      try {
        return new CreateBulkResult(CreateBulkResult.Outcome.CREATED, charges.createBulk(body));
      } catch (UnprocessableException refused) {
        if (attempt > 1 && interpretBulkRetry(refused, body) == BulkRetryInterpretation.CREATED_EARLIER) {
          return new CreateBulkResult(CreateBulkResult.Outcome.CREATED_EARLIER, null);
        }
        throw refused;
      } catch (NoAnswerException | ServerException unknown) {
        last = unknown;
        try {
          if (find(probe) != null) return new CreateBulkResult(CreateBulkResult.Outcome.CREATED_EARLIER, null);
        } catch (NoAnswerException | ServerException checkFailed) {
          // The check failed too: the next attempt settles it.
        }
      }
    }
    throw last;
  }

  /**
   * Reads the 422 of a bulk that retried a batch whose first attempt got no answer: when every item says "The
   * referenceId already exists for this integration", that first attempt created the whole batch (all or
   * nothing); any other reason means this batch was refused.
   */
  public static BulkRetryInterpretation interpretBulkRetry(UnprocessableException error, BulkPaymentRequestCreate batch) {
    Set<String> referenceIds = new HashSet<>();
    for (BulkPaymentRequestItem item : batch.getPaymentRequests()) referenceIds.add(item.getReferenceId());
    List<JsonNode> errors = error.errors();
    boolean allExist = !errors.isEmpty() && errors.size() == referenceIds.size();
    for (JsonNode item : errors) {
      String reason = item.path("reason").asText("");
      String referenceId = item.path("referenceId").asText(null);
      allExist &= REFERENCE_ID_EXISTS.matcher(reason).find() && referenceIds.contains(referenceId);
    }
    return allExist ? BulkRetryInterpretation.CREATED_EARLIER : BulkRetryInterpretation.REJECTED;
  }

  /** The charge, or null on 404. */
  private PaymentRequest find(String referenceId) throws ApiException {
    try {
      return charges.get(referenceId);
    } catch (NotFoundException notFound) {
      return null;
    }
  }

  private void pause(int retry) {
    try {
      sleeper.sleep(backoff.apply(retry));
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw new NoAnswerException("interrupted while waiting to retry");
    }
  }
}
