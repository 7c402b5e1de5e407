// Money in: a bank transfer is recorded once (by its transaction id) and matched to a charge — by the CVU
// that received it (cvu mode) or by the sender's CUIL among the CVU's open charges (cuil mode). Payments
// accumulate; the state change, the payment, its breakdown (domain/earnings/), its event and its payer
// notifications are one transaction.
// Concurrent transfers to one CVU are serialised on the CVU's row, so they sum correctly.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import { inTransaction } from "../../db/transactions.ts";
import type { Charge } from "../../db/tables/charges.table.ts";
import type { UnmatchedReason } from "../../db/tables/payments.table.ts";
import { amountOwedCents } from "../charges/amount-owed.ts";
import { releaseCvu } from "../cvu-pool/cvu-pool.ts";
import { fromCents } from "../money.ts";
import { payerKeyOf } from "../tax-id.ts";
import { recordEvent } from "../events/outbox.ts";
import { paymentBreakdownRow, termsOfLink, type CommissionTerms } from "../earnings/payment-breakdown.ts";
import { confirmPaymentByChat, withdrawChargeNotifications } from "../notifications/charge-notifications.ts";

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

export async function receiveTransfer(db: Kysely<Database> | Transaction<Database>, transfer: IncomingTransfer, options: { receivedAt: Date; livemode: boolean }): Promise<ReconciliationOutcome> {
  return inTransaction(db, async (trx) => {
    const inserted = await trx
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
      .returning("id")
      .executeTakeFirst();
    if (!inserted) {
      const existing = await trx.selectFrom("transfers").select(["id", "charge_id", "unmatched_reason"]).where("transaction_id", "=", transfer.transactionId).executeTakeFirstOrThrow();
      return { transferId: existing.id, duplicate: true, unmatchedReason: existing.unmatched_reason ?? undefined };
    }

    const account = await trx.selectFrom("cvu_accounts").selectAll().where("cvu", "=", transfer.receivingCvu).forUpdate().executeTakeFirst();
    if (!account) return settleUnmatched(trx, inserted.id, transfer, "no_pending", undefined, options);

    const holds = await trx.selectFrom("cvu_holds").select(["charge_id", "payer_key"]).where("cvu_account_id", "=", account.id).execute();
    const senderKey = transfer.senderCuil ? payerKeyOf(transfer.senderCuil) : undefined;
    const exclusive = holds.find((hold) => hold.payer_key === "*");
    const matchedHold = exclusive ?? (senderKey ? holds.find((hold) => hold.payer_key === senderKey) : undefined);

    if (matchedHold) {
      // The charge, locked, with its merchant link's commission terms (the payment's breakdown).
      const { commission_percentage, commission_fixed_cents, service_commission_percentage, ...charge } = await trx
        .selectFrom("charges as c")
        .leftJoin("merchant_links as l", (join) => join.onRef("l.integration_client_id", "=", "c.integration_client_id").onRef("l.merchant_account_id", "=", "c.merchant_account_id"))
        .selectAll("c")
        .select(["l.commission_percentage", "l.commission_fixed_cents", "l.service_commission_percentage"])
        .where("c.id", "=", matchedHold.charge_id)
        .forUpdate("c")
        .executeTakeFirstOrThrow();
      if (charge.state !== "pending" && charge.state !== "partial_payment") return settleUnmatched(trx, inserted.id, transfer, "ambiguous", charge, options);
      return applyPayment(trx, inserted.id, transfer, charge, termsOfLink({ commission_percentage, commission_fixed_cents, service_commission_percentage }), options);
    }

    // Nothing open matches: the reason comes from what the CVU held last (for this payer, in cuil mode).
    const lastForPayer = senderKey
      ? await trx
          .selectFrom("charges")
          .selectAll()
          .where("cvu_account_id", "=", account.id)
          .where("conciliation_type", "=", "cuil")
          .where("customer_tax_document", "is not", null)
          .orderBy("created_at", "desc")
          .execute()
          .then((rows) => rows.find((row) => payerKeyOf(row.customer_tax_document!) === senderKey))
      : undefined;
    const last = lastForPayer ?? (account.last_charge_id ? await trx.selectFrom("charges").selectAll().where("id", "=", account.last_charge_id).executeTakeFirst() : undefined);
    let reason: UnmatchedReason;
    if (holds.length > 0) reason = "no_cuil_match"; // a shared CVU with open charges, none for this sender
    else if (!last) reason = "no_pending";
    else if (last.conciliation_type === "cuil" && !lastForPayer) reason = "no_cuil_match";
    else reason = CLOSED_REASON[last.state] ?? "ambiguous";
    return settleUnmatched(trx, inserted.id, transfer, reason, last, options);
  });
}

async function applyPayment(
  trx: Transaction<Database>,
  transferId: string,
  transfer: IncomingTransfer,
  charge: Charge,
  terms: CommissionTerms,
  options: { receivedAt: Date; livemode: boolean },
): Promise<ReconciliationOutcome> {
  // An open charge always has an amount (a draft holds no CVU, so no transfer reaches it).
  const owed = amountOwedCents(charge, transfer.operatedAt) ?? 0;
  const paid = charge.paid_cents + transfer.amountCents;
  const total = paid >= owed;
  if (total) {
    await releaseCvu(trx, charge.id);
    // Paid: no more reminders. After a partial payment they stay, and show the balance.
    await withdrawChargeNotifications(trx, charge.id);
  }
  // The charge, the transfer's match and the payment's breakdown in one statement.
  const updated = await trx
    .with("matched", (db) => db.updateTable("transfers").set({ charge_id: charge.id, unmatched_reason: null }).where("id", "=", transferId))
    .with("breakdown", (db) => db.insertInto("payment_breakdowns").values(paymentBreakdownRow({ transferId, grossCents: transfer.amountCents, receivedAt: options.receivedAt }, charge, terms)))
    .updateTable("charges")
    .set({ paid_cents: paid, state: total ? "total_payment" : "partial_payment", updated_at: options.receivedAt, ...(total ? { closed_at: options.receivedAt } : {}) })
    .where("id", "=", charge.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  await confirmPaymentByChat(trx, { charge: updated, transferId, full: total, at: options.receivedAt });
  const event = await recordEvent(trx, {
    type: "payment_request.payment_received",
    integrationClientId: charge.integration_client_id,
    merchantAccountId: charge.merchant_account_id,
    chargeId: charge.id,
    createdAt: options.receivedAt,
    payload: {
      event: "payment_request.payment_received",
      stateType: total ? "total_payment" : "partial_payment",
      livemode: options.livemode,
      referenceId: charge.reference_id,
      paymentRequestId: charge.id,
      requestedAmount: fromCents(owed),
      paidAmount: fromCents(paid),
      thisPaymentAmount: fromCents(transfer.amountCents),
      remainingAmount: fromCents(Math.max(owed - paid, 0)),
      reconciledPayerCuil: transfer.senderCuil ? Number(transfer.senderCuil) : 0,
      ...(charge.metadata ? { metadata: charge.metadata } : {}),
      paidAt: transfer.operatedAt.toISOString(),
    },
  });
  return { transferId, duplicate: false, charge: updated, event };
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
  if (!last) return { transferId, duplicate: false, unmatchedReason: reason };
  const mentionsCharge = reason === "expired" || reason === "already_paid" || reason === "canceled";
  const event = await recordEvent(trx, {
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
  });
  return { transferId, duplicate: false, unmatchedReason: reason, event };
}
