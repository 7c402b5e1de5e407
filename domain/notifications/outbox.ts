// The payer notifications' outbox: a message is a row, written in the transaction of the change that causes
// it (a charge created, a payment received, a payer asking for a confirmation) and sent by a job. The
// row's unique keys (one per charge, kind, channel and day; one per transfer and channel for a
// confirmation) make writing it again harmless: a re-run, a retry or a second worker leaves one message.
import { sql, type RawBuilder, type Transaction } from "kysely";
import { addJobsPerRow, QUEUE_SCHEMA, SEND_NOTIFICATION_KEY_PREFIX, SEND_NOTIFICATION_TASK } from "../../db/job-queue.ts";
import type { Database } from "../../db/schema.ts";
import type { Executor } from "../../db/transactions.ts";
import type { NotificationChannel, NotificationKind } from "../../db/tables/notifications.table.ts";

export interface NewNotification {
  chargeId: string;
  integrationClientId: string;
  channel: NotificationChannel;
  kind: NotificationKind;
  /** The Argentina day (`YYYY-MM-DD`) the message belongs to. */
  day: string;
  /** An email address, or a chat number as digits (see `chatRecipient`). */
  recipient: string;
  /** In the integration's time. */
  scheduledFor: Date;
  /** Only for a payment confirmation: the transfer it confirms. */
  transferId?: string;
}

/** A chat number as the provider takes it: country code and number, digits only (`+54` `91123456789` → `5491123456789`). */
export function chatRecipient(phone: { countryCode: string; number: string }): string {
  return `${phone.countryCode}${phone.number}`.replace(/\D/g, "");
}

/**
 * Writes the messages; one that exists already for the same key is left as it is. Returns the ids of the
 * rows written now.
 */
export async function writeNotifications(trx: Transaction<Database>, messages: NewNotification[]): Promise<string[]> {
  if (messages.length === 0) return [];
  const rows = await trx
    .insertInto("notifications")
    .values(
      messages.map((message) => ({
        charge_id: message.chargeId,
        integration_client_id: message.integrationClientId,
        transfer_id: message.transferId ?? null,
        channel: message.channel,
        kind: message.kind,
        day: message.day,
        recipient: message.recipient,
        scheduled_for: message.scheduledFor,
      })),
    )
    .onConflict((conflict) => conflict.doNothing())
    .returning("id")
    .execute();
  return rows.map((row) => row.id);
}

/**
 * Hands scheduled messages to the send job now (each at `runAt`, default the database's now), in the
 * caller's transaction: they leave `scheduled` for `queued` (at `now`, the integration's time), and each
 * gets one job keyed by its id. Messages not `scheduled` any more (sent, canceled, already queued) are left
 * alone. Returns how many were queued. `runAt` is the job queue's time, the real one: an integration's
 * `now` runs ahead of it when its Sandbox clock was moved, and would hold the job back.
 */
export async function queueNotifications(db: Executor, notificationIds: string[], now: Date, runAt?: Date): Promise<number> {
  if (notificationIds.length === 0) return 0;
  const { rows } = await sql<{ queued: number }>`
    with queued as (
      update notifications set status = 'queued', queued_at = ${now}
       where id = any(${notificationIds}::uuid[]) and status = 'scheduled'
      returning id
    ), jobs as (
      select job.id from ${sql.id(QUEUE_SCHEMA, "add_jobs")}((
        select coalesce(array_agg(row(${SEND_NOTIFICATION_TASK}::text, json_build_object('notificationId', queued.id), null, ${runAt ?? null}::timestamptz, null, ${SEND_NOTIFICATION_KEY_PREFIX}::text || queued.id, null, null)::${sql.id(QUEUE_SCHEMA, "job_spec")}), '{}')
          from queued
      )) as job
    )
    select (select count(*) from jobs)::int as queued`.execute(db);
  return rows[0]?.queued ?? 0;
}

/**
 * Writing messages that are due at once and queuing them, as CTEs for a statement that writes them with the
 * change that causes them: `notifications_queued` (the rows, written `queued` at `now`; one that exists
 * already for the same key is left as it is, and not queued again) and `notifications_jobs` (their send
 * jobs, one call), which the statement must select from. The same rows and jobs as `writeNotifications`
 * then `queueNotifications`, in one statement whose text does not depend on how many messages there are.
 */
export function queuedNotificationsCtes(messages: NewNotification[], now: Date): RawBuilder<unknown> {
  const column = <T>(pick: (message: NewNotification) => T) => messages.map(pick);
  return sql`
    notifications_input as (
      select * from unnest(${column((m) => m.chargeId)}::uuid[], ${column((m) => m.integrationClientId)}::uuid[], ${column((m) => m.transferId ?? null)}::uuid[],
                           ${column((m) => m.channel)}::text[], ${column((m) => m.kind)}::text[], ${column((m) => m.day)}::date[], ${column((m) => m.recipient)}::text[],
                           ${column((m) => m.scheduledFor)}::timestamptz[])
        with ordinality as m(charge_id, integration_client_id, transfer_id, channel, kind, day, recipient, scheduled_for, n)
    ), notifications_queued as (
      insert into notifications (charge_id, integration_client_id, transfer_id, channel, kind, day, recipient, scheduled_for, status, queued_at)
      select charge_id, integration_client_id, transfer_id, channel, kind, day, recipient, scheduled_for, 'queued', ${now}::timestamptz
        from notifications_input order by n
      on conflict do nothing
      returning id
    ), notifications_jobs as (${addJobsPerRow("notifications_queued", SEND_NOTIFICATION_TASK, "notificationId", SEND_NOTIFICATION_KEY_PREFIX)}
    )`;
}
