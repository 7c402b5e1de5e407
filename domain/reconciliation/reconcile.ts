// Money in: a bank transfer is recorded once (by its transaction id) and matched to a charge — by the CVU
// that received it (cvu mode) or by the sender's CUIL among the CVU's open charges (cuil mode). Payments
// accumulate; the state change, the payment, its breakdown (domain/earnings/), its event and its payer
// notifications are one transaction.
// Concurrent transfers to one charge are serialised on the charge's row, so they sum correctly; transfers
// to different charges sharing a CVU do not wait for each other.
import { sql, type Expression, type Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import { inTransaction, type Executor } from "../../db/transactions.ts";
import type { Charge } from "../../db/tables/charges.table.ts";
import type { MerchantLink } from "../../db/tables/merchants.table.ts";
import type { UnmatchedReason } from "../../db/tables/transfers.table.ts";
import { amountOwedCents } from "../amount-owed.ts";
import { releaseCvuCtes, WHOLE_CVU } from "../cvu-pool/cvu-pool.ts";
import { fromCents } from "../money.ts";
import { payerKeyOf } from "../tax-id.ts";
import { eventCtes, recordEvent, type NewEvent } from "../events/outbox.ts";
import { paymentBreakdownRow, termsOfLink, type CommissionTerms } from "../earnings/payment-breakdown.ts";
import { confirmPaymentByChat, withdrawingChargeNotifications } from "../notifications/charge-notifications.ts";

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
}

export interface ReconciliationOutcome {
  transferId: string;
  /** The transaction id was already recorded: nothing new happened. */
  duplicate: boolean;
  charge?: Charge;
  unmatchedReason?: UnmatchedReason;
  /** The event written, if any (an unmatched transfer to a CVU nobody ever used has no integration to tell). */
  event?: { id: string; type: string; integrationClientId: string };
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
 * Why a transfer to a known CVU matched no open charge, from what the CVU held last (for this payer, in
 * cuil mode): `stillHeld` whether the CVU still holds any charge, `lastForPayer` the newest cuil-mode
 * charge of the CVU for the sender, `last` that or else the CVU's last charge.
 */
export function unmatchedReasonOf(found: { stillHeld: boolean; lastForPayer: ChargeRef | undefined; last: ChargeRef | undefined }): UnmatchedReason {
  const { stillHeld, lastForPayer, last } = found;
  if (stillHeld) return "no_cuil_match"; // a shared CVU with open charges, none for this sender
  if (!last) return "no_pending";
  if (last.conciliation_type === "cuil" && !lastForPayer) return "no_cuil_match";
  return CLOSED_REASON[last.state] ?? "ambiguous";
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

export async function receiveTransfer(
  db: Executor,
  transfer: IncomingTransfer,
  options: { receivedAt: Date; livemode: boolean },
): Promise<ReconciliationOutcome> {
  return inTransaction(db, async (trx) => {
    const senderKey = transfer.senderCuil ? payerKeyOf(transfer.senderCuil) : undefined;
    // The transfer, recorded once, the CVU that received it and the charge it pays, locked: one round trip.
    // The CVU's row is read, not locked: transfers to one shared CVU pay different charges and must not
    // queue on it. A duplicate locks nothing.
    const inserted = await trx
      .with("recorded", (db) =>
        db
          .insertInto("transfers")
          .values({
            transaction_id: transfer.transactionId,
            amount_cents: transfer.amountCents,
            receiving_cvu: transfer.receivingCvu,
            sender_cuil: transfer.senderCuil ?? null,
            sender_cvu: transfer.senderCvu ?? null,
            sender_name: transfer.senderName ?? null,
            operated_at: transfer.operatedAt,
            received_at: options.receivedAt,
            source: transfer.source,
            unmatched_reason: "ambiguous", // provisional: replaced below in this same transaction
          })
          .onConflict((oc) => oc.column("transaction_id").doNothing())
          .returning("id"),
      )
      .with("account", (db) => db.selectFrom("cvu_accounts").select(["id", "last_charge_id"]).where("cvu", "=", transfer.receivingCvu))
      .with("matched", () => lockMatchedCharge(trx, sql<string>`(select id from account)`, senderKey).where(sql<boolean>`exists (select from recorded)`))
      .selectFrom("recorded")
      .leftJoin("account", (join) => join.onTrue())
      .leftJoin("matched", (join) => join.onTrue())
      .selectAll("matched")
      .select(["recorded.id as transfer_id", "account.id as account_id", "account.last_charge_id as account_last_charge_id"])
      .executeTakeFirst();
    if (!inserted) {
      const existing = await trx
        .selectFrom("transfers")
        .select(["id", "charge_id", "unmatched_reason"])
        .where("transaction_id", "=", transfer.transactionId)
        .executeTakeFirstOrThrow();
      return { transferId: existing.id, duplicate: true, unmatchedReason: existing.unmatched_reason ?? undefined };
    }
    const { transfer_id: transferId, account_id: accountId, account_last_charge_id: lastChargeId, ...firstMatch } = inserted;
    if (accountId === null) return settleUnmatched(trx, transferId, transfer, "no_pending", undefined, options);
    const account = { id: accountId, last_charge_id: lastChargeId };

    // The matched charge is what gets locked. A charge found closed once its lock is granted was closed
    // (and its hold released) by a transaction that has just committed, so the match is read again.
    for (let attempt = 0; ; attempt++) {
      const matched =
        attempt === 0
          ? firstMatch.id === null
            ? undefined
            : (firstMatch as LockedMatch)
          : await lockMatchedCharge(trx, account.id, senderKey).executeTakeFirst();
      if (!matched) break;
      const { commission_percentage, commission_fixed_cents, service_commission_percentage, ...charge } = matched;
      if (charge.state === "pending" || charge.state === "partial_payment") {
        return applyPayment(
          trx,
          transferId,
          transfer,
          charge,
          termsOfLink({ commission_percentage, commission_fixed_cents, service_commission_percentage }),
          options,
        );
      }
      // A closed charge that still holds its CVU breaks the pool's rule: refuse to guess.
      if (attempt === 2) return settleUnmatched(trx, transferId, transfer, "ambiguous", charge, options);
    }

    // Nothing open matches: the reason comes from what the CVU held last (for this payer, in cuil mode).
    const lastForPayer = senderKey ? await lastChargeForPayer(trx, account.id, senderKey) : undefined;
    const last =
      lastForPayer ??
      (account.last_charge_id ? await trx.selectFrom("charges").selectAll().where("id", "=", account.last_charge_id).executeTakeFirst() : undefined);
    const stillHeld = await trx.selectFrom("cvu_holds").select("charge_id").where("cvu_account_id", "=", account.id).limit(1).executeTakeFirst();
    const reason = unmatchedReasonOf({ stillHeld: stillHeld !== undefined, lastForPayer, last });
    return settleUnmatched(trx, transferId, transfer, reason, last, options);
  });
}

export type LockedMatch = Charge & Pick<MerchantLink, "commission_percentage" | "commission_fixed_cents" | "service_commission_percentage">;

/** Charges with their merchant link's commission terms (a payment's breakdown), for locking FOR UPDATE. */
export function chargesWithTerms(trx: Transaction<Database>) {
  return trx
    .selectFrom("charges as c")
    .leftJoin("merchant_links as l", (join) =>
      join.onRef("l.integration_client_id", "=", "c.integration_client_id").onRef("l.merchant_account_id", "=", "c.merchant_account_id"),
    )
    .selectAll("c")
    .select(["l.commission_percentage", "l.commission_fixed_cents", "l.service_commission_percentage"]);
}

/** The matched charge, locked, with its merchant link's commission terms (the payment's breakdown). */
function lockMatchedCharge(trx: Transaction<Database>, cvuAccountId: string | Expression<string>, senderKey: string | undefined) {
  return chargesWithTerms(trx)
    .where("c.id", "=", matchingHold(trx, cvuAccountId, senderKey))
    .forUpdate("c");
}

/**
 * The charge a transfer to this CVU pays: the CVU's own (cvu mode) or the sender's (cuil mode), by the
 * unique (CVU, payer) key. The sender's key may be an expression (a batch's column; null for none).
 */
export function matchingHold(trx: Transaction<Database>, cvuAccountId: string | Expression<string>, senderKey: string | undefined | Expression<string | null>) {
  return trx
    .selectFrom("cvu_holds")
    .select("charge_id")
    .where("cvu_account_id", "=", cvuAccountId)
    .where("payer_key", "in", senderKey === undefined ? [WHOLE_CVU] : [WHOLE_CVU, senderKey as string])
    .orderBy(sql`payer_key = ${WHOLE_CVU}`, "desc")
    .limit(1);
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

/**
 * The newest cuil-mode charge of the CVU for this payer. The documents that can carry the payer's key are
 * narrowed in SQL (the DNI itself, or a CUIL around it), then confirmed by the key itself.
 */
async function lastChargeForPayer(trx: Transaction<Database>, cvuAccountId: string, senderKey: string): Promise<Charge | undefined> {
  const { dni, dniTrimmed, document } = payerDocumentsOf(senderKey);
  const rows = await trx
    .selectFrom("charges")
    .selectAll()
    .where("cvu_account_id", "=", cvuAccountId)
    .where("conciliation_type", "=", "cuil")
    .where((eb) =>
      dni !== null && dniTrimmed !== null
        ? eb.or([eb("customer_tax_document", "in", [dni, dniTrimmed]), eb(sql<string>`substr(customer_tax_document, 3, 8)`, "=", dni)])
        : eb("customer_tax_document", "=", document ?? ""),
    )
    .orderBy("created_at", "desc")
    .execute();
  return newestOfPayer(rows, senderKey);
}

async function applyPayment(
  trx: Transaction<Database>,
  transferId: string,
  transfer: IncomingTransfer,
  charge: Charge,
  terms: CommissionTerms,
  options: { receivedAt: Date; livemode: boolean },
): Promise<ReconciliationOutcome> {
  const { owed, total, updated: after } = paymentTo(charge, transfer, options.receivedAt);
  const paid = after.paid_cents;
  const event = paymentReceivedEvent(after, transfer, owed, options);
  // One statement: the charge, the transfer's match, the payment's breakdown, the event and its delivery
  // job; paid in full, also the CVU given back and the reminders withdrawn (after a partial payment they
  // stay, and show the balance).
  const update = trx
    .updateTable("charges")
    .set({
      paid_cents: paid,
      state: total ? "total_payment" : "partial_payment",
      updated_at: options.receivedAt,
      ...(total ? { closed_at: options.receivedAt } : {}),
    })
    .where("id", "=", charge.id)
    .returningAll();
  const { rows } = await sql<Charge & { event_id: string }>`
    with transfer_matched as (${trx.updateTable("transfers").set({ charge_id: charge.id, unmatched_reason: null }).where("id", "=", transferId)}),
    breakdown as (${trx.insertInto("payment_breakdowns").values(paymentBreakdownRow({ transferId, grossCents: transfer.amountCents, receivedAt: options.receivedAt }, charge, terms))}),
    ${total ? sql`${releaseCvuCtes(charge.id)}, notifications_withdrawn as (${withdrawingChargeNotifications(trx, charge.id)}),` : sql``}
    ${eventCtes(event)},
    updated as (${update})
    select updated.*, event_job.id as event_id, event_job.job as event_job from updated, event_job`.execute(trx);
  const { event_id: eventId, event_job: _job, ...updated } = rows[0]! as Charge & { event_id: string; event_job: unknown };
  await confirmPaymentByChat(trx, { charge: updated, transferId, full: total, at: options.receivedAt });
  return { transferId, duplicate: false, charge: updated, event: { id: eventId, type: event.type, integrationClientId: event.integrationClientId } };
}

async function settleUnmatched(
  trx: Transaction<Database>,
  transferId: string,
  transfer: IncomingTransfer,
  reason: UnmatchedReason,
  last: Charge | undefined,
  options: { receivedAt: Date; livemode: boolean },
): Promise<ReconciliationOutcome> {
  await trx.updateTable("transfers").set({ unmatched_reason: reason }).where("id", "=", transferId).execute();
  const event = unmatchedEvent(transfer, reason, last, options);
  if (!event) return { transferId, duplicate: false, unmatchedReason: reason };
  return { transferId, duplicate: false, unmatchedReason: reason, event: await recordEvent(trx, event) };
}
