// The payer page's two use cases: read a charge as its payer sees it (by the page's token, at the
// integration's time), and the payer's request for the payment confirmation by chat (CUIL mode). The token
// is the only key: nothing here knows of a caller.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Charge } from "../../db/tables/charges.table.ts";
import type { NotificationStatus } from "../../db/tables/notifications.table.ts";
import { argentinaDate, parseDueDate, type DueDate } from "../argentina-time.ts";
import { amountOwedCents } from "../amount-owed.ts";
import { integrationNow, type Clock } from "../clock.ts";
import { isolatedForDisplay } from "../display-text.ts";
import { chatRecipient, queueNotifications, writeNotifications } from "./outbox.ts";

/** The charge's state as its payer reads it. */
export type PayerPageState = "pending" | "partial_payment" | "paid" | "overdue" | "canceled";

/** Why the payer cannot ask for the payment confirmation. */
export type ConfirmationRefusal = "cvu_mode" | "no_payment" | "no_phone";

export interface PayerPage {
  tradeName: string;
  description: string;
  state: PayerPageState;
  /** What is owed at the integration's now (the surcharge included once the first due date passed) minus what was paid; 0 once paid or canceled. */
  owedTodayCents: number;
  paidCents: number;
  /** Only while the charge takes transfers. */
  cvu: string | null;
  /** CUIL mode: a transfer is matched by its sender's CUIL, so it must come from the payer's own account. */
  cuilMode: boolean;
  /** Each due date with what is owed on it (the second one with the surcharge). */
  dueDates: Array<{ dueDate: DueDate; amountCents: number }>;
  /** In CUIL mode, once paid: whether the payer may ask for the confirmation, or why not (undefined in CVU mode). */
  confirmation: { available: true; status: NotificationStatus | undefined } | { available: false; refusal: ConfirmationRefusal };
}

/** A charge by its payer page's token, with what the page shows beside it; undefined for no charge or a draft's. */
async function chargeByToken(db: Kysely<Database>, token: string) {
  const row = await db
    .selectFrom("charges as c")
    .innerJoin("merchant_accounts as m", "m.id", "c.merchant_account_id")
    .innerJoin("integration_clients as i", "i.id", "c.integration_client_id")
    .leftJoin("cvu_accounts as a", "a.id", "c.cvu_account_id")
    .selectAll("c")
    .select(["m.fantasy_name", "i.clock_offset_ms", "a.cvu"])
    .where("c.payer_page_token", "=", token)
    .where("c.state", "!=", "draft") // a draft is never shown to its payer
    .executeTakeFirst();
  if (!row) return undefined;
  const { fantasy_name, clock_offset_ms, cvu, ...charge } = row;
  return { charge: charge as Charge, tradeName: fantasy_name, clockOffsetMs: Number(clock_offset_ms), cvu };
}

/** The state a payer reads at `now`: an open charge whose last due date has passed is past due, even before the time sweep closes it. */
function stateAt(charge: Charge, now: Date): PayerPageState {
  switch (charge.state) {
    case "total_payment":
      return "paid";
    case "canceled":
      return "canceled";
    case "overdue":
    case "partial_overdue":
      return "overdue";
    default:
      if (charge.final_due_at.getTime() <= now.getTime()) return "overdue";
      return charge.paid_cents > 0 ? "partial_payment" : "pending";
  }
}

function confirmationRefusal(charge: Charge): ConfirmationRefusal | undefined {
  if (charge.conciliation_type !== "cuil") return "cvu_mode";
  if (charge.paid_cents === 0) return "no_payment";
  if (charge.customer_phone === null) return "no_phone";
  return undefined;
}

/** The charge's latest transfer, and the chat confirmation of it if one exists. */
async function latestTransfer(
  db: Kysely<Database>,
  chargeId: string,
): Promise<{ id: string; confirmation: { id: string; status: NotificationStatus } | undefined } | undefined> {
  const row = await db
    .selectFrom("transfers as t")
    .leftJoin("notifications as n", (join) => join.onRef("n.transfer_id", "=", "t.id").on("n.channel", "=", "whatsapp"))
    .select(["t.id", "n.id as notificationId", "n.status"])
    .where("t.charge_id", "=", chargeId)
    .orderBy("t.received_at", "desc")
    .orderBy("t.operated_at", "desc")
    // Two transfers of the same instant: the one still without a confirmation is the one to offer.
    .orderBy((eb) => eb("n.id", "is", null), "desc")
    .limit(1)
    .executeTakeFirst();
  if (!row) return undefined;
  return { id: row.id, confirmation: row.notificationId && row.status ? { id: row.notificationId, status: row.status } : undefined };
}

export async function readPayerPage(db: Kysely<Database>, clock: Clock, token: string): Promise<PayerPage | undefined> {
  const found = await chargeByToken(db, token);
  if (!found) return undefined;
  const { charge } = found;
  const now = integrationNow(clock, found.clockOffsetMs);
  const state = stateAt(charge, now);
  const owedCents = amountOwedCents(charge, now) ?? 0;
  const refusal = confirmationRefusal(charge);
  return {
    tradeName: isolatedForDisplay(found.tradeName),
    description: isolatedForDisplay(charge.description),
    state,
    owedTodayCents: state === "paid" || state === "canceled" ? 0 : Math.max(owedCents - charge.paid_cents, 0),
    paidCents: charge.paid_cents,
    cvu: state === "pending" || state === "partial_payment" ? found.cvu : null,
    cuilMode: charge.conciliation_type === "cuil",
    dueDates: charge.due_dates.map((input, index) => ({
      dueDate: parseDueDate(input)!, // stored only after validation
      amountCents: index === 0 ? charge.amount_cents! : amountOwedCents(charge, charge.first_due_at)!,
    })),
    confirmation: refusal ? { available: false, refusal } : { available: true, status: (await latestTransfer(db, charge.id))?.confirmation?.status },
  };
}

export type ConfirmationRequest = { outcome: "requested" } | { outcome: "refused"; refusal: ConfirmationRefusal } | { outcome: "not_found" };

/**
 * The payer asks for the payment confirmation of the charge's latest transfer by chat: written and queued
 * in one transaction, whatever `sendWhatsappPaymentConfirmation` says (in CUIL mode the payer may always
 * ask). One confirmation per transfer: asking again, or after the payment already sent one, adds nothing.
 */
export async function requestPaymentConfirmation(db: Kysely<Database>, clock: Clock, token: string): Promise<ConfirmationRequest> {
  const found = await chargeByToken(db, token);
  if (!found) return { outcome: "not_found" };
  const { charge } = found;
  const refusal = confirmationRefusal(charge);
  if (refusal) return { outcome: "refused", refusal };
  const transfer = await latestTransfer(db, charge.id);
  if (!transfer) return { outcome: "refused", refusal: "no_payment" };
  const now = integrationNow(clock, found.clockOffsetMs);
  await db.transaction().execute(async (trx) => {
    const written = await writeNotifications(trx, [
      {
        chargeId: charge.id,
        integrationClientId: charge.integration_client_id,
        channel: "whatsapp",
        kind: "payment_confirmation",
        day: argentinaDate(now),
        recipient: chatRecipient(charge.customer_phone!),
        scheduledFor: now,
        transferId: transfer.id,
      },
    ]);
    // A confirmation the payment wrote but that is still waiting goes out now too; one already queued,
    // sent or failed is left as it is. The job runs on the service's clock, not the Sandbox's.
    const toQueue = written.length > 0 ? written : transfer.confirmation ? [transfer.confirmation.id] : [];
    await queueNotifications(trx, toQueue, now, clock.now());
  });
  return { outcome: "requested" };
}
