// The job queue as the rest of Cobro writes to it: the tasks and their payloads, the enqueue primitive,
// job keys and the queue's schema. It sits below the domain so a use case can add a job in its own
// transaction without depending on the workers (jobs/ runs them).
//
// The queue is graphile-worker. Chosen over pg-boss because enqueueing is a plain SQL function,
// graphile_worker.add_job(), callable inside any Kysely transaction: a job exists exactly when the change
// that caused it commits (NOTIFY is transactional too, so workers wake only on commit). Workers take jobs
// with SKIP LOCKED, retry with exponential backoff (25 attempts by default) and scale across processes.
import { Logger as WorkerLogger, type LogLevel, runMigrations } from "graphile-worker";
import { type Kysely, type RawBuilder, sql } from "kysely";
import type pg from "pg";
import type { Logger } from "pino";
import type { Database } from "./schema.ts";

/** Production defaults: a dead worker's jobs run again within about 2.5 minutes (graphile-worker alone: 4 hours). */
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 30_000;
export const DEFAULT_STALE_WORKER_AFTER_MS = 120_000;

/**
 * The delivery dispatcher's pace (jobs/delivery-dispatcher.ts `paceMs`, COBRO_DELIVERY_PACE_MS): measured
 * with `npm run bench -- --round-trips` (simulate-payment at 16 connections, docs/performance.md), where a
 * statement's fixed cost, in the worker and in PostgreSQL, was most of a small batch's.
 */
export const DEFAULT_DELIVERY_PACE_MS = 20;

/** graphile-worker's schema; fixed here so an environment variable (GRAPHILE_WORKER_SCHEMA) cannot move it. */
export const QUEUE_SCHEMA = "graphile_worker";

/**
 * Each task's name and payload. Payloads are plain JSON holding ids, never secrets (they sit in the jobs
 * table). The handlers are in jobs/tasks.ts.
 */
export interface TaskPayloads {
  /** Does nothing: proves the queue end to end (tests, smoke checks). */
  noop: { note?: string };
  /** Moves every charge whose time has come (overdue, expiry, draft discard). Runs every minute. */
  "time-transitions": Record<string, never>;
  /** One delivery attempt of an outbox event (domain/webhooks/delivery.ts); retries are new jobs of this task. */
  "deliver-event": { eventId: string };
  /** Queues every payer notification whose time came (domain/notifications/). Runs every minute. */
  "queue-notifications": Record<string, never>;
  /** Sends one payer notification through its channel's provider (domain/notifications/); a temporary failure is retried with backoff. */
  "send-notification": { notificationId: string };
  /** Creates an approved go-live request's integration in the Production deployment (domain/going-live/); retried with backoff while Production cannot be reached. */
  "provision-production": { goLiveRequestId: string };
  /** Asks the bank for a return of unmatched money, or how the one it took stands (domain/reconciliation/return-unmatched.ts); a temporary failure is retried with backoff. */
  "return-unmatched-payment": { returnId: string };
}

export type TaskName = keyof TaskPayloads & string;

export const DELIVER_EVENT_TASK = "deliver-event" satisfies TaskName;

/** The prefix of an event's delivery job key; SQL that enqueues deliveries in bulk appends the event id to it. */
export const DELIVER_EVENT_KEY_PREFIX = `${DELIVER_EVENT_TASK}:`;

/** One pending delivery job per event: adding another (a retry, a resend) replaces the pending one. */
export function deliverEventJobKey(eventId: string): string {
  return `${DELIVER_EVENT_KEY_PREFIX}${eventId}`;
}

export const SEND_NOTIFICATION_TASK = "send-notification" satisfies TaskName;

/** The prefix of a notification's send job key; SQL that queues notifications in bulk appends the id to it. */
export const SEND_NOTIFICATION_KEY_PREFIX = `${SEND_NOTIFICATION_TASK}:`;

/** One send job per notification: queuing it again (a re-run sweep) replaces the pending job, never adds a second. */
export function sendNotificationJobKey(notificationId: string): string {
  return `${SEND_NOTIFICATION_KEY_PREFIX}${notificationId}`;
}

export const PROVISION_PRODUCTION_TASK = "provision-production" satisfies TaskName;

/** One provisioning job per go-live request. */
export function provisionProductionJobKey(goLiveRequestId: string): string {
  return `${PROVISION_PRODUCTION_TASK}:${goLiveRequestId}`;
}

export const RETURN_UNMATCHED_PAYMENT_TASK = "return-unmatched-payment" satisfies TaskName;

/** One pending job per return: its request to the bank, then each later check of it. */
export function returnUnmatchedPaymentJobKey(returnId: string): string {
  return `${RETURN_UNMATCHED_PAYMENT_TASK}:${returnId}`;
}

export interface AddJobOptions {
  /** Not before this moment (default: now). */
  runAt?: Date;
  /** At most one pending job per key: adding again replaces the pending one (payload, runAt, attempts). */
  jobKey?: string;
  /** Attempts before the job is given up (default 25, with exponential backoff). */
  maxAttempts?: number;
}

/**
 * Adds a job in the caller's transaction (or on its own when given the Kysely instance): if the transaction
 * rolls back, the job never existed. Returns the job id.
 */
export async function addJob<T extends TaskName>(
  db: Kysely<Database>,
  task: T,
  payload: TaskPayloads[T],
  options: AddJobOptions = {},
): Promise<{ id: number }> {
  const { rows } = await sql<{ id: number }>`
    select id from ${sql.id(QUEUE_SCHEMA, "add_job")}(
      identifier => ${task},
      payload => ${JSON.stringify(payload)}::json,
      run_at => ${options.runAt ?? null}::timestamptz,
      max_attempts => ${options.maxAttempts ?? null}::int,
      job_key => ${options.jobKey ?? null}::text
    )`.execute(db);
  const row = rows[0];
  if (!row) throw new Error(`graphile_worker.add_job returned no job for task ${task}`);
  return { id: row.id };
}

/**
 * add_job as an SQL expression (the new job's id), for a statement that enqueues as part of a larger
 * write: the job is added in that statement's transaction, and workers are woken when it commits.
 */
export function addJobExpression(
  task: TaskName,
  payload: RawBuilder<unknown>,
  options: { jobKey?: RawBuilder<unknown>; runAt?: RawBuilder<unknown> } = {},
): RawBuilder<string> {
  return sql<string>`(select id from ${sql.id(QUEUE_SCHEMA, "add_job")}(identifier => ${task}, payload => ${payload}, job_key => ${options.jobKey ?? null}::text, run_at => ${options.runAt ?? null}::timestamptz))`;
}

/**
 * A CTE's body adding one job per row of the CTE `rows` (its `id` column): task `task`, payload
 * `{<payloadField>: id}`, job key `<keyPrefix><id>`, graphile-worker's defaults otherwise (due now, 25
 * attempts). Written as rows of the queue's table rather than through `add_jobs`, whose PL/pgSQL (the
 * specs' array built and unnested, four statements of its own) cost a reconciliation batch as much as its
 * jobs' insert. What `add_jobs` would do besides is not needed here: the keys are those of new rows (an
 * event, a notification), so no job holds one yet (one that did would be left as it is: it sends the same
 * row); the task is registered at start (`prepareQueue`), so a missing one fails the statement rather than
 * dropping its jobs. The workers are woken as `add_jobs` wakes them: one NOTIFY with the jobs' count, sent
 * at commit, none when there is no job; delivery jobs on a channel of their own (jobsChannelOf).
 */
export function addJobsPerRow(rows: string, task: TaskName, payloadField: string, keyPrefix: string): RawBuilder<unknown> {
  return sql`
      insert into ${sql.id(QUEUE_SCHEMA, "_private_jobs")} as jobs (task_id, payload, key)
      select (select id from ${sql.id(QUEUE_SCHEMA, "_private_tasks")} where identifier = ${task}::text), json_build_object(${payloadField}::text, r.id), ${keyPrefix}::text || r.id
        from ${sql.table(rows)} r
          on conflict (key) do nothing
      returning jobs.id,
                (select pg_notify(${jobsChannelOf(task)}::text, '{"r":' || random()::text || ',"count":' || (select count(*) from ${sql.table(rows)})::text || '}')) as woken`;
}

/** The tasks whose jobs are written as rows (addJobsPerRow): registered at every start. */
const TASKS_ADDED_AS_ROWS: TaskName[] = [DELIVER_EVENT_TASK, SEND_NOTIFICATION_TASK];

/**
 * Installs or upgrades graphile-worker's schema. Run it at start-up before the API can enqueue (with the
 * migrations); safe when several processes do it at once (graphile-worker detects the clash and moves on).
 */
export async function prepareQueue(options: { pool: pg.Pool; logger?: Logger }): Promise<void> {
  await runMigrations({ pgPool: options.pool, schema: QUEUE_SCHEMA, logger: queueLogger(options.logger) });
  await options.pool.query(JOB_COMPLETION_GUARD);
  await options.pool.query(`insert into ${QUEUE_SCHEMA}._private_tasks (identifier) select unnest($1::text[]) on conflict do nothing`, [TASKS_ADDED_AS_ROWS]);
}

/** How a delivery dispatcher's worker id begins (its jobs' locked_by): JOB_COMPLETION_GUARD tells its jobs by it. */
export const DELIVERY_TAKER_PREFIX = "deliveries-";

/** The setting by which a statement that completes the delivery dispatcher's jobs names the dispatcher (see JOB_COMPLETION_GUARD). */
export const JOB_TAKER_SETTING = "cobro.job_taker";

/**
 * A job is deleted (completed) only by whoever holds it. graphile-worker completes a job by its id alone,
 * and an id can be given twice: a transaction that adds a job is visible on the primary before its standby
 * confirms it, so a worker can take and run that job; if the primary is lost then, the new primary has
 * neither the transaction nor its sequence's advance, and gives the id to another job. Completing the first
 * would delete the second, never run (a webhook never delivered). The guard skips the delete of a job that
 * nobody holds (a new job given a reused id), and of a job held by a delivery dispatcher unless the
 * statement names that dispatcher in JOB_TAKER_SETTING (as its outcomes' statement does). What it cannot
 * tell apart: a job reused by id and already taken by another graphile-worker pool (docs/operations.md).
 * Installed with the queue's schema at every start, as one transaction (one query of several statements)
 * under an advisory lock: processes starting at once would otherwise replace the function together
 * ("tuple concurrently updated"). The trigger is created only when missing, so a start does not lock the
 * jobs table while other processes serve.
 */
const JOB_COMPLETION_GUARD = `
  select pg_advisory_xact_lock(hashtext('cobro_job_completion_guard'));
  create or replace function ${QUEUE_SCHEMA}.cobro_job_deleted_by_holder() returns trigger language plpgsql as $$
  begin
    if old.locked_by is null then return null; end if;
    if old.locked_by like '${DELIVERY_TAKER_PREFIX}%' and old.locked_by is distinct from current_setting('${JOB_TAKER_SETTING}', true) then return null; end if;
    return old;
  end $$;
  do $$ begin
    if not exists (select 1 from pg_trigger where tgname = 'cobro_job_deleted_by_holder' and tgrelid = '${QUEUE_SCHEMA}._private_jobs'::regclass) then
      create trigger cobro_job_deleted_by_holder before delete on ${QUEUE_SCHEMA}._private_jobs
        for each row execute function ${QUEUE_SCHEMA}.cobro_job_deleted_by_holder();
    end if;
  end $$;`;

const levels: Record<LogLevel, "error" | "warn" | "info" | "debug"> = {
  error: "error",
  warning: "warn",
  info: "info",
  debug: "debug",
};

/** graphile-worker's logs into pino, keeping the job's identity and error but never its payload. */
export function queueLogger(logger: Logger | undefined): WorkerLogger {
  return new WorkerLogger((scope) => (level, message, meta) => {
    if (!logger) return;
    const job = meta?.job as { id?: string; task_identifier?: string; attempts?: number } | undefined;
    // Its notes about itself ("Worker connected and looking for jobs…") are start-up detail: debug. A job's
    // lines, warnings and errors keep their level.
    const about = level === "info" && job === undefined && scope.jobId === undefined ? "debug" : levels[level];
    logger[about](
      {
        queue: { ...scope, jobId: job?.id ?? scope.jobId, task: job?.task_identifier, attempts: job?.attempts },
        ...(meta?.error !== undefined ? { err: meta.error } : {}),
      },
      message,
    );
  });
}

/**
 * Jobs due and not yet taken (available, their time come), by task, with the seconds since the oldest of
 * them came due: the metrics' queue depth, read at each scrape. One pass over the queue's index of
 * available jobs.
 */
export async function waitingJobsByTask(pool: pg.Pool): Promise<Array<{ task: string; waiting: number; oldestSeconds: number }>> {
  const { rows } = await pool.query<{ task: string; waiting: number; oldest_seconds: number }>(
    `select tasks.identifier as task, count(*)::int as waiting,
            greatest(extract(epoch from now() - min(jobs.run_at)), 0)::float8 as oldest_seconds
     from ${QUEUE_SCHEMA}._private_jobs as jobs
     join ${QUEUE_SCHEMA}._private_tasks as tasks on tasks.id = jobs.task_id
     where jobs.is_available and jobs.run_at <= now()
     group by tasks.identifier`,
  );
  return rows.map((row) => ({ task: row.task, waiting: row.waiting, oldestSeconds: row.oldest_seconds }));
}

/** Records that these workers (graphile-worker ids) are alive now, in the database's time. */
export async function recordWorkerHeartbeats(pool: pg.Pool, workerIds: string[]): Promise<void> {
  if (workerIds.length === 0) return;
  await pool.query(
    `insert into worker_heartbeats (worker_id, last_seen_at) select unnest($1::text[]), now()
     on conflict (worker_id) do update set last_seen_at = excluded.last_seen_at`,
    [workerIds],
  );
}

/**
 * Unlocks the jobs (and job queues) held by workers not seen for `staleAfterMs`: a worker with a stale
 * heartbeat, or none at all, whose lock is that old. graphile-worker would otherwise wait 4 hours before
 * running them again. Returns the workers released. Safe in every worker process at once.
 */
export async function releaseJobsOfStaleWorkers(pool: pg.Pool, staleAfterMs: number): Promise<string[]> {
  const { rows } = await pool.query<{ worker_id: string }>(
    `with stale as (
       select distinct jobs.locked_by as worker_id
       from ${QUEUE_SCHEMA}._private_jobs as jobs
       where jobs.locked_by is not null
         and jobs.locked_at < now() - make_interval(secs => $1::float8 / 1000)
         and not exists (
           select 1 from worker_heartbeats as heartbeat
           where heartbeat.worker_id = jobs.locked_by and heartbeat.last_seen_at >= now() - make_interval(secs => $1::float8 / 1000))
       union
       select worker_id from worker_heartbeats where last_seen_at < now() - make_interval(secs => $1::float8 / 1000)
     ), released as (
       select ${QUEUE_SCHEMA}.force_unlock_workers(array(select worker_id from stale))
     ), forgotten as (
       delete from worker_heartbeats where worker_id in (select worker_id from stale)
     )
     select stale.worker_id from stale, released`,
    [staleAfterMs],
  );
  return rows.map((row) => row.worker_id);
}

/** Unlocks the jobs (and job queues) held by workers known to have ended, and forgets their heartbeats. */
export async function releaseJobsOfWorkers(pool: pg.Pool, workerIds: string[]): Promise<void> {
  if (workerIds.length === 0) return;
  await pool.query(`select ${QUEUE_SCHEMA}.force_unlock_workers($1::text[])`, [workerIds]);
  await forgetWorkers(pool, workerIds);
}

/** Forgets workers that stopped cleanly (they hold no job any more). */
export async function forgetWorkers(pool: pg.Pool, workerIds: string[]): Promise<void> {
  if (workerIds.length === 0) return;
  await pool.query("delete from worker_heartbeats where worker_id = any($1::text[])", [workerIds]);
}

/**
 * Takes up to `limit` due jobs of one task for `workerId` (as graphile-worker takes a batch: locked by the
 * taker, `SKIP LOCKED` past jobs another worker holds, in priority then run_at order), as two CTEs of the
 * caller's statement: `taken_jobs` (id, payload) are the jobs taken, so the statement works on them in the
 * same round trip. A job taken is the taker's until it completes it, or until the heartbeat finds the taker
 * dead and releases it (releaseJobsOfStaleWorkers): its lease. Jobs of named queues are left to
 * graphile-worker.
 */
export function takingDueJobs(task: TaskName, workerId: unknown, limit: unknown): RawBuilder<unknown> {
  const jobs = sql.id(QUEUE_SCHEMA, "_private_jobs");
  return sql`due_jobs as (
      select jobs.id from ${jobs} as jobs
       where jobs.is_available = true and jobs.run_at <= now() and jobs.job_queue_id is null
         and jobs.task_id = (select id from ${sql.id(QUEUE_SCHEMA, "_private_tasks")} where identifier = ${task}::text)
       order by jobs.priority asc, jobs.run_at asc
       limit ${limit}::int
         for update skip locked
    ), taken_jobs as (
      update ${jobs} as jobs
         set attempts = jobs.attempts + 1, locked_by = ${workerId}::text, locked_at = now()
        from due_jobs where jobs.id = due_jobs.id
      returning jobs.id, jobs.payload
    )`;
}

/** Gives back jobs taken by `workerId` that it could not finish: free again after `delayMs` (a database hiccup is let pass). */
export async function giveBackJobs(pool: pg.Pool, workerId: string, jobIds: readonly string[], delayMs: number): Promise<void> {
  if (jobIds.length === 0) return;
  await pool.query(
    `update ${QUEUE_SCHEMA}._private_jobs set locked_at = null, locked_by = null, run_at = greatest(run_at, now() + make_interval(secs => $3::float8 / 1000))
      where id = any($2::bigint[]) and locked_by = $1`,
    [workerId, jobIds, delayMs],
  );
}

/**
 * Gives back the jobs locked by `workerId` that it does not hold (`heldJobIds`) and took more than
 * `takenBeforeMs` ago: a take that committed but whose answer never reached the taker (its connection lost
 * after the commit) leaves them locked by a live worker, which the heartbeat would keep for good. Returns
 * how many were given back.
 */
export async function giveBackJobsNotHeld(pool: pg.Pool, workerId: string, heldJobIds: readonly string[], takenBeforeMs: number): Promise<number> {
  const { rowCount } = await pool.query(
    `update ${QUEUE_SCHEMA}._private_jobs set locked_at = null, locked_by = null
      where locked_by = $1 and not (id = any($2::bigint[])) and locked_at < now() - make_interval(secs => $3::float8 / 1000)`,
    [workerId, heldJobIds, takenBeforeMs],
  );
  return rowCount ?? 0;
}

/** The channel graphile-worker notifies when jobs are added and due (on the adding transaction's commit). */
export const JOBS_INSERTED_CHANNEL = "jobs:insert";

/**
 * The channel that delivery jobs written as rows (addJobsPerRow: a reconciliation batch's events, a time
 * sweep's) notify instead of graphile-worker's. Its runner does not run them when the delivery dispatcher
 * does, yet woke at each such commit to look for its own tasks: a statement, and about a tenth of the
 * worker's CPU, at every reconciliation batch. The dispatcher listens to both channels (jobs added with
 * `add_job`, a resend's or a retry's, notify graphile-worker's); a worker without the dispatcher relays
 * this one to its runner (jobs/queue.ts).
 */
export const DELIVERY_JOBS_CHANNEL = "cobro:delivery-jobs";

/** Where addJobsPerRow's jobs of `task` notify the workers. */
function jobsChannelOf(task: TaskName): string {
  return task === DELIVER_EVENT_TASK ? DELIVERY_JOBS_CHANNEL : JOBS_INSERTED_CHANNEL;
}
