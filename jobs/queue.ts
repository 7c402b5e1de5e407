// The job workers, on graphile-worker: each process runs the tasks it is given (jobs/tasks.ts). Adding a
// job, the payloads and the queue's schema are below the domain, in db/job-queue.ts.
import { EventEmitter } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { parseCrontab, run, type Runner, type TaskList as GraphileTaskList, type WorkerEvents } from "graphile-worker";
import pg from "pg";
import type { Logger } from "pino";
import {
  DELIVER_EVENT_TASK,
  DELIVERY_JOBS_CHANNEL,
  DEFAULT_HEARTBEAT_INTERVAL_MS,
  DEFAULT_STALE_WORKER_AFTER_MS,
  forgetWorkers,
  QUEUE_SCHEMA,
  queueLogger,
  recordWorkerHeartbeats,
  releaseJobsOfStaleWorkers,
  releaseJobsOfWorkers,
  waitingJobsByTask,
} from "../db/job-queue.ts";
import { APPLICATION_NAME } from "../db/connect.ts";
import type { TaskList } from "./tasks.ts";
import { startDeliveryDispatcher, type DeliveryDispatcherOptions } from "./delivery-dispatcher.ts";
import { samplePool, type Metrics } from "../runtime/metrics.ts";

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
  /** How often this process records that its workers are alive, and releases the jobs of dead ones (ms, default 30 s). */
  heartbeatIntervalMs?: number;
  /** A worker not seen for this long is dead: its jobs run again on a live worker (ms, default 2 min). */
  staleWorkerAfterMs?: number;
  /**
   * How long stop() lets the jobs in hand finish (ms, default WORKER_STOP_GRACE_MS); those still running
   * then are given back, due at once, for another worker, rather than left locked until the heartbeat is stale.
   */
  stopGraceMs?: number;
  /**
   * The process's metrics: heartbeats are counted, and each scrape samples the worker's pool and the
   * queue's waiting jobs. Only worker processes sample the queue (a database-wide figure): summed over
   * processes it is counted once per worker process, so dashboards take max() over them, not sum().
   */
  metrics?: Metrics;
  /**
   * Webhook deliveries run by the delivery dispatcher (jobs/delivery-dispatcher.ts: taken in batches,
   * sent at once, their outcomes recorded together) rather than one graphile-worker job at a time.
   */
  deliveries?: Pick<DeliveryDispatcherOptions, "db" | "clock" | "http" | "metrics" | "batchSize" | "maxInFlight" | "paceMs">;
}

/**
 * A stopping worker's bound for the jobs in hand (a release's SIGTERM): below the outbound deadline
 * (DELIVERY_TIMEOUT_MS, 5 s), so a delivery to a receiver that takes its time is given back to another
 * worker, sent again at once with the same webhook id, rather than recorded as a timeout and put off to its
 * retry; and well within the API's own grace (10 s), so a process running both stops in that time.
 */
const WORKER_STOP_GRACE_MS = 2_000;

export interface JobWorker {
  /**
   * Stops taking jobs and waits for the running ones to finish, up to the stop's grace; those still running
   * then are given back for another worker at once. Safe to call twice.
   */
  stop(): Promise<void>;
}

/**
 * The worker pool's client. Behind synchronous replication (Patroni's synchronous_mode) a job is taken only
 * once the standby has the take, hence the transaction that wrote the job: a primary lost while a commit
 * waits for its standby shows that commit to other sessions, and a worker must not send a webhook or a
 * message for a payment the promoted standby never had. Set as the connection opens, before the pool hands
 * it out (a query issued from the pool's `connect` event would run beside the first caller's); connections
 * live at most CONNECTION_LIFETIME_SECONDS, so one opened while the standby was away (no setting then)
 * takes it within that long of the standby's return.
 */
class WorkerClient extends pg.Client {
  // pg-pool connects its clients with a callback.
  override connect(): Promise<pg.Client>;
  override connect(callback: (error: Error) => void): void;
  override connect(callback?: (error: Error) => void): Promise<pg.Client> | undefined {
    const connected = super.connect().then(() =>
      this.query("select set_config('synchronous_commit', 'on', false) where current_setting('synchronous_standby_names') <> ''").then(
        () => this as pg.Client,
        // A connection that cannot take the setting is not handed out half-set: closed, and the error is the pool's.
        (error: unknown) =>
          this.end().then(
            () => Promise.reject(error),
            () => Promise.reject(error),
          ),
      ),
    );
    if (!callback) return connected;
    connected.then(() => callback(undefined as unknown as Error), callback);
    return undefined;
  }
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
  // A connect timeout, so that an unreachable database fails the queue's queries (and the heartbeat) in
  // seconds, as the API's pool does, instead of hanging them until the operating system gives up.
  // Its statements (taking, completing and failing jobs, heartbeats) commit without waiting for the WAL
  // flush: a job whose taking or completion a PostgreSQL crash loses runs again, which every task already
  // allows, and commits no longer queue behind the disk one flush each.
  // Not db/connect.ts's connection settings (its value types), but its name: the worker's connections are
  // those an idle worker process keeps open, by which `npm run db:migrate` knows a release serves.
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    application_name: APPLICATION_NAME,
    // The dispatcher's taking and its LISTEN connection beside graphile-worker's.
    max: Math.max(10, concurrency + 2) + (options.deliveries ? 2 : 0),
    connectionTimeoutMillis: 10_000,
    maxLifetimeSeconds: CONNECTION_LIFETIME_SECONDS,
    options: "-c synchronous_commit=off",
    Client: WorkerClient,
  });
  const ignoreDisconnect = (error: Error) => options.logger?.debug({ err: error }, "job worker connection closed");
  pool.on("error", ignoreDisconnect);
  pool.on("connect", (client) => client.on("error", ignoreDisconnect));
  // The graphile-worker ids of the runner running now (none while it is being started again), kept alive
  // by the heartbeat.
  let liveWorkerIds = new Set<string>();
  // With the dispatcher, graphile-worker runs every task but the deliveries.
  const runnerTasks = Object.fromEntries(
    Object.entries(options.taskList).filter(([task]) => !(options.deliveries && task === DELIVER_EVENT_TASK)),
  ) as GraphileTaskList;
  const startRunner = async (): Promise<{ runner: Runner; ids: Set<string> }> => {
    // graphile-worker 0.18 locks jobs with the id of the process's worker pool (`pool-…`), and older code
    // paths with a worker's own id: the heartbeat is kept for both, so a live process never looks dead.
    const ids = new Set<string>();
    const events: WorkerEvents = new EventEmitter();
    events.on("pool:create", ({ workerPool }) => void ids.add(workerPool.id));
    events.on("worker:create", ({ worker }) => void ids.add(worker.workerId));
    if (DELIVER_EVENT_TASK in runnerTasks) relayDeliveryJobs(events, options.logger);
    const runner = await run({
      pgPool: pool,
      schema: QUEUE_SCHEMA,
      concurrency,
      pollInterval: options.pollInterval,
      taskList: runnerTasks,
      // Never a crontab file from the working directory: only what the caller passes.
      parsedCronItems: options.crontab ? parseCrontab(options.crontab) : [],
      noHandleSignals: true,
      events,
      logger: queueLogger(options.logger),
      // Without batching, graphile-worker 0.18 records a finished job fire-and-forget, and stop() can end the
      // pool first: the job stays locked for 4 hours and then runs again. A batcher (even of 0 ms) is
      // awaited by stop() before the pool ends.
      // Jobs are taken a batch at a time (one query for up to `concurrency` jobs rather than one per job),
      // and the jobs finished within 50 ms are completed by one statement: in a burst of deliveries that is
      // a fraction of a statement per job instead of about one. A worker killed in those 50 ms leaves its
      // finished jobs locked, to run again (every task allows it: a delivery is at least once).
      preset: { worker: { completeJobBatchDelay: COMPLETE_JOB_BATCH_DELAY_MS, failJobBatchDelay: 0, localQueue: { size: concurrency } } },
    });
    liveWorkerIds = ids;
    return { runner, ids };
  };

  let current = await startRunner();
  let stopping = false;
  const wakeFromBackoff = new AbortController();
  /** Releases the ended runner's jobs and starts a new one, retrying until the database answers (undefined once stopping). */
  const startAgainReleasing = async (endedIds: Set<string>) => {
    for (let attempt = 0; !stopping; attempt++) {
      try {
        await releaseJobsOfWorkers(pool, [...endedIds]);
        return await startRunner();
      } catch (error) {
        const delayMs = Math.min(RESTART_MAX_DELAY_MS, RESTART_FIRST_DELAY_MS * 2 ** attempt);
        options.logger?.warn({ err: error }, `could not start the job worker again; trying again in ${delayMs} ms`);
        // A timer that holds the process open: a worker-only process waits for its database, it does not exit.
        await sleep(delayMs, undefined, { signal: wakeFromBackoff.signal }).catch(() => undefined);
      }
    }
    return undefined;
  };
  // graphile-worker ends its runner, without rejecting its promise, when it cannot record a job's outcome
  // (it does not retry a lost connection). Left alone, a worker-only process would then have nothing to
  // do and exit with code 0 during a database outage. Instead the runner is started again once the
  // database answers, and the jobs the ended one still held are released at once rather than waiting
  // for its heartbeat to go stale: a job whose completion was lost runs again, which every task allows.
  const supervision = (async () => {
    for (;;) {
      await current.runner.promise.catch((error: unknown) => options.logger?.error({ err: error }, "the job worker stopped on an error"));
      liveWorkerIds = new Set();
      if (stopping) {
        // Stopped cleanly: it finished its jobs, so its heartbeat goes.
        await forgetWorkers(pool, [...current.ids]).catch((error: unknown) =>
          options.logger?.warn({ err: error }, "could not forget the stopped workers' heartbeats"),
        );
        return;
      }
      options.logger?.error({ workers: [...current.ids] }, "the job worker stopped by itself (the database was unreachable?); starting it again");
      const started = await startAgainReleasing(current.ids);
      if (started === undefined) return;
      current = started;
      options.logger?.info("the job worker is running again");
      if (stopping) await stopRunner(current.runner); // asked to stop while it was starting: the next turn sees it end
    }
  })();
  const dispatcher = options.deliveries
    ? await startDeliveryDispatcher({ ...options.deliveries, pool, logger: options.logger, pollIntervalMs: options.pollInterval })
    : undefined;
  const heartbeat = startHeartbeat(pool, () => [...liveWorkerIds, ...(dispatcher ? [dispatcher.workerId] : [])], options);
  const stopSampling = options.metrics ? sampleQueue(options.metrics, pool, Object.keys(options.taskList)) : () => undefined;
  let stopped: Promise<void> | undefined;
  const stop = async () => {
    stopping = true;
    stopSampling();
    wakeFromBackoff.abort();
    const graceMs = options.stopGraceMs ?? WORKER_STOP_GRACE_MS;
    const deadline = Date.now() + graceMs;
    let abandoned = false;
    try {
      // The dispatcher and graphile-worker's runner finish their jobs in hand side by side, while the
      // heartbeat still keeps them; what is still running at the grace's end is given back, due at once.
      const runnerStopped = stopRunner(current.runner).then(() => supervision);
      await dispatcher?.stop(graceMs);
      const ended = await settledWithin(runnerStopped, deadline - Date.now());
      await heartbeat.stop();
      if (ended) await runnerStopped;
      else {
        abandoned = true;
        const ids = [...current.ids];
        options.logger?.warn({ workers: ids }, `stopping: jobs still running after ${graceMs} ms; given back for another worker`);
        // Their tasks may still finish here before the process exits: a job run twice, which every task allows.
        await releaseJobsOfWorkers(pool, ids).catch((error: unknown) =>
          options.logger?.warn({ err: error }, "could not give back the running jobs; another worker takes them once this one's heartbeat is stale"),
        );
      }
      if (dispatcher) await forgetWorkers(pool, [dispatcher.workerId]).catch(() => undefined);
    } finally {
      // A task still running may hold a connection: the pool is then left to the process's exit.
      if (abandoned) void pool.end().catch(() => undefined);
      else await pool.end();
    }
  };
  return { stop: () => (stopped ??= stop()) };
}

/** The worker's pool, and the queue's waiting jobs of each of `tasks` (0 when none waits), at each scrape. */
function sampleQueue(metrics: Metrics, pool: pg.Pool, tasks: string[]): () => void {
  const stopPool = samplePool(metrics, "queue", pool);
  const stopJobs = metrics.addSampler("jobs-waiting", async () => {
    const rows = await waitingJobsByTask(pool);
    for (const task of tasks) {
      const row = rows.find((candidate) => candidate.task === task);
      metrics.jobs.waiting.set({ task }, row?.waiting ?? 0);
      metrics.jobs.oldestWaitingAge.set({ task }, row?.oldestSeconds ?? 0);
    }
  });
  return () => {
    stopPool();
    stopJobs();
  };
}

/** True when `work` settles within `ms` (its failure is its own caller's to log). */
async function settledWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  const timer = new AbortController();
  const ended = await Promise.race([
    work.then(
      () => true,
      () => true,
    ),
    sleep(Math.max(0, ms), false, { signal: timer.signal }).catch(() => true),
  ]);
  timer.abort();
  return ended;
}

/** A runner already ending by itself refuses to stop ("Runner is already stopped"); the supervision awaits its end either way. */
const stopRunner = (runner: Runner) =>
  runner.stop().catch((error: unknown) => {
    if ((error as Error).message !== "Runner is already stopped") throw error;
  });

/** How long a worker connection is used before the pool opens a new one (see WorkerClient). */
const CONNECTION_LIFETIME_SECONDS = 60;
/** The first wait before starting an ended runner again, doubled up to the last (ms). */
const RESTART_FIRST_DELAY_MS = 500;
const RESTART_MAX_DELAY_MS = 10_000;
/** How long a finished job waits for others to be completed with it in one statement. */
const COMPLETE_JOB_BATCH_DELAY_MS = 50;

/**
 * Every interval: records this process's workers as alive, then releases the jobs of workers gone quiet
 * (every worker process does both; releasing is idempotent). A beat that fails (the database is away) is
 * logged and the next one tries again.
 */
function startHeartbeat(pool: pg.Pool, liveWorkerIds: () => string[], options: StartWorkerOptions): { stop(): Promise<void> } {
  const intervalMs = options.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS;
  const staleAfterMs = options.staleWorkerAfterMs ?? DEFAULT_STALE_WORKER_AFTER_MS;
  let beating: Promise<void> = Promise.resolve();
  const beat = async () => {
    try {
      const ids = liveWorkerIds();
      await recordWorkerHeartbeats(pool, ids);
      if (ids.length > 0) options.metrics?.jobs.heartbeats.inc();
      const released = await releaseJobsOfStaleWorkers(pool, staleAfterMs);
      if (released.length > 0)
        options.logger?.warn({ workers: released }, `released the jobs of ${released.length} job workers not seen for ${staleAfterMs} ms`);
    } catch (error) {
      options.logger?.warn({ err: error }, "job worker heartbeat failed; trying again at the next one");
    }
  };
  beating = beat();
  const timer = setInterval(() => {
    beating = beating.then(beat);
  }, intervalMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await beating;
    },
  };
}

/**
 * A runner that runs the deliveries itself (no dispatcher) hears their jobs' channel too (db/job-queue.ts
 * DELIVERY_JOBS_CHANNEL), on its own listening connection, as it hears its own: each notification wakes as
 * many of its workers as it names jobs.
 */
function relayDeliveryJobs(events: WorkerEvents, logger: Logger | undefined): void {
  events.on("pool:listen:success", ({ client }) => {
    client
      .query(`LISTEN "${DELIVERY_JOBS_CHANNEL}"`)
      .catch((error: unknown) => logger?.warn({ err: error }, "could not listen for delivery jobs; they wait for the poll"));
  });
  events.on("pool:listen:notification", ({ workerPool, message }) => {
    if (message.channel !== DELIVERY_JOBS_CHANNEL) return;
    let count = 1;
    try {
      count = Number((JSON.parse(message.payload ?? "{}") as { count?: unknown }).count ?? 1) || 1;
    } catch {
      // Not the statement's payload: one job, as graphile-worker counts a notification without its count.
    }
    workerPool.nudge(count);
  });
}
