// The delivery dispatcher: the worker's way of running `deliver-event` jobs in batches rather than one
// graphile-worker job run at a time. Each turn it
//   1. takes up to `batchSize` due delivery jobs (SKIP LOCKED, locked by its own worker id, kept alive by
//      the worker's heartbeat: a dispatcher that dies leaves them to be released and taken again once its
//      heartbeat is stale, its lease) and
//   2. claims their attempts, both in one statement (domain/webhooks/delivery.ts takeAndClaim, the same
//      decisions as one event's claim; the rare event that needs a transaction, an interrupted attempt or a
//      first secret, runs the one-event path, whole);
//   3. sends them all at once through the one outbound client (SSRF guard at connect, 5 s, no redirects),
//      whose undici Agent keeps a pool of kept-alive connections per destination origin;
//   4. records the outcomes as they come back, every outcome that arrived meanwhile in one statement (with
//      the jobs completed, or put off to the retry's time): a slow or dead receiver holds back only its own
//      deliveries, never the others of its batch.
// It is woken by LISTEN on the queue's channels, notified when a transaction that adds due jobs commits
// (graphile-worker's, and the delivery jobs' own: no poll delay), and looks every `pollIntervalMs` for
// retries whose time has come. Its looks, and its outcomes' statements, are paced (`paceMs`): idle, it
// looks at once; in a steady flow, where every commit of a few payments would wake it, each look takes what
// came due since the last one, and each statement records what came back since the last one.
import { setTimeout as sleep } from "node:timers/promises";
import type { Kysely } from "kysely";
import type pg from "pg";
import type { Logger } from "pino";
import {
  DEFAULT_DELIVERY_PACE_MS,
  DELIVER_EVENT_TASK,
  DELIVERY_JOBS_CHANNEL,
  DELIVERY_TAKER_PREFIX,
  giveBackJobs,
  giveBackJobsNotHeld,
  JOBS_INSERTED_CHANNEL,
} from "../db/job-queue.ts";
import type { Database } from "../db/schema.ts";
import type { Clock } from "../domain/clock.ts";
import type { OutboundHttpClient } from "../domain/outbound/http-client.ts";
import {
  deliverEvent,
  recordOutcomes,
  sendSigned,
  takeAndClaim,
  type AttemptMade,
  type Claim,
  type DeliveryJob,
  type DeliveryOutcome,
} from "../domain/webhooks/delivery.ts";
import type { Metrics } from "../runtime/metrics.ts";
import { reportDelivery } from "./tasks.ts";

export interface DeliveryDispatcherOptions {
  /** The worker's pool: jobs are given back on it, and one of its connections listens (they are taken on `db`, with their claims). */
  pool: pg.Pool;
  db: Kysely<Database>;
  clock: Clock;
  http: OutboundHttpClient;
  metrics: Metrics;
  logger?: Logger;
  /** Jobs taken per statement (default DEFAULT_DELIVERY_BATCH). */
  batchSize?: number;
  /** Deliveries in hand at once, sent or waiting for their outcome's statement (default DEFAULT_DELIVERIES_IN_FLIGHT). */
  maxInFlight?: number;
  /** How often to look for retries come due (ms, default 2000); new deliveries wake it at once. */
  pollIntervalMs?: number;
  /**
   * The shortest time between two looks for due jobs, and between two outcomes' statements (ms, default
   * DEFAULT_DELIVERY_PACE_MS): what comes meanwhile waits for the next one, so a steady flow is taken and
   * recorded in batches. An idle dispatcher looks and records at once.
   */
  paceMs?: number;
}

export interface DeliveryDispatcher {
  /** The worker id its jobs are locked by: the heartbeat keeps it alive. */
  readonly workerId: string;
  /**
   * Stops taking jobs, and waits for the deliveries in hand to be sent and recorded; after `graceMs` those
   * still waiting for their receiver are given back, due at once, for another worker (their attempts, left
   * without an outcome, are recorded as interrupted there and made again with the same webhook id).
   */
  stop(graceMs?: number): Promise<void>;
}

/** Measured with `node bench/webhook-burst.ts` (docs/performance.md). */
export const DEFAULT_DELIVERY_BATCH = 100;
export const DEFAULT_DELIVERIES_IN_FLIGHT = 200;
/** How long a job given back after a database error waits before it is taken again. */
const GIVE_BACK_DELAY_MS = 5_000;
/** A job locked by the dispatcher but not in its hands this long after its take is one whose take's answer was lost. */
const LOST_TAKE_AFTER_MS = 15_000;

/** What a delivery in hand came to, waiting for the statement that records it. */
type Finished = { job: DeliveryJob & { jobId: string }; attempt?: AttemptMade; claim?: Claim };

export async function startDeliveryDispatcher(options: DeliveryDispatcherOptions): Promise<DeliveryDispatcher> {
  const { pool, db, clock, http, metrics, logger } = options;
  const batchSize = options.batchSize ?? DEFAULT_DELIVERY_BATCH;
  const maxInFlight = options.maxInFlight ?? DEFAULT_DELIVERIES_IN_FLIGHT;
  const paceMs = options.paceMs ?? DEFAULT_DELIVERY_PACE_MS;
  const workerId = `${DELIVERY_TAKER_PREFIX}${crypto.randomUUID()}`;
  const runs = metrics.jobs.runs.labels(DELIVER_EVENT_TASK, "success");
  const failedRuns = metrics.jobs.runs.labels(DELIVER_EVENT_TASK, "failure");
  const log = (line: string) => logger?.info(line);
  // Outcomes recorded wake the taker only when its last look left due jobs behind for want of room (it
  // filled every place it had), and once they leave room for a batch worth its statement: a take's cost
  // grows with the jobs due, not with those it takes, so a take at every outcome's statement, of the few
  // jobs it freed, made a burst slower; and in a steady flow, where each look takes all that is due, it
  // found nothing. New jobs (their notification) and the poll wake it whatever the room.
  const roomToLookAgain = Math.max(1, Math.floor(Math.min(batchSize, maxInFlight) / 2));
  let dueLeftBehind = false;

  let stopping = false;
  // The jobs in hand, by id (counted: after a failover the new primary may give a job the id of one still
  // in hand), from their take until their outcome is recorded or they are given back.
  const held = new Map<string, number>();
  let inHand = 0;
  const hold = (jobId: string) => {
    held.set(jobId, (held.get(jobId) ?? 0) + 1);
    inHand++;
  };
  const release = (jobId: string) => {
    const count = held.get(jobId) ?? 0;
    if (count <= 1) held.delete(jobId);
    else held.set(jobId, count - 1);
    inHand--;
  };
  let taking = false;
  let wokenWhileTaking = false;
  const pending = new Set<Promise<void>>();
  const track = (work: Promise<void>) => {
    pending.add(work);
    void work.finally(() => pending.delete(work));
  };
  /** Jobs to give back that the database did not take back yet: tried again at each poll. */
  let toGiveBack: string[] = [];
  const giveBack = async (jobIds: string[]) => {
    toGiveBack.push(...jobIds);
    const ids = toGiveBack;
    toGiveBack = [];
    try {
      await giveBackJobs(pool, workerId, ids, GIVE_BACK_DELAY_MS);
    } catch (error) {
      toGiveBack.push(...ids);
      logger?.warn({ err: error }, `could not give back ${ids.length} delivery jobs; trying again`);
    }
  };

  // Outcomes waiting for their statement: recorded together, one statement at a time (group commit).
  let finished: Finished[] = [];
  let recording: Promise<void> | undefined;
  // Past the stop's grace: outcomes still arriving are not recorded, their jobs were given back.
  let abandoned = false;
  const record = (done: Finished) => {
    if (abandoned) return;
    finished.push(done);
    recording ??= recordAll().finally(() => {
      recording = undefined;
    });
  };
  const recordingPace = paced(paceMs);
  const recordAll = async () => {
    while (finished.length > 0) {
      // Within `paceMs` of the last statement, the outcomes wait for the rest of it, and go together.
      const wait = recordingPace.waitMs();
      if (wait > 0) await sleep(wait);
      recordingPace.started();
      const batch = finished;
      finished = [];
      const attempts = batch.flatMap((done) => (done.attempt ? [done.attempt] : []));
      const others = batch.flatMap((done) => (done.attempt ? [] : [done.job]));
      try {
        const decisions = await recordOutcomes(db, attempts, others, clock.now(), { settleJobsOf: workerId });
        for (const done of batch) {
          runs.inc();
          if (!done.attempt || !done.claim) continue;
          const decided = decisions.get(done.attempt.eventId);
          // The outcome's statement (recordOutcomes) gave the job back, to be sent again, unless its event needs it no more.
          if (decided && !decided.claim_found)
            logger?.warn(
              `webhook ${done.attempt.eventId}: the claim of attempt ${done.attempt.attempt} is not in the database (a primary lost?); its job runs again if the event still needs it`,
            );
          const eventAgeMs = Math.max(0, clock.now().getTime() - done.claim.eventCreatedAt);
          const base = { kind: "attempted" as const, attempt: done.attempt.attempt, targetUrl: done.claim.url, result: done.attempt.result, eventAgeMs };
          const outcome: DeliveryOutcome =
            !decided || decided.next === null
              ? { ...base, next: "superseded" }
              : decided.next === "retry"
                ? { ...base, next: "retry", nextAttemptAt: decided.next_attempt_at! }
                : { ...base, next: decided.next };
          reportDelivery(metrics, log, done.attempt.eventId, outcome);
        }
      } catch (error) {
        // Their attempts stay without an outcome: taken again, each is recorded as interrupted and made
        // again with the same webhook id.
        logger?.warn({ err: error }, `could not record ${batch.length} delivery outcomes; their jobs run again`);
        for (const _ of batch) failedRuns.inc();
        await giveBack(batch.map((done) => done.job.jobId));
      }
      for (const done of batch) release(done.job.jobId);
      if (dueLeftBehind && maxInFlight - inHand >= roomToLookAgain) wake();
    }
  };

  /** One job taken: its claim decided, then sent, or the one-event path for what the claim left. */
  const deliver = async (job: DeliveryJob & { jobId: string }, claimed: Claim | DeliveryOutcome | undefined): Promise<void> => {
    try {
      if (claimed === undefined) {
        reportDelivery(metrics, log, job.eventId, await deliverEvent({ db, clock, http }, job.eventId, job.jobId));
        record({ job });
      } else if ("kind" in claimed) {
        reportDelivery(metrics, log, job.eventId, claimed);
        record({ job });
      } else {
        const result = await sendSigned(http, claimed.url, job.eventId, claimed.rawBody, claimed.secret, claimed.validationToken, clock.now());
        record({ job, attempt: { eventId: job.eventId, attempt: claimed.attempt, result, jobId: job.jobId }, claim: claimed });
      }
    } catch (error) {
      logger?.warn({ err: error }, `webhook ${job.eventId}: delivery failed before its outcome; its job runs again`);
      failedRuns.inc();
      await giveBack([job.jobId]);
      release(job.jobId);
      wake();
    }
  };

  // A look within `paceMs` of the last one waits for the rest of it: in a steady flow each look then takes
  // what came due meanwhile, all at once. A full batch is taken again at once (more is due).
  const lookingPace = paced(paceMs);
  let pacedWake: NodeJS.Timeout | undefined;
  /** Takes batches while there is room in hand and jobs are due. */
  const take = async () => {
    wokenWhileTaking = false;
    while (!stopping && inHand < maxInFlight) {
      const limit = Math.min(batchSize, maxInFlight - inHand);
      lookingPace.started();
      // Taken and claimed in one statement: a failure leaves nothing taken, to be looked at again.
      const taken = await takeAndClaim(db, workerId, limit, clock.now());
      for (const { job } of taken) hold(job.jobId);
      for (const { job, claimed } of taken) track(deliver(job, claimed));
      // Fewer than asked: nothing more was due when it looked. Jobs committed since notify the queue's
      // channel after their commit, which wakes it again; a look that would find none is a statement saved.
      // As many as asked (its hands filled, or a batch's worth): more may be due, taken as room is freed.
      dueLeftBehind = taken.length === limit;
      if (!dueLeftBehind) break;
    }
  };
  const wake = () => {
    if (stopping) return;
    if (taking) {
      wokenWhileTaking = true;
      return;
    }
    const wait = lookingPace.waitMs();
    if (wait > 0) {
      pacedWake ??= setTimeout(() => {
        pacedWake = undefined;
        wake();
      }, wait);
      return;
    }
    taking = true;
    track(
      take()
        .catch((error: unknown) => logger?.warn({ err: error }, "could not take delivery jobs; trying again at the next look"))
        .finally(() => {
          taking = false;
          if (wokenWhileTaking) wake();
        }),
    );
  };

  // LISTEN on a connection of its own, opened again after a loss (at the next poll).
  let listener: pg.PoolClient | undefined;
  const listen = async () => {
    if (listener || stopping) return;
    const client = await pool.connect();
    const drop = (error?: Error) => {
      if (listener !== client) return;
      listener = undefined;
      client.release(error ?? true);
    };
    client.on("notification", wake);
    client.on("error", drop);
    try {
      await client.query(`LISTEN "${JOBS_INSERTED_CHANNEL}"; LISTEN "${DELIVERY_JOBS_CHANNEL}"`);
    } catch (error) {
      client.release(true);
      throw error;
    }
    listener = client;
  };
  await listen();
  // Jobs locked by this dispatcher that it does not hold: a take committed whose answer was lost with its
  // connection (the primary lost, a network cut). The heartbeat would keep them locked for good, so they
  // are given back once their take is older than any answer could take to arrive.
  let lastLostTakeLook = Date.now();
  const giveBackLostTakes = async () => {
    lastLostTakeLook = Date.now();
    try {
      const given = await giveBackJobsNotHeld(pool, workerId, [...held.keys()], LOST_TAKE_AFTER_MS);
      if (given > 0) logger?.warn(`gave back ${given} delivery jobs taken by this dispatcher whose take never reached it`);
    } catch (error) {
      logger?.warn({ err: error }, "could not look for delivery jobs taken without reaching the dispatcher; looking again later");
    }
  };
  const poll = setInterval(() => {
    if (toGiveBack.length > 0) void giveBack([]);
    if (Date.now() - lastLostTakeLook >= LOST_TAKE_AFTER_MS / 2) track(giveBackLostTakes());
    listen().catch((error: unknown) => logger?.warn({ err: error }, "the delivery dispatcher could not listen; looking by polling meanwhile"));
    wake();
  }, options.pollIntervalMs ?? 2000);
  wake();

  let stopped: Promise<void> | undefined;
  const stop = async (graceMs = Number.POSITIVE_INFINITY) => {
    stopping = true;
    clearInterval(poll);
    clearTimeout(pacedWake);
    const settled = (async () => {
      while (pending.size > 0 || recording) await Promise.all([...pending, recording]);
    })();
    const grace = new AbortController();
    const graceOver = await Promise.race([
      settled.then(() => false),
      Number.isFinite(graceMs) ? sleep(graceMs, true, { signal: grace.signal }).catch(() => false) : new Promise<boolean>(() => undefined),
    ]);
    grace.abort();
    if (graceOver) {
      abandoned = true;
      await recording;
      const unfinished = [...held.keys()];
      logger?.warn(`stopping: ${unfinished.length} deliveries still wait for their receivers; given back for another worker`);
      try {
        await giveBackJobs(pool, workerId, unfinished, 0);
      } catch (error) {
        // Left locked: released once this worker's heartbeat is stale.
        logger?.warn({ err: error }, `could not give back ${unfinished.length} delivery jobs; another worker takes them once this one's heartbeat is stale`);
      }
    }
    if (toGiveBack.length > 0) await giveBack([]);
    const client = listener;
    listener = undefined;
    if (client) {
      await client.query(`UNLISTEN "${JOBS_INSERTED_CHANNEL}"; UNLISTEN "${DELIVERY_JOBS_CHANNEL}"`).catch(() => undefined);
      client.release();
    }
  };
  return { workerId, stop: (graceMs) => (stopped ??= stop(graceMs)) };
}

/** Something done at most once every `paceMs`: how long until it may start again, and its start noted. */
function paced(paceMs: number): { waitMs(): number; started(): void } {
  let lastStart = Number.NEGATIVE_INFINITY;
  return {
    waitMs: () => lastStart + paceMs - performance.now(),
    started: () => {
      lastStart = performance.now();
    },
  };
}
