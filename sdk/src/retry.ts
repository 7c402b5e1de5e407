// The service's retry guidance, as helpers. Creating a charge has no idempotency key: the `referenceId`
// is the key. On a timeout or a 5xx of a create, GET the referenceId; on 404 create again with the same
// referenceId; a 409 `ReferenceIdAlreadyExists` means the charge exists. A bulk is all or nothing: on a
// timeout GET one referenceId of the batch; a 422 of a retried bulk whose items all fail because their
// referenceId already exists means the earlier attempt created the batch.
import type {
  BulkPaymentRequestCreate,
  BulkResult,
  BulkValidationErrorBody,
  CreatePaymentRequestRequest,
  CreatePaymentRequestsBulkRequest,
  GetPaymentRequestRequest,
  PaymentRequest,
  PaymentRequestCreate,
} from "./generated/integration/index.js";
import { errorBodyOf, httpStatusOf, isNoAnswerError } from "./errors.js";

/** The two operations `createOrGet` uses; a `PaymentRequestsApi` (or `CobroClient.paymentRequests`) has them. */
export interface ChargeOperations {
  createPaymentRequest(request: CreatePaymentRequestRequest, init?: RequestInit): Promise<PaymentRequest>;
  getPaymentRequest(request: GetPaymentRequestRequest, init?: RequestInit): Promise<PaymentRequest>;
}

export interface RetryOptions {
  /** Create attempts in all. Default 3. */
  attempts?: number;
  /** Each request's timeout in milliseconds (an unanswered request counts as a timeout). Default 30 000. */
  timeoutMs?: number;
  /** Wait before the n-th retry (1-based), in milliseconds. Default 500 ms, doubling. */
  backoffMs?: (retry: number) => number;
  /** Waits; replaceable in tests. */
  sleep?: (milliseconds: number) => Promise<void>;
}

export type CreateOrGetOutcome =
  /** This call created the charge. */
  | "created"
  /** The charge existed: an earlier attempt (this call's or another's) created it. */
  | "existing";

export interface CreateOrGetResult {
  outcome: CreateOrGetOutcome;
  paymentRequest: PaymentRequest;
}

const defaultSleep = (milliseconds: number) => new Promise<void>((resolve) => setTimeout(resolve, milliseconds));

function requestInit(timeoutMs: number): RequestInit {
  return { signal: AbortSignal.timeout(timeoutMs) };
}

/** Whether the service may have done the write although the call failed: no answer, or a 5xx. */
function outcomeUnknown(error: unknown): boolean {
  const status = httpStatusOf(error);
  return isNoAnswerError(error) || (status !== undefined && status >= 500);
}

/**
 * Creates a charge, or finds the one an earlier attempt created. Safe to call again with the same body.
 *
 * - 201: `created`.
 * - no answer (timeout, connection error) or 5xx: GET the referenceId; found: `existing`; 404: create
 *   again with the same referenceId, up to `attempts` creates.
 * - 409 `ReferenceIdAlreadyExists`: GET it: `existing`. (Check that it is the charge you meant: the
 *   referenceId is yours to keep unique.)
 * - 409 `CustomerAlreadyAssociatedError` (two simultaneous creates for one payer): retried.
 * - 429 (daily message cap): GET the referenceId, since with parallel creates near the cap a charge may
 *   exist though 429 was returned; otherwise the 429 is thrown: wait for the reset, do not loop.
 * - Any other answer is thrown as the generated client threw it.
 */
export async function createOrGet(api: ChargeOperations, body: PaymentRequestCreate, options: RetryOptions = {}): Promise<CreateOrGetResult> {
  const { attempts = 3, timeoutMs = 30_000, backoffMs = (retry) => 500 * 2 ** (retry - 1), sleep = defaultSleep } = options;
  const referenceId = body.referenceId;
  const find = async (): Promise<PaymentRequest | undefined> => {
    try {
      return await api.getPaymentRequest({ referenceId }, requestInit(timeoutMs));
    } catch (error) {
      if (httpStatusOf(error) === 404) return undefined;
      throw error;
    }
  };

  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) await sleep(backoffMs(attempt - 1));
    try {
      const paymentRequest = await api.createPaymentRequest({ paymentRequestCreate: body }, requestInit(timeoutMs));
      return { outcome: "created", paymentRequest };
    } catch (error) {
      lastError = error;
      const status = httpStatusOf(error);
      if (status === 409) {
        const conflict = (await errorBodyOf(error)) as { error?: unknown; code?: unknown } | undefined;
        if (conflict?.error === "ReferenceIdAlreadyExists" || conflict?.error === "ReferenceIdAlreadyExistsError") {
          const existing = await find();
          if (existing) return { outcome: "existing", paymentRequest: existing };
          throw error;
        }
        if (conflict?.code === "CustomerAlreadyAssociatedError") continue;
        throw error;
      }
      if (status === 429) {
        const existing = await find();
        if (existing) return { outcome: "existing", paymentRequest: existing };
        throw error;
      }
      if (!outcomeUnknown(error)) throw error;
      try {
        const existing = await find();
        if (existing) return { outcome: "existing", paymentRequest: existing };
      } catch (findError) {
        // The check failed too (no answer or 5xx): the next create settles it (201, or 409 if it exists).
        if (!outcomeUnknown(findError)) throw findError;
      }
    }
  }
  throw lastError;
}

/** What a failed (retried) bulk means. */
export type BulkRetryInterpretation =
  /** Every item failed only because its referenceId already exists: an earlier attempt created the batch. */
  | { outcome: "created_earlier" }
  /** The batch was refused for its content (nothing was created): fix `errors` and send it again. */
  | { outcome: "rejected"; errors: BulkValidationErrorBody["errors"] };

const REFERENCE_ID_EXISTS = /referenceId already exists/i;

/**
 * Reads the 422 body of a bulk. A bulk is all or nothing, so when it was a retry of a batch whose first
 * attempt got no answer, a 422 whose every item says "The referenceId already exists for this
 * integration" means that first attempt created the whole batch. Any other reason means this batch was
 * refused and nothing of it was created by this call.
 */
export function interpretBulkRetry(body: BulkValidationErrorBody, batch: Pick<BulkPaymentRequestCreate, "paymentRequests">): BulkRetryInterpretation {
  const referenceIds = new Set(batch.paymentRequests.map((item) => item.referenceId));
  const errors = body.errors ?? [];
  const allExist =
    errors.length > 0 &&
    errors.length === referenceIds.size &&
    errors.every((error) => REFERENCE_ID_EXISTS.test(error.reason) && referenceIds.has(error.referenceId));
  return allExist ? { outcome: "created_earlier" } : { outcome: "rejected", errors };
}

/** The operations `createBulkOrConfirm` uses. */
export interface BulkOperations extends Pick<ChargeOperations, "getPaymentRequest"> {
  createPaymentRequestsBulk(request: CreatePaymentRequestsBulkRequest, init?: RequestInit): Promise<BulkResult>;
}

export type CreateBulkResult =
  /** This call created the batch. */
  | { outcome: "created"; result: BulkResult }
  /** An earlier attempt created the batch; read its charges with GET by referenceId. */
  | { outcome: "created_earlier" };

/**
 * Creates a batch, following the guidance for a bulk that got no answer: GET one referenceId of the
 * batch (all or nothing); found: it was created; 404: send the batch again. A 422 on a retry is read
 * with `interpretBulkRetry`. Other answers are thrown as the generated client threw them.
 */
export async function createBulkOrConfirm(api: BulkOperations, body: BulkPaymentRequestCreate, options: RetryOptions = {}): Promise<CreateBulkResult> {
  const { attempts = 3, timeoutMs = 60_000, backoffMs = (retry) => 500 * 2 ** (retry - 1), sleep = defaultSleep } = options;
  const probe = body.paymentRequests[0]?.referenceId;
  if (probe === undefined) throw new TypeError("a bulk needs at least one payment request");
  let lastError: unknown;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) await sleep(backoffMs(attempt - 1));
    try {
      return { outcome: "created", result: await api.createPaymentRequestsBulk({ bulkPaymentRequestCreate: body }, requestInit(timeoutMs)) };
    } catch (error) {
      lastError = error;
      if (httpStatusOf(error) === 422 && attempt > 1) {
        const interpretation = interpretBulkRetry((await errorBodyOf(error)) as BulkValidationErrorBody, body);
        if (interpretation.outcome === "created_earlier") return { outcome: "created_earlier" };
        throw error;
      }
      if (!outcomeUnknown(error)) throw error;
      try {
        await api.getPaymentRequest({ referenceId: probe }, requestInit(timeoutMs));
        return { outcome: "created_earlier" };
      } catch (findError) {
        if (httpStatusOf(findError) !== 404 && !outcomeUnknown(findError)) throw findError;
      }
    }
  }
  throw lastError;
}
