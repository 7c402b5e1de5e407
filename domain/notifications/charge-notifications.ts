// A charge's payer notifications as its changes write them, each in the transaction of the change: the
// schedule when the charge is created (its initial message queued at once), withdrawal when it is paid in
// full or canceled, the payment confirmation when money comes in, and the recipients when the payer
// changes. The time sweep withdraws, set-based, for the charges it closes (domain/charges/time-transitions.ts).
import { sql, type Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Executor } from "../../db/transactions.ts";
import type { Charge } from "../../db/tables/charges.table.ts";
import { NOTIFICATION_CHANNELS } from "../../db/tables/notifications.table.ts";
import { argentinaDate } from "../argentina-time.ts";
import { chatRecipient, queueNotifications, queuedNotificationsCtes, writeNotifications, type NewNotification } from "./outbox.ts";
import { confirmsPayment, recipientsOf, scheduledMessages } from "./schedule.ts";

/** Statuses of a message that has not gone out yet: withdrawing or readdressing it still counts. */
const UNSENT = ["scheduled", "queued"] as const;

/**
 * Writes the schedule of new charges (a draft has none) and queues at once what is due by `now` (the
 * initial message, when not deferred). `now` is the integration's time.
 */
export async function scheduleChargeNotifications(trx: Transaction<Database>, charges: Charge[], now: Date): Promise<void> {
  const messages: NewNotification[] = charges
    .filter((charge) => charge.state !== "draft")
    .flatMap((charge) =>
      scheduledMessages(charge).map(({ kind, channel, recipient, day, scheduledFor }) => ({
        chargeId: charge.id,
        integrationClientId: charge.integration_client_id,
        channel,
        kind,
        day,
        recipient,
        scheduledFor,
      })),
    );
  const dueNow = messages.filter((message) => message.scheduledFor.getTime() <= now.getTime());
  await writeNotifications(
    trx,
    messages.filter((message) => !dueNow.includes(message)),
  );
  await queueNotifications(trx, await writeNotifications(trx, dueNow), now);
}

/**
 * Withdraws what a charge has not sent yet of its schedule (paid in full, canceled): `scheduled` and
 * `queued` messages become `canceled`. Payment confirmations are left to go out.
 */
export async function withdrawChargeNotifications(trx: Transaction<Database>, chargeId: string): Promise<void> {
  await withdrawingChargeNotifications(trx, [chargeId]).execute();
}

/** The withdrawal as a query, for a statement that closes the charges (a CTE). */
export function withdrawingChargeNotifications(db: Executor, chargeIds: readonly string[]) {
  return db
    .updateTable("notifications")
    .set({ status: "canceled" })
    .where("charge_id", "=", sql<string>`any(${chargeIds}::uuid[])`)
    .where("status", "in", UNSENT)
    .where("kind", "<>", "payment_confirmation");
}

/** A payment received: the charge as it is after it, the transfer, whether it paid the charge in full, and when (the integration's time). */
export interface ReceivedPayment {
  charge: Charge;
  transferId: string;
  full: boolean;
  at: Date;
}

/**
 * The chat confirmation of a payment, when the charge's flag and conciliation type ask for one
 * (`confirmsPayment`) and the payer has chat on with a number; undefined otherwise.
 */
export function chatConfirmationOf(payment: ReceivedPayment): NewNotification | undefined {
  const { charge } = payment;
  if (!confirmsPayment(charge.send_whatsapp_payment_confirmation, charge.conciliation_type, payment.full ? "full" : "partial")) return undefined;
  if (!charge.send_whatsapp_notification || !charge.customer_phone) return undefined;
  return {
    chargeId: charge.id,
    integrationClientId: charge.integration_client_id,
    transferId: payment.transferId,
    channel: "whatsapp",
    kind: "payment_confirmation",
    day: argentinaDate(payment.at),
    recipient: chatRecipient(charge.customer_phone),
    scheduledFor: payment.at,
  };
}

/**
 * The chat confirmations of payments received at `at`, written and queued at once, as CTEs for the
 * statement that records the payments (see `queuedNotificationsCtes`: it must select from
 * `notifications_jobs`). One per transfer: writing it again is harmless.
 */
export function confirmingPaymentsByChatCtes(payments: ReceivedPayment[], at: Date) {
  return queuedNotificationsCtes(
    payments.flatMap((payment) => chatConfirmationOf(payment) ?? []),
    at,
  );
}

/**
 * After the payer's contacts changed: what has not gone out yet goes to the new address. A channel left
 * without its contact (it cannot be while the channel is on: the change is refused) has its unsent
 * messages withdrawn rather than kept with nowhere to go.
 */
export async function readdressChargeNotifications(trx: Transaction<Database>, charge: Charge): Promise<void> {
  const recipients = new Map(recipientsOf(charge).map(({ channel, recipient }) => [channel, recipient]));
  for (const channel of NOTIFICATION_CHANNELS) {
    const recipient = recipients.get(channel);
    await trx
      .updateTable("notifications")
      .set(recipient === undefined ? { status: "canceled" } : { recipient })
      .where("charge_id", "=", charge.id)
      .where("channel", "=", channel)
      .where("status", "in", UNSENT)
      .execute();
  }
}
