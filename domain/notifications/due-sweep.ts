// The notifications sweep: every `scheduled` message whose time came (in its integration's time: the
// Sandbox clock) is queued, with one send job each, in one set-based statement (a million due reminders
// at 10:00 are one pass, not one timer each). It runs every minute (jobs/tasks.ts) and, for one
// integration, when its Sandbox clock moves (domain/sandbox/sandbox-clock.ts).
//
// Each channel's provider takes so many messages a second: the jobs' `run_at` is spread per channel in
// the order the messages were scheduled, starting where that channel's queue already ends, so the 10:00
// burst (and sweeps that follow each other) go out at the provider's pace.
import { sql } from "kysely";
import { QUEUE_SCHEMA, SEND_NOTIFICATION_KEY_PREFIX, SEND_NOTIFICATION_TASK } from "../../db/job-queue.ts";

import type { Executor } from "../../db/transactions.ts";
import type { NotificationChannel } from "../../db/tables/notifications.table.ts";

export interface DueSweepOptions {
  /** The real time; each integration adds its Sandbox clock offset. */
  now: Date;
  /** Messages each channel's provider is sent per second at most. */
  sendsPerSecond: Record<NotificationChannel, number>;
  /** Only this integration's messages (the Sandbox clock queues them on advance); all by default. */
  integrationClientId?: string;
}

/** Queues every message whose time came; returns how many. Safe to run twice at once: a message is queued once. */
export async function queueDueNotifications(db: Executor, options: DueSweepOptions): Promise<number> {
  const onlyIntegration = options.integrationClientId ? sql`and i.id = ${options.integrationClientId}` : sql``;
  const integrationNow = sql`(${options.now}::timestamptz + i.clock_offset_ms * interval '1 millisecond')`;
  const rate = sql`(case q.channel when 'email' then ${options.sendsPerSecond.email}::numeric else ${options.sendsPerSecond.whatsapp}::numeric end)`;
  const { rows } = await sql<{ queued: number }>`
    with due as (
      select n.id, ${integrationNow} as queued_at
        from notifications n
        join integration_clients i on i.id = n.integration_client_id
        join charges c on c.id = n.charge_id
       where n.status = 'scheduled'
         -- The same bound for every row first, so the partial index on scheduled_for answers it.
         and n.scheduled_for <= (select ${options.now}::timestamptz + coalesce(max(clock_offset_ms), 0) * interval '1 millisecond' from integration_clients)
         and n.scheduled_for <= ${integrationNow} ${onlyIntegration}
         -- As domain/notifications/schedule.ts messageStillDue: an open charge's, a past-due charge's
         -- scheduled before it closed, and every payment confirmation.
         and (n.kind = 'payment_confirmation'
              or c.state in ('pending', 'partial_payment')
              or (c.state in ('overdue', 'partial_overdue') and n.scheduled_for < c.final_due_at))
         for update of n skip locked
    ), queued as (
      update notifications n set status = 'queued', queued_at = due.queued_at
        from due where n.id = due.id and n.status = 'scheduled'
      returning n.id, n.channel, n.scheduled_for
    ), backlog as (
      -- Where each channel's queue ends now: the latest send job still waiting (read before this
      -- statement's own changes, which a statement never sees).
      select n.channel, max(j.run_at) as run_at
        from notifications n
        join ${sql.id(QUEUE_SCHEMA, "jobs")} j on j.key = ${SEND_NOTIFICATION_KEY_PREFIX}::text || n.id::text
       where n.status = 'queued'
       group by n.channel
    ), paced as (
      select q.id,
             greatest(now() - interval '1 second' / ${rate}, coalesce(b.run_at, '-infinity'))
               + row_number() over (partition by q.channel order by q.scheduled_for, q.id) * interval '1 second' / ${rate} as run_at
        from queued q left join backlog b on b.channel = q.channel
    ), jobs as (
      select job.id from ${sql.id(QUEUE_SCHEMA, "add_jobs")}((
        select coalesce(array_agg(row(${SEND_NOTIFICATION_TASK}::text, json_build_object('notificationId', paced.id), null, paced.run_at, null, ${SEND_NOTIFICATION_KEY_PREFIX}::text || paced.id, null, null)::${sql.id(QUEUE_SCHEMA, "job_spec")} order by paced.run_at), '{}')
          from paced
      )) as job
    )
    select (select count(*) from jobs)::int as queued`.execute(db);
  return rows[0]?.queued ?? 0;
}
