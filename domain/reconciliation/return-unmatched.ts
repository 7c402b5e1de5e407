// Unmatched money sent back to the account it came from (a "devolución"): an integration's admins, its backend
// through the Integration API, or the platform admin for money of no integration ask for it; the bank does it.
//
// The request (`requestReturn`) is one transaction: the payment's row is locked (so of a return and an
// assignment, or two returns, at once, one wins and the other sees its result), its whole unresolved amount
// becomes a `requested` return, the payment `return_requested` with nothing unresolved, and the job that asks
// the bank is added. The bank is never called inside it. The request's Idempotency-Key is kept on the return
// (domain/idempotency.ts): the same key answers the same return again.
//
// The job (`settleReturn`) asks the bank, outside any transaction, then records what it answered in a short
// one: `completed` → the return `returned`, the payment `returned`, `payment.returned`; `rejected` → the return
// `failed` with the bank's reason, the payment `return_failed` with its money unresolved again (to return
// again, a new return, or assign), `payment.return_failed`; `pending` → asked again later (the job added
// again at the bank's `checkAfterMs`); a temporary failure → the job is retried with the queue's backoff, the
// same return id sent again (the bank takes one transfer per id). The events go to the integration the money
// belongs to; money of no integration has none to tell.
import { randomUUID } from "node:crypto";
import { sql, type Kysely, type Transaction } from "kysely";
import { addJob, RETURN_UNMATCHED_PAYMENT_TASK, returnUnmatchedPaymentJobKey } from "../../db/job-queue.ts";
import type { Database } from "../../db/schema.ts";
import type { UnmatchedPaymentReturn } from "../../db/tables/transfers.table.ts";
import type { components } from "../../generated/types/admin.ts";
import { integrationNow, type Clock } from "../clock.ts";
import { DomainError, ValidationError } from "../errors.ts";
import { eventsCtes, type NewEvent } from "../events/outbox.ts";
import { replayed, requestFingerprint } from "../idempotency.ts";
import { fromCents } from "../money.ts";
import type { BankTransferResult, BankTransfers, ReturnTransfer } from "../outbound/bank-transfers.ts";
import {
  getUnmatchedPayment,
  lockedUnmatchedPayment,
  type UnmatchedPaymentReturnView,
  type UnmatchedPaymentScope,
  type UnmatchedPaymentView,
} from "./unmatched-payments.ts";

export type ReturnActor = { kind: "integration_admin"; adminUserId: string } | { kind: "integration_api" } | { kind: "platform_admin"; adminUserId: string };

export interface ReturnRequest {
  idempotencyKey: string;
  /** Sandbox only: the Sandbox's bank refuses it. */
  simulateFailure?: boolean;
}

export interface ReturnResult {
  paymentReturn: UnmatchedPaymentReturnView;
  unmatchedPayment: UnmatchedPaymentView;
}

/** Whose keys these are: an integration's (its admins and its backend), or the platform's. */
function keyOwner(scope: UnmatchedPaymentScope): string {
  return scope.kind === "platform" ? "platform" : `integration:${scope.integrationClientId}`;
}

export async function requestReturn(
  db: Kysely<Database>,
  scope: UnmatchedPaymentScope,
  unmatchedPaymentId: string,
  request: ReturnRequest,
  context: { now: Date; serviceEnv: "sandbox" | "production"; actor: ReturnActor },
): Promise<ReturnResult> {
  const simulateFailure = request.simulateFailure === true;
  if (simulateFailure && context.serviceEnv === "production") {
    throw ValidationError.of(
      "simulateFailure",
      "notAccepted",
      "simulateFailure exists only in the Sandbox: a Production return is the bank's to complete or refuse",
    );
  }
  const owner = keyOwner(scope);
  const fingerprint = requestFingerprint("returnUnmatchedPayment", { unmatchedPaymentId, simulateFailure });
  const paymentReturn = await db.transaction().execute(async (trx) => {
    const earlier = await returnUnderKey(trx, owner, request.idempotencyKey);
    if (earlier) return replayed(earlier, fingerprint);
    const payment = await lockPayment(trx, scope, unmatchedPaymentId);
    // The lock may have waited for a request with this same key: what it did is now visible.
    const raced = await returnUnderKey(trx, owner, request.idempotencyKey);
    if (raced) return replayed(raced, fingerprint);
    if (scope.kind === "platform" && payment.integration_client_id !== null) {
      throw new DomainError("UnmatchedPaymentOfIntegrationError", "This money belongs to an integration: its admins or its backend return it");
    }
    if (payment.state === "return_requested") {
      throw new DomainError(
        "UnmatchedPaymentReturnInProgressError",
        "A return of this payment is in progress: wait for its outcome (payment.returned or payment.return_failed)",
      );
    }
    if ((payment.state !== "unresolved" && payment.state !== "return_failed") || payment.unresolved_cents <= 0) {
      throw new DomainError("UnmatchedPaymentNotUnresolvedError", `This unmatched payment is ${payment.state}: nothing is left to return`);
    }
    const inserted = await trx
      .insertInto("unmatched_payment_returns")
      .values({
        id: randomUUID(),
        unmatched_payment_id: payment.id,
        amount_cents: payment.unresolved_cents,
        to_cvu: payment.sender_cvu,
        to_cuil: payment.sender_cuil,
        simulate_failure: simulateFailure,
        requested_at: context.now,
        actor_kind: context.actor.kind,
        actor_admin_user_id: context.actor.kind === "integration_api" ? null : context.actor.adminUserId,
        idempotency_owner: owner,
        idempotency_key: request.idempotencyKey,
        request_fingerprint: fingerprint,
      })
      // The same key for another payment at the same instant: the unique key waits for it, then refuses.
      .onConflict((conflict) => conflict.columns(["idempotency_owner", "idempotency_key"]).doNothing())
      .returningAll()
      .executeTakeFirst();
    if (!inserted) return replayed((await returnUnderKey(trx, owner, request.idempotencyKey))!, fingerprint);
    await trx
      .updateTable("unmatched_payments")
      .set({ unresolved_cents: 0, state: "return_requested", resolved_at: context.now })
      .where("id", "=", payment.id)
      .execute();
    await addJob(trx, RETURN_UNMATCHED_PAYMENT_TASK, { returnId: inserted.id }, { jobKey: returnUnmatchedPaymentJobKey(inserted.id) });
    return inserted;
  });
  // Read after the commit, as any reader sees it (a replay answers the return as it stands now).
  const unmatchedPayment = await getUnmatchedPayment(db, scope, paymentReturn.unmatched_payment_id);
  // Returns are never deleted: the payment read after the commit has this one.
  const current = unmatchedPayment.returns.find((item) => item.returnId === paymentReturn.id)!;
  return { paymentReturn: current, unmatchedPayment };
}

async function returnUnderKey(trx: Transaction<Database>, owner: string, key: string): Promise<UnmatchedPaymentReturn | undefined> {
  return trx.selectFrom("unmatched_payment_returns").selectAll().where("idempotency_owner", "=", owner).where("idempotency_key", "=", key).executeTakeFirst();
}

/** The unmatched payment, locked, with its transfer's sender; 404 when the scope does not see it. */
async function lockPayment(trx: Transaction<Database>, scope: UnmatchedPaymentScope, unmatchedPaymentId: string) {
  const payment = await lockedUnmatchedPayment(trx, scope, unmatchedPaymentId)
    .select(["u.id", "u.state", "u.unresolved_cents", "u.integration_client_id", "t.sender_cvu", "t.sender_cuil"])
    .executeTakeFirst();
  if (!payment) throw new DomainError("UnmatchedPaymentNotFoundError", "No unmatched payment with this unmatchedPaymentId");
  return payment;
}

/** The contract's answer to a return request. */
export function returnResultView(result: ReturnResult): components["schemas"]["UnmatchedPaymentReturnResult"] {
  return { ...result.paymentReturn, unmatchedPayment: result.unmatchedPayment };
}

export interface SettleDependencies {
  db: Kysely<Database>;
  clock: Clock;
  bank: BankTransfers;
  livemode: boolean;
}

export type SettleOutcome =
  /** Nothing to do: no such return, or it already ended. */
  | { kind: "settled" }
  | { kind: "returned"; eventId?: string }
  | { kind: "failed"; reason: string; eventId?: string }
  /** The bank took it and has not finished: checked again at `checkAt`. */
  | { kind: "pending"; checkAt: Date }
  /** The bank could not be reached: the job is retried with backoff. */
  | { kind: "retry"; reason: string };

/** One step of a return: ask the bank (or ask how the transfer it took stands), and record its answer. */
export async function settleReturn(deps: SettleDependencies, returnId: string): Promise<SettleOutcome> {
  const found = await deps.db
    .selectFrom("unmatched_payment_returns as r")
    .innerJoin("unmatched_payments as u", "u.id", "r.unmatched_payment_id")
    .innerJoin("transfers as t", "t.id", "u.transfer_id")
    .select(["r.id", "r.state", "r.amount_cents", "r.to_cvu", "r.to_cuil", "r.simulate_failure", "r.bank_transfer_id", "t.transaction_id"])
    .where("r.id", "=", returnId)
    .executeTakeFirst();
  if (found?.state !== "requested") return { kind: "settled" };
  const transfer: ReturnTransfer = {
    returnId: found.id,
    amountCents: Number(found.amount_cents),
    originalTransactionId: found.transaction_id,
    toCvu: found.to_cvu,
    toCuil: found.to_cuil,
    simulateFailure: found.simulate_failure,
  };
  const answer = await askBank(deps.bank, transfer, found.bank_transfer_id);
  return recordAnswer(deps, returnId, answer);
}

async function askBank(bank: BankTransfers, transfer: ReturnTransfer, bankTransferId: string | null): Promise<BankTransferResult> {
  try {
    return bankTransferId === null ? await bank.send(transfer) : await bank.check({ ...transfer, bankTransferId });
  } catch (error) {
    // A bank adapter answers outcomes; should one throw all the same, it is a failure to reach it, tried again.
    return { outcome: "temporary_failure", reason: `the bank could not be asked (${error instanceof Error ? error.name : "error"})` };
  }
}

async function recordAnswer(deps: SettleDependencies, returnId: string, answer: BankTransferResult): Promise<SettleOutcome> {
  return deps.db.transaction().execute(async (trx): Promise<SettleOutcome> => {
    const row = await trx
      .selectFrom("unmatched_payment_returns as r")
      .innerJoin("unmatched_payments as u", "u.id", "r.unmatched_payment_id")
      .innerJoin("transfers as t", "t.id", "u.transfer_id")
      .leftJoin("charges as c", "c.id", "u.charge_id")
      .leftJoin("integration_clients as i", "i.id", "u.integration_client_id")
      .select([
        "r.id",
        "r.state",
        "r.amount_cents",
        "r.to_cvu",
        "r.to_cuil",
        "u.id as unmatched_payment_id",
        "u.reason",
        "u.integration_client_id",
        "u.merchant_account_id",
        "u.charge_id",
        "t.transaction_id",
        "t.receiving_cvu",
        "c.reference_id",
        "i.clock_offset_ms",
      ])
      .where("r.id", "=", returnId)
      .forUpdate("r")
      .executeTakeFirst();
    if (row?.state !== "requested") return { kind: "settled" };
    // Each answer is one write of the return, which counts the bank's being asked.
    const attempts = sql<number>`attempts + 1`;
    if (answer.outcome === "temporary_failure") {
      await trx.updateTable("unmatched_payment_returns").set({ attempts }).where("id", "=", returnId).execute();
      return { kind: "retry", reason: answer.reason };
    }
    if (answer.outcome === "pending") {
      const checkAt = new Date(deps.clock.now().getTime() + answer.checkAfterMs);
      await trx.updateTable("unmatched_payment_returns").set({ attempts, bank_transfer_id: answer.bankTransferId }).where("id", "=", returnId).execute();
      await addJob(trx, RETURN_UNMATCHED_PAYMENT_TASK, { returnId }, { jobKey: returnUnmatchedPaymentJobKey(returnId), runAt: checkAt });
      return { kind: "pending", checkAt };
    }
    // The outcome's time is the integration's (its Sandbox clock), as every time of its money.
    const at = integrationNow(deps.clock, Number(row.clock_offset_ms ?? 0));
    const returned = answer.outcome === "completed";
    const amountCents = Number(row.amount_cents);
    const event = eventOf(row, answer, at, deps.livemode);
    await sql`
      with return_done as (
        update unmatched_payment_returns
           set attempts = ${attempts}, state = ${returned ? "returned" : "failed"}, completed_at = ${at}::timestamptz, failure_reason = ${returned ? null : answer.reason},
               bank_transfer_id = coalesce(${answer.bankTransferId ?? null}, bank_transfer_id)
         where id = ${returnId}
      ), payment_after as (
        update unmatched_payments
           set state = ${returned ? "returned" : "return_failed"},
               unresolved_cents = unresolved_cents + ${returned ? 0 : amountCents},
               resolved_at = case when ${returned} then resolved_at end
         where id = ${row.unmatched_payment_id}
      ), ${eventsCtes(event ? [event] : [])}
      select (select count(*) from events_jobs) as events`.execute(trx);
    return returned
      ? { kind: "returned", ...(event ? { eventId: event.id } : {}) }
      : { kind: "failed", reason: answer.reason, ...(event ? { eventId: event.id } : {}) };
  });
}

type RecordedRow = {
  id: string;
  amount_cents: number;
  to_cvu: string | null;
  to_cuil: string | null;
  unmatched_payment_id: string;
  reason: string;
  integration_client_id: string | null;
  merchant_account_id: string | null;
  charge_id: string | null;
  transaction_id: string;
  receiving_cvu: string;
  reference_id: string | null;
};

/** `payment.returned` or `payment.return_failed`, told to the integration the money belongs to; none for the platform's. */
function eventOf(
  row: RecordedRow,
  answer: Extract<BankTransferResult, { outcome: "completed" | "rejected" }>,
  at: Date,
  livemode: boolean,
): (NewEvent & { id: string }) | undefined {
  if (row.integration_client_id === null) return undefined;
  const returned = answer.outcome === "completed";
  const common = {
    livemode,
    unmatchedPaymentId: row.unmatched_payment_id,
    returnId: row.id,
    transactionId: row.transaction_id,
    cvu: row.receiving_cvu,
    amount: fromCents(Number(row.amount_cents)),
    ...(row.to_cvu ? { toCvu: row.to_cvu } : {}),
    ...(row.to_cuil ? { toCuil: row.to_cuil } : {}),
    reason: row.reason,
    ...(row.reference_id ? { referenceId: row.reference_id } : {}),
  };
  return {
    id: randomUUID(),
    type: returned ? "payment.returned" : "payment.return_failed",
    integrationClientId: row.integration_client_id,
    merchantAccountId: row.merchant_account_id,
    chargeId: row.charge_id,
    createdAt: at,
    payload: returned
      ? { event: "payment.returned", ...common, returnedAt: at.toISOString() }
      : { event: "payment.return_failed", ...common, failureReason: answer.reason, failedAt: at.toISOString() },
  };
}
