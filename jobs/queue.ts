// The job queue, on graphile-worker. Chosen over pg-boss because enqueueing is a plain SQL function,
// graphile_worker.add_job(), callable inside any Kysely transaction: a job exists exactly when the change
// that caused it commits (NOTIFY is transactional too, so workers wake only on commit). Workers take jobs
// with SKIP LOCKED, retry with exponential backoff (25 attempts by default) and scale across processes.
import { Logger as WorkerLogger, type LogLevel, parseCrontab, runMigrations, run, type TaskList as GraphileTaskList } from "graphile-worker";
import { type Kysely, sql } from "kysely";
import pg from "pg";
import type { Logger } from "pino";
import type { Database } from "../db/schema.ts";
import type { TaskList, TaskName, TaskPayloads } from "./tasks.ts";

/** graphile-worker's schema; fixed here so an environment variable (GRAPHILE_WORKER_SCHEMA) cannot move it. */
const QUEUE_SCHEMA = "graphile_worker";

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
 * Installs or upgrades graphile-worker's schema. Run it at start-up before the API can enqueue (with the
 * migrations); safe when several processes do it at once (graphile-worker detects the clash and moves on).
 */
export async function prepareQueue(options: { pool: pg.Pool; logger?: Logger }): Promise<void> {
  await runMigrations({ pgPool: options.pool, schema: QUEUE_SCHEMA, logger: workerLogger(options.logger) });
}

export interface StartWorkerOptions {
  /** The worker opens its own pool (concurrency + 2 connections at least 10), apart from the API's. */
  connectionString: string;
  /** The tasks this worker runs (jobs of other tasks wait for a worker that has them). */
  taskList: Partial<TaskList>;
  /** Jobs run at once in this process (default 4). */
  concurrency?: number;
  logger?: Logger;
  /** How often to look for jobs scheduled in the future or retried (ms, default 2000); new jobs wake the worker at once. */
  pollInterval?: number;
  /** Recurring tasks, in graphile-worker's crontab format (deduplicated across processes). */
  crontab?: string;
}

export interface JobWorker {
  /** Stops taking jobs and waits for the running ones to finish. Safe to call twice. */
  stop(): Promise<void>;
}

/**
 * Starts a worker on the given tasks. It runs only the tasks it is given, so a process can specialise.
 * Signals are left to the caller (server/ handles SIGTERM and calls stop()).
 */
export async function startWorker(options: StartWorkerOptions): Promise<JobWorker> {
  const concurrency = options.concurrency ?? 4;
  // A pool of the worker's own, with pg's default types (graphile-worker expects bigint ids as strings).
  // We own it rather than graphile-worker: it ends its pool without waiting and without an error
  // listener, so a database that stops right after (the embedded one at shutdown) crashed the process.
  const pool = new pg.Pool({ connectionString: options.connectionString, max: Math.max(10, concurrency + 2) });
  const ignoreDisconnect = (error: Error) => options.logger?.debug({ err: error }, "job worker connection closed");
  pool.on("error", ignoreDisconnect);
  pool.on("connect", (client) => client.on("error", ignoreDisconnect));
  const runner = await run({
    pgPool: pool,
    schema: QUEUE_SCHEMA,
    concurrency,
    pollInterval: options.pollInterval,
    taskList: options.taskList as GraphileTaskList,
    // Never a crontab file from the working directory: only what the caller passes.
    parsedCronItems: options.crontab ? parseCrontab(options.crontab) : [],
    noHandleSignals: true,
    logger: workerLogger(options.logger),
    // Without batching, graphile-worker 0.18 records a finished job fire-and-forget, and stop() can end the
    // pool first: the job stays locked for 4 hours and then runs again. A batcher (even of 0 ms) is
    // awaited by stop() before the pool ends.
    preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0 } },
  });
  runner.promise.catch((error: unknown) => options.logger?.error({ err: error }, "the job worker stopped on an error"));
  let stopping: Promise<void> | undefined;
  return { stop: () => (stopping ??= runner.stop().finally(() => pool.end())) };
}

const levels: Record<LogLevel, "error" | "warn" | "info" | "debug"> = {
  error: "error",
  warning: "warn",
  info: "info",
  debug: "debug",
};

/** graphile-worker's logs into pino, keeping the job's identity and error but never its payload. */
function workerLogger(logger: Logger | undefined): WorkerLogger {
  return new WorkerLogger((scope) => (level, message, meta) => {
    if (!logger) return;
    const job = meta?.job as { id?: string; task_identifier?: string; attempts?: number } | undefined;
    logger[levels[level]](
      {
        queue: { ...scope, jobId: job?.id ?? scope.jobId, task: job?.task_identifier, attempts: job?.attempts },
        ...(meta?.error !== undefined ? { err: meta.error } : {}),
      },
      message,
    );
  });
}
