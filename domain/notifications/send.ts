// Sending one payer notification (the `send-notification` task): claim, check, render, send, record.
//
// No lock is held while the provider is called. A short transaction claims the message: it takes the
// row with SKIP LOCKED, checks the message is still due, renders it, counts the attempt and marks it
// `sending` with the claim's time, and commits. Then the provider is called, and a second transaction
// records the outcome on that claim. So a payment or a cancel that withdraws the charge's messages never
// waits for a provider; a message already `sending` is on its way and is left to finish.
//
// Each message goes out once: a second worker that reaches it meanwhile finds it locked or `sending`
// and leaves. A worker that dies mid-call leaves it `sending`; once the claim is older than
// CLAIM_LEASE_MS (well past the providers' deadline) the queue's retry of the job claims it again, so a
// message is never lost (at worst, after such a crash, sent twice). A temporary failure puts it back to
// `queued` with the reason and the task is retried with backoff; after MAX_SEND_ATTEMPTS it is `failed`
// with the last reason. A refusal for good is `failed` at once. A schedule message whose charge is no
// longer due any (paid, canceled, or past due before the message's time: `messageStillDue`) is
// `canceled`; a payment confirmation goes out even though the charge is paid.
import { messageStillDue } from "./schedule.ts";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Notification, NotificationChannel, NotificationKind, NotificationStatus } from "../../db/tables/notifications.table.ts";
import { integrationNow, type Clock } from "../clock.ts";
import { chatContent, emailContent, messageFacts, type MessageFacts } from "./content.ts";
import { payerPageUrl } from "./payer-page-link.ts";
import type { NotificationSenders, SendResult } from "../outbound/sender.ts";

/** Attempts at a temporary failure before a message is `failed`: with the queue's backoff (e^n seconds), about 3.5 hours. */
export const MAX_SEND_ATTEMPTS = 10;

/** How long a `sending` claim stands before another run may take the message again (a worker that died mid-call). */
export const CLAIM_LEASE_MS = 60_000;

export interface SendDependencies {
  db: Kysely<Database>;
  clock: Clock;
  senders: NotificationSenders;
  /** The Integration API's public URL: the payer page's links hang from it. */
  integrationPublicUrl: string;
}

/** Which message an outcome is about, for the caller's counts: never its recipient or content. */
export interface MessageLabel {
  channel: NotificationChannel;
  kind: NotificationKind;
}

export type SendNotificationOutcome =
  /** Another worker holds or is sending it right now, or it no longer exists: nothing to do here. */
  | { kind: "not_claimed" }
  /** Already sent, simulated, failed, canceled, or not queued yet. */
  | { kind: "settled"; status: NotificationStatus }
  /** Its charge is no longer open: withdrawn instead of sent. */
  | { kind: "canceled"; message: MessageLabel }
  | { kind: "sent"; attempt: number; message: MessageLabel }
  | { kind: "simulated"; attempt: number; message: MessageLabel }
  | { kind: "failed"; attempt: number; permanent: boolean; message: MessageLabel }
  /** A temporary failure with attempts left: the caller retries later. */
  | { kind: "retry"; attempt: number; message: MessageLabel };

type Claim =
  | { kind: "outcome"; outcome: SendNotificationOutcome }
  | { kind: "claimed"; notification: Notification; facts: MessageFacts; attempt: number; claimedAt: Date; now: Date };

export async function sendNotification(deps: SendDependencies, notificationId: string): Promise<SendNotificationOutcome> {
  const claim = await claimNotification(deps, notificationId);
  if (claim.kind === "outcome") return claim.outcome;
  const result = await callProvider(deps.senders, claim.notification, claim.facts);
  return record(deps.db, claim, result);
}

/** Takes a queued message (or one whose `sending` claim ran out) to send it, in a short transaction of its own. */
async function claimNotification(deps: SendDependencies, notificationId: string): Promise<Claim> {
  return deps.db.transaction().execute(async (trx): Promise<Claim> => {
    const notification = await trx.selectFrom("notifications").selectAll().where("id", "=", notificationId).forUpdate().skipLocked().executeTakeFirst();
    if (!notification) return { kind: "outcome", outcome: { kind: "not_claimed" } };
    const claimedAt = deps.clock.now();
    if (notification.status === "sending") {
      const leaseEnds = (notification.claimed_at?.getTime() ?? 0) + CLAIM_LEASE_MS;
      if (claimedAt.getTime() < leaseEnds) return { kind: "outcome", outcome: { kind: "not_claimed" } };
    } else if (notification.status !== "queued") {
      return { kind: "outcome", outcome: { kind: "settled", status: notification.status } };
    }

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
      return { kind: "outcome", outcome: { kind: "canceled", message: labelOf(notification) } };
    }

    const transfer =
      confirmation && notification.transfer_id !== null
        ? await trx.selectFrom("transfers").select("amount_cents").where("id", "=", notification.transfer_id).executeTakeFirstOrThrow()
        : undefined;
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
    await trx.updateTable("notifications").set({ status: "sending", claimed_at: claimedAt, attempts: attempt }).where("id", "=", notification.id).execute();
    return { kind: "claimed", notification, facts, attempt, claimedAt, now };
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

/** Records the provider's answer on the claim (a claim taken over meanwhile is left to its new owner). */
async function record(db: Kysely<Database>, claim: Extract<Claim, { kind: "claimed" }>, result: SendResult): Promise<SendNotificationOutcome> {
  const { attempt, now } = claim;
  const message = labelOf(claim.notification);
  const update = db
    .updateTable("notifications")
    .where("id", "=", claim.notification.id)
    .where("status", "=", "sending")
    .where("claimed_at", "=", claim.claimedAt);
  switch (result.outcome) {
    case "sent":
      await update.set({ status: "sent", sent_at: now, provider_message_id: result.providerMessageId, failure_reason: null }).execute();
      return { kind: "sent", attempt, message };
    case "simulated":
      await update.set({ status: "simulated", sent_at: now, failure_reason: null }).execute();
      return { kind: "simulated", attempt, message };
    case "rejected":
      await update.set({ status: "failed", failure_reason: result.reason }).execute();
      return { kind: "failed", attempt, permanent: true, message };
    case "temporary_failure":
      if (attempt >= MAX_SEND_ATTEMPTS) {
        await update.set({ status: "failed", failure_reason: result.reason }).execute();
        return { kind: "failed", attempt, permanent: false, message };
      }
      await update.set({ status: "queued", failure_reason: result.reason }).execute();
      return { kind: "retry", attempt, message };
  }
}

function labelOf(notification: Notification): MessageLabel {
  return { channel: notification.channel, kind: notification.kind };
}
