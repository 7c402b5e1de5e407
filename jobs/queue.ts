// The job workers, on graphile-worker: each process runs the tasks it is given (jobs/tasks.ts). Adding a
// job, the payloads and the queue's schema are below the domain, in db/job-queue.ts.
import { parseCrontab, run, type TaskList as GraphileTaskList } from "graphile-worker";
import pg from "pg";
import type { Logger } from "pino";
import { QUEUE_SCHEMA, queueLogger } from "../db/job-queue.ts";
import type { TaskList } from "./tasks.ts";

export interface StartWorkerOptions {
  /** The worker opens its own pool (a connection per job at once, plus its listener and spare; at least 10), apart from the API's. */
  connectionString: string;
  /** The tasks this worker runs (jobs of other tasks wait for a worker that has them). */
  taskList: Partial<TaskList>;
  /** Jobs run at once in this process (default 4; the service passes COBRO_WORKER_CONCURRENCY). */
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
  // Its statements (taking, completing and failing jobs) commit without waiting for the WAL flush: a job
  // whose taking or completion a PostgreSQL crash loses runs again, which every task already allows, and
  // commits no longer queue behind the disk one flush each.
  const pool = new pg.Pool({ connectionString: options.connectionString, max: Math.max(10, concurrency + 2), options: "-c synchronous_commit=off" });
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
    logger: queueLogger(options.logger),
    // Without batching, graphile-worker 0.18 records a finished job fire-and-forget, and stop() can end the
    // pool first: the job stays locked for 4 hours and then runs again. A batcher (even of 0 ms) is
    // awaited by stop() before the pool ends.
    // Jobs are taken a batch at a time (one query for up to `concurrency` jobs rather than one per job).
    preset: { worker: { completeJobBatchDelay: 0, failJobBatchDelay: 0, localQueue: { size: concurrency } } },
  });
  runner.promise.catch((error: unknown) => options.logger?.error({ err: error }, "the job worker stopped on an error"));
  let stopping: Promise<void> | undefined;
  return { stop: () => (stopping ??= runner.stop().finally(() => pool.end())) };
}
