// Unmatched money assigned by hand to a charge (an integration admin's "imputación manual", or the
// integration's backend through the Integration API): the money is a payment of the charge as if it had
// arrived at the transfer's time, by the rules every payment follows (transfer-rules.ts: what is owed at that
// instant, the surcharge included once the first due date had passed; its `payment_request.payment_received`
// event; its breakdown), in one transaction with the unmatched payment's change.
//
// What a charge can take:
// - `pending`, `partial_payment`: as any transfer would pay it (paid in full, it gives its CVU back and its
//   reminders are withdrawn);
// - `overdue`, `partial_overdue` (a late payer's money, the `expired` case): paid in full it becomes
//   `total_payment`; short of that it stays closed, `partial_overdue`, with what was paid: an assignment never
//   reopens a charge (its CVU went back to the pool when it closed);
// - `canceled`, `total_payment`, a draft, or a charge that owed nothing more at the transfer's time: refused.
// Only what the charge owed is applied; the rest stays unmatched money, `unresolved`, to assign or return.
// A failed return's money (`return_failed`) is unresolved again and can be assigned too.
// Two assignments of one payment at once: the payment's row is locked first, so the second sees the first's
// result (assigned, or what is left of it).
import { randomUUID } from "node:crypto";
import { sql, type Kysely, type Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Charge } from "../../db/tables/charges.table.ts";
import type { components } from "../../generated/types/admin.ts";
import { amountOwedCents } from "../amount-owed.ts";
import { PAST_DUE_STATES, WAITING_FOR_MONEY_STATES } from "../charges/charge-states.ts";
import { releaseCvusCtes } from "../cvu-pool/cvu-pool.ts";
import { insertBreakdownsCte, paymentBreakdownRow, termsOfLink } from "../earnings/payment-breakdown.ts";
import { DomainError, ValidationError } from "../errors.ts";
import { eventsCtes } from "../events/outbox.ts";
import { fromCents } from "../money.ts";
import { withdrawingChargeNotifications } from "../notifications/charge-notifications.ts";
import { chargesWithTerms, paymentReceivedEvent, paymentTo, type IncomingTransfer, type LockedMatch } from "./transfer-rules.ts";
import { getUnmatchedPayment, lockedUnmatchedPayment, type UnmatchedPaymentView } from "./unmatched-payments.ts";

/** The charge to assign to: by its id, or by its `referenceId` among the unmatched payment's merchant account's charges. */
export type AssignmentTarget = { paymentRequestId?: string; referenceId?: string };

export type AssignmentActor = { kind: "integration_admin"; adminUserId: string } | { kind: "integration_api" };

/** Who assigns: an integration's admins (any of its merchant accounts) or the Integration API (the token's merchant account). */
export type AssignmentScope =
  | { kind: "integration"; integrationClientId: string }
  | { kind: "merchant"; integrationClientId: string; merchantAccountId: string };

export interface AssignmentResult {
  assignedCents: number;
  charge: Charge;
  eventId: string;
  unmatchedPayment: UnmatchedPaymentView;
}

export async function assignUnmatchedPayment(
  db: Kysely<Database>,
  scope: AssignmentScope,
  unmatchedPaymentId: string,
  target: AssignmentTarget,
  context: { now: Date; livemode: boolean; actor: AssignmentActor },
): Promise<AssignmentResult> {
  if ((target.paymentRequestId === undefined) === (target.referenceId === undefined)) {
    throw ValidationError.of("paymentRequestId", "exactlyOneOf", "name the charge by exactly one of paymentRequestId and referenceId", {
      fields: ["referenceId"],
    });
  }
  const assigned = await db.transaction().execute(async (trx) => {
    const payment = await lockPayment(trx, scope, unmatchedPaymentId);
    // A failed return's money is unresolved again: it can be assigned as well as returned again.
    if ((payment.state !== "unresolved" && payment.state !== "return_failed") || payment.unresolved_cents <= 0) {
      throw new DomainError("UnmatchedPaymentNotUnresolvedError", `This unmatched payment is ${payment.state}: only unresolved money can be assigned`);
    }
    const charge = await lockCharge(trx, scope, payment, target);
    const transfer: IncomingTransfer = {
      transactionId: payment.transaction_id,
      amountCents: payment.unresolved_cents,
      receivingCvu: payment.receiving_cvu,
      ...(payment.sender_cuil ? { senderCuil: payment.sender_cuil } : {}),
      ...(payment.sender_name ? { senderName: payment.sender_name } : {}),
      operatedAt: payment.operated_at,
      source: payment.source,
    };
    // A draft owes nothing yet (no amount).
    const owedThen = amountOwedCents(charge, transfer.operatedAt);
    const due = owedThen === undefined ? 0 : owedThen - charge.paid_cents;
    if (!WAITING_FOR_MONEY_STATES.has(charge.state) || due <= 0) {
      throw new DomainError("AssignmentPaymentRequestNotPayableError", `The charge is ${charge.state} and cannot take this payment`);
    }
    const applied = Math.min(due, payment.unresolved_cents);
    const { owed, total, updated } = paymentTo(charge, { ...transfer, amountCents: applied }, context.now);
    // A closed charge stays closed short of being paid in full, and keeps the instant it closed.
    const after: LockedMatch = PAST_DUE_STATES.has(charge.state)
      ? { ...updated, state: total ? "total_payment" : "partial_overdue", closed_at: charge.closed_at ?? context.now }
      : updated;
    const { commission_percentage: _p, commission_fixed_cents: _f, service_commission_percentage: _s, ...chargeAfter } = after;
    const event = {
      ...paymentReceivedEvent(chargeAfter, { ...transfer, amountCents: applied }, owed, { receivedAt: context.now, livemode: context.livemode }),
      id: randomUUID(),
    };
    const breakdown = paymentBreakdownRow({ transferId: payment.transfer_id, grossCents: applied, receivedAt: context.now }, charge, termsOfLink(charge));
    const left = payment.unresolved_cents - applied;
    const paidInFull = total ? [charge.id] : [];
    await sql`
      with charge_paid as (
        update charges set paid_cents = ${after.paid_cents}, state = ${after.state}, updated_at = ${context.now}::timestamptz, closed_at = ${after.closed_at}::timestamptz
         where id = ${charge.id}
      ), assignment as (
        insert into unmatched_payment_assignments (unmatched_payment_id, charge_id, amount_cents, assigned_at, actor_kind, actor_admin_user_id)
        values (${payment.id}, ${charge.id}, ${applied}, ${context.now}::timestamptz, ${context.actor.kind},
                ${context.actor.kind === "integration_admin" ? context.actor.adminUserId : null}::uuid)
      ), payment_left as (
        update unmatched_payments set unresolved_cents = ${left}, state = ${left === 0 ? "assigned" : "unresolved"},
               resolved_at = ${left === 0 ? context.now : null}::timestamptz
         where id = ${payment.id}
      ), ${insertBreakdownsCte([breakdown])},
      ${releaseCvusCtes(paidInFull)},
      notifications_withdrawn as (${withdrawingChargeNotifications(trx, paidInFull)}),
      ${eventsCtes([event])}
      select (select count(*) from events_jobs) as events`.execute(trx);
    return { assignedCents: applied, charge: chargeAfter, eventId: event.id };
  });
  // Read after the commit, as any reader sees it.
  const unmatchedPayment = await getUnmatchedPayment(db, scope, unmatchedPaymentId);
  return { ...assigned, unmatchedPayment };
}

/** The unmatched payment, locked, with its transfer; 404 when the scope does not see it. */
async function lockPayment(trx: Transaction<Database>, scope: AssignmentScope, unmatchedPaymentId: string) {
  const payment = await lockedUnmatchedPayment(trx, scope, unmatchedPaymentId)
    .select([
      "u.id",
      "u.transfer_id",
      "u.state",
      "u.unresolved_cents",
      "u.integration_client_id",
      "u.merchant_account_id",
      "t.transaction_id",
      "t.receiving_cvu",
      "t.sender_cuil",
      "t.sender_name",
      "t.operated_at",
      "t.source",
    ])
    .executeTakeFirst();
  if (!payment) throw new DomainError("UnmatchedPaymentNotFoundError", "No unmatched payment with this unmatchedPaymentId");
  return payment as typeof payment & { merchant_account_id: string };
}

/** The charge named, of the payment's integration, locked with its link's terms; 404 when there is none, 409 when another merchant account's. */
async function lockCharge(
  trx: Transaction<Database>,
  scope: AssignmentScope,
  payment: { integration_client_id: string | null; merchant_account_id: string },
  target: AssignmentTarget,
): Promise<LockedMatch> {
  let query = chargesWithTerms(trx).where("c.integration_client_id", "=", payment.integration_client_id!);
  query =
    target.paymentRequestId !== undefined
      ? query.where("c.id", "=", target.paymentRequestId)
      : query.where("c.merchant_account_id", "=", payment.merchant_account_id).where("c.reference_id", "=", target.referenceId!);
  // Through the Integration API only the token's merchant account's charges exist.
  if (scope.kind === "merchant") query = query.where("c.merchant_account_id", "=", scope.merchantAccountId);
  const charge = (await query.forUpdate("c").executeTakeFirst()) as LockedMatch | undefined;
  if (!charge) throw new DomainError("AssignmentPaymentRequestNotFoundError", "No charge with this paymentRequestId or referenceId in the integration");
  if (charge.merchant_account_id !== payment.merchant_account_id) {
    throw new DomainError("AssignmentMerchantMismatchError", "The charge belongs to another merchant account than the one that received the money");
  }
  return charge;
}

/** The contract's answer to an assignment. */
export function assignmentView(result: AssignmentResult): components["schemas"]["UnmatchedPaymentAssignmentResult"] {
  return {
    assignedAmount: fromCents(result.assignedCents),
    paymentRequestId: result.charge.id,
    referenceId: result.charge.reference_id,
    paymentRequestState: result.charge.state,
    eventId: result.eventId,
    unmatchedPayment: result.unmatchedPayment,
  };
}
