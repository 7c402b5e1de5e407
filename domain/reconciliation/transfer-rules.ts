// The rules of a transfer, shared by every way one is received (reconcile.ts, reconcile-batch.ts): what a
// transfer and its answer are, how it finds its charge (the CVU's hold, or the sender's in cuil mode), what
// a payment does to a charge and the event it writes, and why a transfer that pays nothing is unmatched.
import { sql, type Expression } from "kysely";
import type { Executor } from "../../db/transactions.ts";
import type { Charge } from "../../db/tables/charges.table.ts";
import type { MerchantLink } from "../../db/tables/merchants.table.ts";
import type { UnmatchedReason } from "../../db/tables/transfers.table.ts";
import { amountOwedCents } from "../amount-owed.ts";
import { DomainError } from "../errors.ts";
import { WHOLE_CVU } from "../cvu-pool/cvu-pool.ts";
import type { NewEvent } from "../events/outbox.ts";
import { fromCents } from "../money.ts";
import { payerKeyOf } from "../tax-id.ts";

export interface IncomingTransfer {
  transactionId: string;
  amountCents: number;
  receivingCvu: string;
  senderCuil?: string;
  senderCvu?: string;
  senderName?: string;
  /** When the payer made it: decides whether the surcharge applies. */
  operatedAt: Date;
  source: "simulation" | "bank-feed";
  /**
   * A simulated transfer's integration: the transfer is received only if its CVU holds or held a charge of
   * that integration; else it is refused (CvuNotInIntegrationError) and nothing is recorded. Its transaction
   * id is the service's own, so only the same transfer repeats it (and is refused again).
   */
  fromIntegration?: string;
}

export interface ReconciliationOutcome {
  transferId: string;
  /** The transaction id was already recorded: nothing new happened. */
  duplicate: boolean;
  charge?: Charge;
  unmatchedReason?: UnmatchedReason;
  /** The event written, if any (an unmatched transfer to a CVU nobody ever used has no integration to tell). */
  event?: { id: string; type: string; integrationClientId: string };
  /** The events `fromIntegration` subscribes to, when the transfer named one. */
  fromIntegrationEvents?: string[];
}

const CLOSED_REASON: Partial<Record<Charge["state"], UnmatchedReason>> = {
  canceled: "canceled",
  overdue: "expired",
  partial_overdue: "expired",
  total_payment: "already_paid",
};

/** What an unmatched transfer's reason and event need of a charge. */
export type ChargeRef = Pick<Charge, "id" | "state" | "conciliation_type" | "reference_id" | "integration_client_id" | "merchant_account_id">;

/**
 * Why a transfer to a known CVU matched no open charge, and the charge that decides it (the one its
 * `payment.unmatched` event names, or whose integration it is told to): what the CVU held last.
 * - `last` (the CVU's last charge) in cvu mode held the CVU alone: a transfer to it then was its, whoever
 *   sent it, so it decides; a payer's older cuil-mode charges on the CVU are not what it held last.
 * - `last` in cuil mode: the CVU was last shared by several payers, each matched by CUIL, so the sender's
 *   own charge decides: `lastForPayer`, the sender's newest cuil-mode charge on the CVU since its last
 *   cvu-mode charge (one before that was not of what the CVU held last); none: `no_cuil_match`, told to
 *   the integration of the CVU's last charge.
 * `stillHeld`: the CVU still holds charges (a shared CVU, none for this sender): `no_cuil_match`.
 */
export function unmatchedReasonOf(found: { stillHeld: boolean; lastForPayer: ChargeRef | undefined; last: ChargeRef | undefined }): {
  reason: UnmatchedReason;
  charge: ChargeRef | undefined;
} {
  const { stillHeld, lastForPayer, last } = found;
  if (!last) return { reason: stillHeld ? "no_cuil_match" : "no_pending", charge: undefined };
  const charge = last.conciliation_type === "cuil" ? (lastForPayer ?? last) : last;
  if (stillHeld) return { reason: "no_cuil_match", charge }; // a shared CVU with open charges, none for this sender
  if (last.conciliation_type === "cuil" && !lastForPayer) return { reason: "no_cuil_match", charge };
  return { reason: CLOSED_REASON[charge.state] ?? "ambiguous", charge };
}

/** The payment a transfer makes to an open charge: what is owed at its instant (the surcharge), and the charge after it. */
export function paymentTo<C extends Charge>(charge: C, transfer: IncomingTransfer, receivedAt: Date): { owed: number; total: boolean; updated: C } {
  // An open charge always has an amount (a draft holds no CVU, so no transfer reaches it).
  const owed = amountOwedCents(charge, transfer.operatedAt) ?? 0;
  const paid = charge.paid_cents + transfer.amountCents;
  const total = paid >= owed;
  return {
    owed,
    total,
    updated: {
      ...charge,
      paid_cents: paid,
      state: total ? "total_payment" : "partial_payment",
      updated_at: receivedAt,
      ...(total ? { closed_at: receivedAt } : {}),
    },
  };
}

/** The `payment_request.payment_received` event of a payment: `charge` as it is after it. */
export function paymentReceivedEvent(charge: Charge, transfer: IncomingTransfer, owed: number, options: { receivedAt: Date; livemode: boolean }): NewEvent {
  return {
    type: "payment_request.payment_received",
    integrationClientId: charge.integration_client_id,
    merchantAccountId: charge.merchant_account_id,
    chargeId: charge.id,
    createdAt: options.receivedAt,
    payload: {
      event: "payment_request.payment_received",
      stateType: charge.state === "total_payment" ? "total_payment" : "partial_payment",
      livemode: options.livemode,
      referenceId: charge.reference_id,
      paymentRequestId: charge.id,
      requestedAmount: fromCents(owed),
      paidAmount: fromCents(charge.paid_cents),
      thisPaymentAmount: fromCents(transfer.amountCents),
      remainingAmount: fromCents(Math.max(owed - charge.paid_cents, 0)),
      reconciledPayerCuil: transfer.senderCuil ? Number(transfer.senderCuil) : 0,
      ...(charge.metadata ? { metadata: charge.metadata } : {}),
      paidAt: transfer.operatedAt.toISOString(),
    },
  };
}

/** The `payment.unmatched` event of a transfer, told to the integration of the charge the CVU held last; none when it never held one. */
export function unmatchedEvent(
  transfer: IncomingTransfer,
  reason: UnmatchedReason,
  last: ChargeRef | undefined,
  options: { receivedAt: Date; livemode: boolean },
): NewEvent | undefined {
  if (!last) return undefined;
  const mentionsCharge = reason === "expired" || reason === "already_paid" || reason === "canceled";
  return {
    type: "payment.unmatched",
    integrationClientId: last.integration_client_id,
    merchantAccountId: last.merchant_account_id,
    chargeId: mentionsCharge ? last.id : null,
    createdAt: options.receivedAt,
    payload: {
      event: "payment.unmatched",
      reason,
      livemode: options.livemode,
      transactionId: transfer.transactionId,
      cvu: transfer.receivingCvu,
      amount: fromCents(transfer.amountCents),
      ...(transfer.senderCuil ? { payerCuil: transfer.senderCuil } : {}),
      ...(transfer.senderName ? { payerName: transfer.senderName } : {}),
      ...(mentionsCharge ? { referenceId: last.reference_id } : {}),
      receivedAt: transfer.operatedAt.toISOString(),
    },
  };
}

export type LockedMatch = Charge & Pick<MerchantLink, "commission_percentage" | "commission_fixed_cents" | "service_commission_percentage">;

/** Charges with their merchant link's commission terms (a payment's breakdown), to lock FOR UPDATE. */
export function chargesWithTerms(db: Executor) {
  return db
    .selectFrom("charges as c")
    .leftJoin("merchant_links as l", (join) =>
      join.onRef("l.integration_client_id", "=", "c.integration_client_id").onRef("l.merchant_account_id", "=", "c.merchant_account_id"),
    )
    .selectAll("c")
    .select(["l.commission_percentage", "l.commission_fixed_cents", "l.service_commission_percentage"]);
}

/**
 * The charge a transfer to this CVU pays: the CVU's own (cvu mode) or the sender's (cuil mode), by the
 * unique (CVU, payer) key; as a subquery over a batch's columns (the sender's key null for none).
 */
export function matchingHold(db: Executor, cvuAccountId: Expression<string>, senderKey: Expression<string | null>) {
  return db
    .selectFrom("cvu_holds")
    .select("charge_id")
    .where("cvu_account_id", "=", cvuAccountId)
    .where("payer_key", "in", [WHOLE_CVU, senderKey as Expression<string>])
    .orderBy(sql`payer_key = ${WHOLE_CVU}`, "desc")
    .limit(1);
}

/**
 * The events an integration subscribes to when the CVU holds or held one of its charges (a CVU that held a
 * charge always will: charges holding a CVU are never deleted); no row otherwise. As a subquery over
 * columns, or of one CVU and integration.
 *
 * Ordered as the CVU's index is (`charges_cvu_account_newest`), so its first entry answers. Without an
 * order the planner may take the first row of a scan of the whole table as cheaper, on the estimate that
 * a CVU's charges are spread through it; a CVU given its charges after most of the table was written has
 * them at its end, and every transfer to it read the table up to them (90 ms past 84,000 charges).
 */
export function subscriptionIfCvuHeld(db: Executor, cvuAccountId: Expression<string>, integrationClientId: Expression<string | null>) {
  return db
    .selectFrom("charges as held")
    .innerJoin("integration_clients as subscriber", "subscriber.id", "held.integration_client_id")
    .select("subscriber.enabled_events")
    .where("held.cvu_account_id", "=", cvuAccountId)
    .where("held.integration_client_id", "=", integrationClientId as Expression<string>)
    .orderBy("held.created_at")
    .limit(1);
}

/** A simulated transfer refused: its CVU never held a charge of its integration. */
export function cvuNotInIntegration(): DomainError {
  return new DomainError("CvuNotInIntegrationError", "The cvu does not belong to a charge of this integration");
}

/** The documents that can carry a payer's key, to narrow by in SQL: the DNI itself (also without its leading zero) or a CUIL around it; else the whole CUIT. */
export function payerDocumentsOf(senderKey: string): { dni: string | null; dniTrimmed: string | null; document: string | null } {
  if (senderKey.startsWith("dni:")) {
    const dni = senderKey.slice("dni:".length);
    return { dni, dniTrimmed: dni.replace(/^0/, ""), document: null };
  }
  return { dni: null, dniTrimmed: null, document: senderKey.slice(senderKey.indexOf(":") + 1) };
}

/** The first of the narrowed charges (newest first) whose document is truly the payer's, by its key. */
export function newestOfPayer<C extends { customer_tax_document: string | null }>(rows: C[], senderKey: string): C | undefined {
  return rows.find((row) => row.customer_tax_document !== null && payerKeyOf(row.customer_tax_document) === senderKey);
}
