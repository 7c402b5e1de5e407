// Sending one payer notification (the `send-notification` task): claim, check, render, send, record.
//
// Everything happens in one transaction that holds the notification's row lock, taken with SKIP LOCKED:
// a second worker that reaches the same message meanwhile finds nothing to claim and leaves, and one that
// comes after finds it `sent`; only a `queued` message is sent, so each goes out once. Holding the lock
// through the provider's call (bounded by PROVIDER_TIMEOUT_MS) also means a payment or a cancel that
// withdraws the charge's messages waits for a message already on its way, and then leaves it as sent.
//
// The attempt is counted before the provider is called, in that transaction (a worker that dies mid-call
// leaves the message as it was, and the queue hands its job out again). A temporary failure keeps it `queued`
// with the reason, and the task is retried with backoff; after MAX_SEND_ATTEMPTS it is `failed` with the
// last reason. A refusal for good is `failed` at once. A schedule message whose charge is no longer due any
// (paid, canceled, or past due before the message's time: `messageStillDue`) is `canceled`; a payment
// confirmation goes out even though the charge is paid.
import { messageStillDue } from "./schedule.ts";
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Notification, NotificationStatus } from "../../db/tables/notifications.table.ts";
import { integrationNow, type Clock } from "../clock.ts";
import { chatContent, emailContent, messageFacts, type MessageFacts } from "./content.ts";
import { payerPageUrl } from "./payer-page-link.ts";
import type { NotificationSenders, SendResult } from "./channels/sender.ts";

/** Attempts at a temporary failure before a message is `failed`: with the queue's backoff (e^n seconds), about 3.5 hours. */
export const MAX_SEND_ATTEMPTS = 10;

export interface SendDependencies {
  db: Kysely<Database>;
  clock: Clock;
  senders: NotificationSenders;
  /** The Integration API's public URL: the payer page's links hang from it. */
  integrationPublicUrl: string;
}

export type SendNotificationOutcome =
  /** Another worker holds it right now, or it no longer exists: nothing to do here. */
  | { kind: "not_claimed" }
  /** Already sent, simulated, failed, canceled, or not queued yet. */
  | { kind: "settled"; status: NotificationStatus }
  /** Its charge is no longer open: withdrawn instead of sent. */
  | { kind: "canceled" }
  | { kind: "sent"; attempt: number }
  | { kind: "simulated"; attempt: number }
  | { kind: "failed"; attempt: number; permanent: boolean }
  /** A temporary failure with attempts left: the caller retries later. */
  | { kind: "retry"; attempt: number };

export async function sendNotification(deps: SendDependencies, notificationId: string): Promise<SendNotificationOutcome> {
  return deps.db.transaction().execute(async (trx): Promise<SendNotificationOutcome> => {
    const notification = await trx.selectFrom("notifications").selectAll().where("id", "=", notificationId).forUpdate().skipLocked().executeTakeFirst();
    if (!notification) return { kind: "not_claimed" };
    if (notification.status !== "queued") return { kind: "settled", status: notification.status };

    const charge = await trx
      .selectFrom("charges as c")
      .innerJoin("merchant_accounts as m", "m.id", "c.merchant_account_id")
      .innerJoin("integration_clients as i", "i.id", "c.integration_client_id")
      .leftJoin("cvu_accounts as a", "a.id", "c.cvu_account_id")
      .select([
        "c.state",
        "c.final_due_at",
        "c.amount_cents",
        "c.surcharge_cents",
        "c.paid_cents",
        "c.first_due_at",
        "c.due_dates",
        "c.description",
        "c.customer_name",
        "c.payer_page_token",
        "m.fantasy_name",
        "m.account_holder_name",
        "a.cvu",
        "i.clock_offset_ms",
      ])
      .where("c.id", "=", notification.charge_id)
      .executeTakeFirstOrThrow();
    const now = integrationNow(deps.clock, Number(charge.clock_offset_ms));

    const confirmation = notification.kind === "payment_confirmation";
    // A message scheduled before its charge fell past due still goes out (a Sandbox clock jump queues a
    // reminder after the sweep closed the charge); one of a paid or canceled charge does not.
    if (!messageStillDue(notification, charge)) {
      await trx.updateTable("notifications").set({ status: "canceled" }).where("id", "=", notification.id).execute();
      return { kind: "canceled" };
    }

    const transfer = confirmation && notification.transfer_id !== null ? await trx.selectFrom("transfers").select("amount_cents").where("id", "=", notification.transfer_id).executeTakeFirstOrThrow() : undefined;
    const facts = messageFacts({
      kind: notification.kind,
      at: notification.scheduled_for,
      charge,
      merchant: { fantasyName: charge.fantasy_name, accountHolderName: charge.account_holder_name },
      cvu: charge.cvu,
      payerPageUrl: payerPageUrl(deps.integrationPublicUrl, charge.payer_page_token),
      ...(transfer ? { receivedCents: transfer.amount_cents } : {}),
    });

    const attempt = notification.attempts + 1;
    await trx.updateTable("notifications").set({ attempts: attempt }).where("id", "=", notification.id).execute();
    const result = await callProvider(deps.senders, notification, facts);
    return record(trx, notification.id, attempt, result, now);
  });
}

async function callProvider(senders: NotificationSenders, notification: Notification, facts: MessageFacts): Promise<SendResult> {
  try {
    if (notification.channel === "email") return await senders.email.send({ to: notification.recipient, ...emailContent(facts) });
    return await senders.whatsapp.send({ to: notification.recipient, ...chatContent(facts) });
  } catch {
    // A sender answers every provider's outcome; a throw is Cobro's own fault, and the message is kept for later.
    return { outcome: "temporary_failure", reason: "the message could not be handed to its provider" };
  }
}

async function record(trx: Transaction<Database>, id: string, attempt: number, result: SendResult, now: Date): Promise<SendNotificationOutcome> {
  const update = trx.updateTable("notifications").where("id", "=", id);
  switch (result.outcome) {
    case "sent":
      await update.set({ status: "sent", sent_at: now, provider_message_id: result.providerMessageId, failure_reason: null }).execute();
      return { kind: "sent", attempt };
    case "simulated":
      await update.set({ status: "simulated", sent_at: now, failure_reason: null }).execute();
      return { kind: "simulated", attempt };
    case "rejected":
      await update.set({ status: "failed", failure_reason: result.reason }).execute();
      return { kind: "failed", attempt, permanent: true };
    case "temporary_failure":
      if (attempt >= MAX_SEND_ATTEMPTS) {
        await update.set({ status: "failed", failure_reason: result.reason }).execute();
        return { kind: "failed", attempt, permanent: false };
      }
      await update.set({ failure_reason: result.reason }).execute();
      return { kind: "retry", attempt };
  }
}
