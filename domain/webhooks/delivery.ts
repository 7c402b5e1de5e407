// Delivery of outbox events: at least once, signed, routed, retried on a fixed schedule.
//
// Every event gets one `deliver-event` job, added in the transaction that wrote the event (so a job
// exists exactly when the event does). Each job makes ONE attempt:
//   1. In one statement (a transaction when an attempt was left without an outcome or the integration has
//      no signing secret yet), under the delivery row's lock: the merchant's link (an event of a merchant
//      unlinked from the integration is not sent), the subscription gate (at the first attempt
//      of a cycle), the destination (resolved again at every attempt), and the attempt row claimed, one
//      per (event, attempt number), before anything is sent. Two workers can never make the same attempt:
//      the queue gives a job to one worker (SKIP LOCKED), one job per event at a time (its job key), and
//      the attempt row's primary key refuses a second claim.
//   2. The request, outside any transaction, through the one outbound client (SSRF guard, 5 s, no
//      redirects), signed now with the integration's current secret.
//   3. In a second statement: the outcome on the attempt row and, on failure, the next attempt's job
//      (with `run_at` per RETRY_SCHEDULE_MS) in the same statement; after the last one, `failed`.
// A worker that dies between 1 and 3 leaves an attempt without an outcome and its job locked; when the
// queue hands the job out again (graphile-worker frees the locks of a dead worker after 4 hours, or at
// once with force_unlock_workers) that attempt is recorded as interrupted and a new one is made, with
// the same X-Service-Webhook-Id (the event's id). Nothing is lost; the receiver deduplicates by the id.
//
// Retries are new jobs rather than graphile-worker's own retries, because its backoff (exp(attempts)
// seconds) cannot follow the contract's schedule; its own retries still cover a job that throws (a
// database outage), and step 1 is idempotent.
//
// Steps 1 and 3 take a batch as well as one event: the worker's delivery dispatcher
// (jobs/delivery-dispatcher.ts) claims the attempts of the jobs it took in one statement and records the
// outcomes that came back together in another, where the retry is the job that ran, put off to its time
// (the same key, no new job) and the other jobs are completed, in that statement.
import { sql, type Kysely, type RawBuilder, type Transaction } from "kysely";
import {
  addJob,
  DELIVER_EVENT_KEY_PREFIX,
  DELIVER_EVENT_TASK,
  deliverEventJobKey,
  JOB_TAKER_SETTING,
  QUEUE_SCHEMA,
  takingDueJobs,
} from "../../db/job-queue.ts";
import type { Database } from "../../db/schema.ts";
import { CompiledAtFirstRun } from "../../db/compiled-statement.ts";
import { inGenericPlanStatement, type Executor } from "../../db/transactions.ts";
import type { OutboxEvent } from "../../db/tables/events.table.ts";
import type { DeliveryStatus, NotSentReason, SigningSecretScheme } from "../../db/tables/webhooks.table.ts";
import type { Clock } from "../clock.ts";
import { DomainError } from "../errors.ts";
import { eventWithheldFromIntegration, isEventWithheld } from "../merchants/unlinked-merchants.ts";
import { destinationCandidates, pickDestination, resolveDestination, type DestinationCandidates } from "./destinations.ts";
import type { OutboundHttpClient, OutboundResult } from "../outbound/http-client.ts";
import { signatureHeader, standardWebhookHeaders, SIGNATURE_HEADER, VALIDATION_TOKEN_HEADER, WEBHOOK_ID_HEADER, type SigningSecret } from "./signature.ts";
import { ensureSigningSecret, openSigningSecret } from "./signing-secrets.ts";
import { getEventView, type EventView } from "../events/event-log.ts";
import { deliveryJobExpression } from "../events/outbox.ts";
import { isSubscribed, subscribedTo } from "./subscriptions.ts";
import type { Sealed } from "../../db/tables/sealed.ts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The waits before each retry: 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, 24 h, 24 h (9 attempts, about 2.7 days). */
export const RETRY_SCHEDULE_MS: readonly number[] = [1 * MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 24 * HOUR, 24 * HOUR];
export const ATTEMPTS_PER_CYCLE = RETRY_SCHEDULE_MS.length + 1;

/** How long past the request deadline an attempt without an outcome may still be in flight. */
const IN_FLIGHT_GRACE_MS = 10_000;

/**
 * Makes the current transaction commit without waiting for the WAL flush. Only delivery bookkeeping does:
 * an attempt's claim or outcome lost in a PostgreSQL crash is made again, with the same
 * X-Service-Webhook-Id (at least once, as documented), and a burst of deliveries no longer waits on the
 * disk one flush at a time. The events themselves are written by transactions that wait.
 */
const ASYNC_COMMIT = sql`set_config('synchronous_commit', 'off', true)`;

/** Adds the event's delivery job in the caller's transaction (the one that wrote the event). */
export async function enqueueDelivery(trx: Kysely<Database>, eventId: string, runAt?: Date): Promise<void> {
  await addJob(trx, DELIVER_EVENT_TASK, { eventId }, { jobKey: deliverEventJobKey(eventId), ...(runAt ? { runAt } : {}) });
}

export interface DeliveryDependencies {
  db: Kysely<Database>;
  clock: Clock;
  http: OutboundHttpClient;
}

export type DeliveryOutcome =
  | { kind: "gone" } // the event no longer exists
  | { kind: "settled"; status: string } // already delivered, failed or not sent: nothing to do
  | { kind: "in_flight" } // another job is making an attempt: this one comes back later
  | { kind: "not_sent"; reason: NotSentReason }
  | {
      kind: "attempted";
      attempt: number;
      targetUrl: string;
      result: OutboundResult;
      /** From the event's creation (its enqueue) to the receiver's answer, on the integration's clock. */
      eventAgeMs: number;
      next: "delivered" | "retry" | "failed" | "superseded";
      nextAttemptAt?: Date;
    };

/** What an attempt is decided on, read with the delivery row's lock. */
type AttemptContext = OutboxEvent &
  DestinationCandidates & {
    delivery_status: DeliveryStatus;
    attempts_made: number;
    cycle_start: number;
    last_attempt: number | null;
    last_finished_at: Date | null;
    last_attempted_at: Date | null;
    last_job_id: string | null;
    clock_offset_ms: number | string;
    withheld: boolean;
    subscribed: boolean;
    secret: Sealed | null;
    secret_scheme: SigningSecretScheme | null;
  };

export interface Claim {
  attempt: number;
  /** The event's creation, moved to the service's clock (a Sandbox integration's clock runs ahead by its offset). */
  eventCreatedAt: number;
  url: string;
  validationToken: string | null;
  secret: SigningSecret;
  rawBody: string;
}

/** Makes the event's next delivery attempt (the `deliver-event` task). `jobId`: the queue job running it. */
export async function deliverEvent(deps: DeliveryDependencies, eventId: string, jobId: string | null): Promise<DeliveryOutcome> {
  const { db, clock, http } = deps;
  const claimed = (await claimInOneStatement(db, [{ eventId, jobId }], clock.now())).get(eventId) ?? (await claimInTransaction(deps, eventId, jobId));
  if ("kind" in claimed) return claimed;

  const result = await sendSigned(http, claimed.url, eventId, claimed.rawBody, claimed.secret, claimed.validationToken, clock.now());

  const eventAgeMs = Math.max(0, clock.now().getTime() - claimed.eventCreatedAt);
  const base = { kind: "attempted" as const, attempt: claimed.attempt, targetUrl: claimed.url, result, eventAgeMs };
  const decided = (await recordOutcomes(db, [{ eventId, attempt: claimed.attempt, result, jobId }], [], clock.now(), "add_job")).get(eventId)!;
  // The claim is not in this database (committed without waiting, on a primary lost before its standby had
  // it): the job must not end as if its attempt were recorded. Thrown, the queue runs it again.
  if (!decided.claim_found)
    throw new Error(`webhook ${eventId}: the claim of attempt ${claimed.attempt} is not in the database (a primary lost?); its job runs again`);
  // No decision: taken for interrupted meanwhile, or a resend started a new cycle during the request: the
  // newer job decides what follows.
  if (decided.next === null) return { ...base, next: "superseded" };
  return decided.next === "retry" ? { ...base, next: "retry", nextAttemptAt: decided.next_attempt_at! } : { ...base, next: decided.next };
}

/** An attempt made, to record: its event, its number, what the receiver did, the queue job that made it. */
export interface AttemptMade {
  eventId: string;
  attempt: number;
  result: OutboundResult;
  jobId: string | null;
}

/** What follows an attempt: null when superseded (taken for interrupted, or a resend started a new cycle). */
export interface AttemptDecision {
  next: "delivered" | "retry" | "failed" | null;
  next_attempt_at: Date | null;
  /** The attempt's claim is in the database: not when a primary was lost before its standby had the claim. */
  claim_found: boolean;
}

/**
 * The outcomes of attempts in one statement, one attempt or a batch: the deliveries' locks, each attempt's
 * outcome, and `delivered`, or the next attempt (at RETRY_SCHEDULE_MS), or `failed` after the cycle's last
 * attempt. The next attempt is a queue job: with `add_job`, a new one (the caller completes the job that
 * ran); with `{ settleJobsOf: takerId }`, the job that ran is put off to the next attempt and kept, and
 * every other job (this statement's attempts' and `finishedJobs`: jobs that ended without an attempt) is
 * completed, all in this statement, each only while it is still the one taken: locked by `takerId`, for
 * its event (see `nextAttemptOnTheSameJob`).
 */
export async function recordOutcomes(
  db: Kysely<Database>,
  attempts: readonly AttemptMade[],
  finishedJobs: readonly DeliveryJob[],
  now: Date,
  jobs: "add_job" | { settleJobsOf: string },
): Promise<Map<string, AttemptDecision>> {
  const settleJobsOf = jobs === "add_job" ? undefined : jobs.settleJobsOf;
  const taken = [...attempts, ...finishedJobs].filter((job) => job.jobId !== null);
  const input: OutcomesInput = {
    eventIds: attempts.map((a) => a.eventId),
    attempts: attempts.map((a) => a.attempt),
    statuses: attempts.map((a) => a.result.status ?? null),
    durations: attempts.map((a) => a.result.durationMs),
    errors: attempts.map((a) => (a.result.ok ? null : (a.result.failure ?? null))),
    oks: attempts.map((a) => a.result.ok),
    jobIds: attempts.map((a) => a.jobId),
    now,
    ...(settleJobsOf === undefined ? {} : { takerId: settleJobsOf, ranJobIds: taken.map((job) => job.jobId), ranEventIds: taken.map((job) => job.eventId) }),
  };
  const statement = settleJobsOf === undefined ? outcomesWithNewJobs : outcomesOnTheSameJobs;
  // Every row of the tables is reached by a probe of its key from the batch's rows (a lateral subquery that
  // locks, or is limited, cannot be turned into a join), and updated through the row the probe found: as
  // plain joins, the plans cached for this statement scanned whole tables (hash joins and hashed subplans
  // over every delivery and attempt), a cost that grows with the tables, not with the batch. Since no plan
  // of it scans, one generic plan serves every batch size (planned again for each, it cost 0.1 ms a batch).
  const rows = await inGenericPlanStatement(db, (executor) => statement.execute(executor, input));
  const decisions = new Map<string, AttemptDecision>();
  for (const row of rows)
    if (row.event_id !== null) decisions.set(row.event_id, { next: row.next, next_attempt_at: row.next_attempt_at, claim_found: row.claim_found });
  return decisions;
}

/** The outcomes' statement's values: each attempt's, by position, and (settling the jobs that ran) the taker and those jobs. */
interface OutcomesInput extends Record<string, unknown> {
  eventIds: string[];
  attempts: number[];
  statuses: Array<number | null>;
  durations: number[];
  errors: Array<string | null>;
  oks: boolean[];
  jobIds: Array<string | null>;
  now: Date;
  takerId?: string;
  ranJobIds?: Array<string | null>;
  ranEventIds?: string[];
}

const OUTCOME_FIELDS = ["eventIds", "attempts", "statuses", "durations", "errors", "oks", "jobIds", "now"] as const;

/** The outcomes' statements, one for each way of scheduling the next attempt. */
const outcomesWithNewJobs = new CompiledAtFirstRun<OutcomesInput, OutcomeRow>(OUTCOME_FIELDS, (_db, input) => outcomesQuery(input, nextAttemptAsNewJob));
const outcomesOnTheSameJobs = new CompiledAtFirstRun<OutcomesInput, OutcomeRow>([...OUTCOME_FIELDS, "takerId", "ranJobIds", "ranEventIds"], (_db, input) =>
  outcomesQuery(input, nextAttemptOnTheSameJob(input)),
);

type OutcomeRow = AttemptDecision & { event_id: string | null };

function outcomesQuery(input: OutcomesInput, nextJobs: RawBuilder<unknown>) {
  return sql<OutcomeRow>`
    with outcome as (
      select * from unnest(${input.eventIds}::uuid[], ${input.attempts}::int[], ${input.statuses}::int[],
                           ${input.durations}::int[], ${input.errors}::text[],
                           ${input.oks}::bool[], ${input.jobIds}::text[])
             as o(event_id, attempt, response_status, duration_ms, error, ok, job_id)
       order by event_id
    ), delivery as (
      -- Locked in the events' order, as every statement that locks several deliveries does.
      select o.*, d.cycle_start, d.delivery_row
        from outcome o
       cross join lateral (select cycle_start, ctid as delivery_row from event_deliveries where event_id = o.event_id for update) d
    ), open_attempt as (
      select delivery.*, a.attempt_row
        from delivery
       cross join lateral (
             select ctid as attempt_row from delivery_attempts
              where event_id = delivery.event_id and attempt = delivery.attempt and finished_at is null limit 1) a
    ), recorded as (
      update delivery_attempts a
         set response_status = p.response_status, duration_ms = p.duration_ms, error = p.error, finished_at = ${input.now}
        from open_attempt p
       where a.ctid = p.attempt_row and a.finished_at is null
      returning a.event_id, a.attempt, p.cycle_start, p.delivery_row, p.ok, p.job_id
    ), decided as (
      select event_id, job_id, delivery_row,
             case when ok then 'delivered' when attempt - cycle_start >= ${ATTEMPTS_PER_CYCLE} then 'failed' else 'retry' end as next,
             case when not ok and attempt - cycle_start < ${ATTEMPTS_PER_CYCLE}
                  then ${input.now}::timestamptz + (${RETRY_SCHEDULE_MS}::int8[])[attempt - cycle_start] * interval '1 millisecond' end as next_attempt_at
        from recorded
       where cycle_start < attempt
    ), settled as (
      update event_deliveries d
         set status = case when decided.next = 'retry' then d.status else decided.next end,
             delivered_at = case when decided.next = 'delivered' then ${input.now}::timestamptz else d.delivered_at end,
             next_attempt_at = decided.next_attempt_at, updated_at = ${input.now}
        from decided
       where d.ctid = decided.delivery_row
    ), ${nextJobs}
    select o.event_id, decided.next, decided.next_attempt_at, (select count(job) from next_job) as jobs, ${ASYNC_COMMIT} as async_commit,
           claim.found is not null as claim_found
      from (select 1) as one
      left join (outcome o
                 left join decided on decided.event_id = o.event_id
                 left join lateral (select true as found from delivery_attempts a where a.event_id = o.event_id and a.attempt = o.attempt limit 1) claim on true)
        on true`;
}

/** The next attempt as a new job of the event's key (replacing the one that ran, which its runner completes). */
const nextAttemptAsNewJob = sql`next_job as (
      select ${deliveryJobExpression(sql.ref("decided.event_id"), sql.ref("decided.next_attempt_at"))} as job from decided where decided.next = 'retry'
    )`;

/**
 * The next attempt on the job that ran (put off and unlocked; its key kept), and every other job of `ran`
 * completed. A job whose key a resend took meanwhile has no decision here (a new cycle): it is completed.
 * Should a retry's job have lost its key all the same (graphile-worker spends such a job), it is completed
 * and the retry goes to the key's pending job through `add_job`, never as a second job.
 *
 * A job is completed only when its event needs it no more: an outcome decided here, a delivery settled
 * (delivered, failed, not sent), an event gone, or its key held by a newer job. One that comes back with no
 * decision while its event's delivery is still open, or not even begun, is given back, due at once: the
 * claim it was sent on is not in this database. Claims commit without waiting for the standby, so a
 * primary lost after the claim but before its standby had it leaves the outcome to be recorded on the
 * promoted standby, which never saw the attempt; completing the job there would leave the event with no
 * delivery and no job. Run again, it is sent again with the same webhook id (at least once).
 *
 * A job is touched only while it is still the one taken: locked by `takerId` and for its event. Its id
 * alone is not enough: a job taken on a primary that was then lost, with the transaction that added it
 * (visible there before its standby confirmed it), leaves its id to be given again by the new primary's
 * sequence to another event's job, which completing by id would delete undelivered.
 */
function nextAttemptOnTheSameJob(input: Pick<OutcomesInput, "takerId" | "ranJobIds" | "ranEventIds">) {
  const jobs = sql.id(QUEUE_SCHEMA, "_private_jobs");
  const takerId = input.takerId;
  return sql`ran as (
      select * from unnest(${input.ranJobIds}::bigint[], ${input.ranEventIds}::text[]) as r(job_id, event_id)
    ), still_taken as (
      -- A probe of the queue's key for each job, as for the tables above: as a join, the cached plan scanned
      -- the queue's whole table, which its churn leaves with many dead rows between vacuums.
      select j.id, j.key, r.event_id from ran r
       cross join lateral (select j.id, j.key from ${jobs} j
                            where j.id = r.job_id and j.locked_by = ${takerId} and j.payload->>'eventId' = r.event_id limit 1) j
    ), still_needed as (
      select t.id from still_taken t
       where t.key = ${DELIVER_EVENT_KEY_PREFIX}::text || t.event_id
         and t.id not in (select decided.job_id::bigint from decided where decided.job_id is not null)
         and exists (select from events e where e.id = t.event_id::uuid)
         and not exists (select from event_deliveries d where d.event_id = t.event_id::uuid and d.status <> 'pending')
    ), given_back as (
      update ${jobs} j set run_at = now(), locked_at = null, locked_by = null from still_needed n where j.id = n.id
    ), rescheduled as (
      update ${jobs} j set run_at = decided.next_attempt_at, locked_at = null, locked_by = null, attempts = 0
        from decided join still_taken t on t.id = decided.job_id::bigint
       where j.id = t.id and decided.next = 'retry' and t.key is not null
      returning j.id
    ), keyless as (
      select decided.event_id, decided.next_attempt_at from decided join still_taken t on t.id = decided.job_id::bigint
       where decided.next = 'retry' and t.key is null
    ), next_job as (
      select id::text as job from rescheduled
      union all
      select ${deliveryJobExpression(sql.ref("keyless.event_id"), sql.ref("keyless.next_attempt_at"))}::text from keyless
    ), completed as (
      -- Names the taker first (an InitPlan, run before any row is deleted): the queue's guard deletes a
      -- dispatcher's job only for the statement that names it (JOB_TAKER_SETTING, db/job-queue.ts).
      delete from ${jobs} j
       where (select set_config(${JOB_TAKER_SETTING}, ${takerId}, true)) = ${takerId}
         and j.id in (select id from still_taken) and j.id not in (select id from rescheduled) and j.id not in (select id from still_needed)
    )`;
}

/**
 * What an attempt is decided on, one row per event of `eventIds` (an array of the events' ids: an index
 * lookup whatever the events table's size or statistics): the event, its delivery (from `locked`, the
 * caller's CTE that locks it, with its row's address as `delivery_row`; none before the event's first
 * attempt), its last attempt (a probe of its key), the gates, the destination's candidates and the first
 * that applies (pickDestination's rules), and the secret.
 */
function attemptContext(db: Executor, eventIds: RawBuilder<unknown>) {
  return sql`
      select e.*, d.event_id is not null as has_delivery, d.delivery_row, coalesce(d.status, 'pending') as delivery_status,
             coalesce(d.attempts_made, 0) as attempts_made, coalesce(d.cycle_start, 0) as cycle_start,
             la.attempt as last_attempt, la.finished_at as last_finished_at, la.attempted_at as last_attempted_at, la.job_id as last_job_id, i.clock_offset_ms,
             ${eventWithheldFromIntegration("e")} as withheld,
             ${subscribedTo("i", sql.ref("e.type"))} as subscribed,
             s.secret, s.scheme as secret_scheme, destination.*,
             coalesce(nullif(destination.charge_url, ''), destination.tenant_url, destination.own_url) as url,
             ${ASYNC_COMMIT} as async_commit
        from events e
        left join locked d on d.event_id = e.id
        join integration_clients i on i.id = e.integration_client_id
        left join lateral (
             select attempt, finished_at, attempted_at, job_id from delivery_attempts
              where event_id = e.id and attempt = d.attempts_made limit 1) la on true
        left join webhook_signing_secrets s on s.integration_client_id = e.integration_client_id
        left join lateral (${destinationCandidates(db, { type: sql.ref("e.type"), chargeId: sql.ref("e.charge_id"), integrationClientId: sql.ref("e.integration_client_id"), merchantAccountId: sql.ref("e.merchant_account_id") })}) destination on true
       where e.id = any(${eventIds})`;
}

/**
 * The context's columns a claim answers with: what claimOf reads. The rest of the context decides in SQL
 * (the gates, the last attempt) and is not sent back: each column of each event is written out as text by
 * PostgreSQL and parsed again by the worker, at every claim of every event.
 */
const CLAIMED_COLUMNS = [
  "id",
  "integration_client_id",
  "created_at",
  "payload",
  "clock_offset_ms",
  "delivery_status",
  "attempts_made",
  "secret",
  "secret_scheme",
  "charge_url",
  "tenant_id",
  "tenant_url",
  "tenant_token",
  "own_id",
  "own_url",
  "own_token",
] as const satisfies ReadonlyArray<keyof AttemptContext>;

function claimedColumns() {
  return sql.join(CLAIMED_COLUMNS.map((column) => sql.ref(`context.${column}`)));
}

/** What the one-statement claim read and decided. */
type ClaimRow = Pick<AttemptContext, (typeof CLAIMED_COLUMNS)[number]> & {
  act: "claim" | "not_sent" | null;
  not_sent_reason: NotSentReason | null;
  written: boolean;
};

/** A delivery job to run: the event, and the queue job running it (recorded on the attempt). */
export interface DeliveryJob {
  eventId: string;
  jobId: string | null;
}

/**
 * The claim of the common attempt in one statement, for one event or a batch of them: the delivery rows
 * locked (or written, at an event's first attempt), the gates and the destination decided in SQL as
 * `claimInTransaction` decides them, and the attempt rows or `not_sent` written. Per event, undefined when
 * the transaction must decide: an attempt without an outcome (in flight or interrupted), an integration
 * without a signing secret yet, or a delivery row written by a concurrent resend after this statement's
 * snapshot (nothing is written then).
 */
export async function claimInOneStatement(
  db: Kysely<Database>,
  jobs: readonly DeliveryJob[],
  now: Date,
): Promise<Map<string, Claim | DeliveryOutcome | undefined>> {
  const input = { eventIds: jobs.map((job) => job.eventId), jobIds: jobs.map((job) => job.jobId), now };
  // One generic plan for every batch size: planned again for each, this long statement cost about 1 ms of
  // planning a claim, more than running it for a few events.
  const rows = await inGenericPlanStatement(db, (executor) => claimStatement.execute(executor, input));
  const claims = new Map<string, Claim | DeliveryOutcome | undefined>();
  for (const job of jobs) claims.set(job.eventId, { kind: "gone" });
  for (const context of rows) claims.set(context.id, claimOf(context));
  return claims;
}

/** A delivery job the dispatcher took, and what its claim decided (undefined: the one-event path decides). */
export interface TakenDelivery {
  job: DeliveryJob & { jobId: string };
  claimed: Claim | DeliveryOutcome | undefined;
}

/**
 * Takes up to `limit` due delivery jobs for `takerId` (db/job-queue.ts takingDueJobs: its lease) and claims
 * their attempts as claimInOneStatement does, in one statement: the take commits with the claims, so a job
 * is never held without the claim's answer, nor claimed without being taken. A job whose event another job
 * of the take claims (graphile-worker leaves one runnable job per event, so this only guards), or whose
 * payload names no event, is left to the one-event path (`claimed` undefined).
 */
export async function takeAndClaim(db: Kysely<Database>, takerId: string, limit: number, now: Date): Promise<TakenDelivery[]> {
  const rows = await inGenericPlanStatement(db, (executor) => takeAndClaimStatement.execute(executor, { takerId, limit, now }));
  return rows.map((row) => {
    const job = { eventId: row.named_event_id ?? "", jobId: row.job_id };
    if (!row.claims) return { job, claimed: undefined };
    if (row.id === null) return { job, claimed: { kind: "gone" } };
    try {
      return { job, claimed: claimOf(row as ClaimRow) };
    } catch {
      // Its claim committed but cannot be read (its integration's secret does not open): the one-event path
      // meets the same error and gives back this job alone, where a throw here would hold every job taken.
      return { job, claimed: undefined };
    }
  });
}

/** The claims' statements, compiled at their first run (this module and the events' outbox import each other). */
const claimStatement = new CompiledAtFirstRun<ClaimInput, ClaimRow>(["eventIds", "jobIds", "now"], claimQuery);
const takeAndClaimStatement = new CompiledAtFirstRun<TakeAndClaimInput, TakenClaimRow>(["takerId", "limit", "now"], takeAndClaimQuery);

interface ClaimInput extends Record<string, unknown> {
  eventIds: string[];
  jobIds: Array<string | null>;
  now: Date;
}

interface TakeAndClaimInput extends Record<string, unknown> {
  takerId: string;
  limit: number;
  now: Date;
}

/** A job taken, and its event's claim (the context's columns null when its event is gone or not claimed here). */
type TakenClaimRow = Nullable<ClaimRow> & { job_id: string; named_event_id: string | null; claims: boolean };
type Nullable<T> = { [K in keyof T]: T[K] | null };

function claimQuery(db: Kysely<Database>, input: ClaimInput) {
  // The events' ids as an array each time they are looked up (`= any`), not a subquery over `batch`: as a
  // subquery the planner scanned every event and joined the batch last (with the events table's statistics
  // behind its growth, 3–18 ms a claim under a steady flow of payments instead of well under 1 ms).
  const eventIds = sql`${input.eventIds}::uuid[]`;
  return sql<ClaimRow>`
    with batch as (
      select * from unnest(${eventIds}, ${input.jobIds}::text[]) as b(event_id, job_id)
    ), ${claimCtes(db, eventIds, input.now)}
    select ${claimedColumns()}, decided.act, decided.not_sent_reason,
           context.id in (select event_id from updated) or context.id in (select event_id from inserted) as written
      from context left join decided on decided.id = context.id`;
}

function takeAndClaimQuery(db: Kysely<Database>, input: TakeAndClaimInput) {
  // The jobs taken, and one of each event, as arrays unnested, as claimQuery receives its jobs: the planner
  // then estimates them as it does there (a function over an array: 10 rows) and joins them by hash. From
  // the update's own estimate (a LIMIT whose value a generic plan does not know) it looped over every pair
  // of the claim's rows: 25 ms for a take of 100 in a burst, against 10 ms taken and claimed apart.
  const eventIds = sql`(select event_ids from claimed_jobs)::uuid[]`;
  return sql<TakenClaimRow>`
    with ${takingDueJobs(DELIVER_EVENT_TASK, input.takerId, input.limit)}, taken as (
      select array_agg(id::text order by id) as job_ids, array_agg(payload->>'eventId' order by id) as named_event_ids from taken_jobs
    ), jobs_taken as (
      select t.job_id, t.named_event_id,
             case when t.named_event_id ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$' then t.named_event_id::uuid end as event_id
        from unnest((select job_ids from taken), (select named_event_ids from taken)) as t(job_id, named_event_id)
    ), claimed_jobs as (
      select array_agg(event_id order by event_id) as event_ids, array_agg(job_id order by event_id) as job_ids
        from (select distinct on (event_id) event_id, job_id from jobs_taken where event_id is not null order by event_id, job_id::bigint) one_of_each
    ), batch as (
      select * from unnest(${eventIds}, (select job_ids from claimed_jobs)) as b(event_id, job_id)
    ), ${claimCtes(db, eventIds, input.now)}
    select t.job_id, t.named_event_id, b.job_id is not null as claims, ${claimedColumns()}, decided.act, decided.not_sent_reason,
           context.id in (select event_id from updated) or context.id in (select event_id from inserted) as written
      from jobs_taken t
      left join batch b on b.job_id = t.job_id
      left join context on context.id = b.event_id
      left join decided on decided.id = context.id`;
}

/**
 * The claim's CTEs after `batch` (event_id, job_id: one job per event), whose events' ids `eventIds` gives
 * as an array: the deliveries locked, the context, the gates, the decision and the rows written.
 */
function claimCtes(db: Kysely<Database>, eventIds: RawBuilder<unknown>, now: unknown) {
  return sql`locked as (
      -- Each delivery locked by a probe of its key, in the events' order (as a scan with "= any", the plan
      -- cached for this statement read the whole table), with the row's address for the update below.
      select d.* from (select event_id from batch order by event_id) b
       cross join lateral (select *, ctid as delivery_row from event_deliveries where event_id = b.event_id for update) d
    ), context as (${attemptContext(db, eventIds)}
    ), gated as (
      select context.*,
             case when withheld then 'merchant_unlinked'
                  when attempts_made = cycle_start and not subscribed then 'not_subscribed'
                  when url is null then 'no_target' end as not_sent_reason
        from context
       where delivery_status = 'pending' and (last_attempt is null or last_finished_at is not null)
    ), decided as (
      select gated.*, batch.job_id as claiming_job_id,
             case when not_sent_reason is not null then 'not_sent' when secret is not null then 'claim' end as act
        from gated join batch on batch.event_id = gated.id
    ), updated as (
      update event_deliveries d
         set status = case when decided.act = 'not_sent' then 'not_sent' else d.status end,
             not_sent_reason = decided.not_sent_reason,
             attempts_made = case when decided.act = 'claim' then d.attempts_made + 1 else d.attempts_made end,
             target_url = case when decided.act = 'claim' then decided.url else d.target_url end,
             next_attempt_at = null, updated_at = ${now}
        from decided
       where d.ctid = decided.delivery_row and decided.has_delivery and decided.act is not null
      returning d.event_id
    ), inserted as (
      insert into event_deliveries (event_id, status, not_sent_reason, attempts_made, target_url, updated_at)
      select id, case when act = 'claim' then 'pending' else 'not_sent' end, not_sent_reason,
             case when act = 'claim' then 1 else 0 end, case when act = 'claim' then url end, ${now}
        from decided where not has_delivery and act is not null
          on conflict (event_id) do nothing
      returning event_id
    ), attempt as (
      insert into delivery_attempts (event_id, attempt, attempted_at, target_url, job_id)
      select id, attempts_made + 1, ${now}, url, claiming_job_id from decided
       where act = 'claim' and (id in (select event_id from updated) or id in (select event_id from inserted))
    )`;
}

/** What the one-statement claim decided for one event (see claimInOneStatement). */
function claimOf(context: ClaimRow): Claim | DeliveryOutcome | undefined {
  if (context.delivery_status !== "pending") return { kind: "settled", status: context.delivery_status };
  if (context.act === null || !context.written) return undefined;
  if (context.act === "not_sent") return { kind: "not_sent", reason: context.not_sent_reason! };
  const destination = pickDestination(context)!;
  const secret = openSigningSecret(context.integration_client_id, { secret: context.secret!, scheme: context.secret_scheme! });
  const eventCreatedAt = context.created_at.getTime() - Number(context.clock_offset_ms);
  return {
    attempt: context.attempts_made + 1,
    eventCreatedAt,
    url: destination.url,
    validationToken: destination.validationToken,
    secret,
    rawBody: JSON.stringify(context.payload),
  };
}

/**
 * The claim in a transaction, for what the one statement leaves: an attempt without an outcome, a first
 * secret to create, or a clash with a resend.
 */
async function claimInTransaction(deps: DeliveryDependencies, eventId: string, jobId: string | null): Promise<Claim | DeliveryOutcome> {
  const { db, clock, http } = deps;
  return db.transaction().execute(async (trx): Promise<Claim | DeliveryOutcome> => {
    const now = clock.now();
    await sql`
      insert into event_deliveries (event_id, status, updated_at)
      select id, 'pending', ${now} from events where id = ${eventId}
      on conflict (event_id) do nothing`.execute(trx);
    const found = await sql<AttemptContext>`
      with locked as (
        select *, ctid as delivery_row from event_deliveries where event_id = ${eventId} for update
      ) ${attemptContext(trx, sql`array[${eventId}::uuid]`)}`.execute(trx);
    const context = found.rows[0];
    if (!context) return { kind: "gone" };
    if (context.delivery_status !== "pending") return { kind: "settled", status: context.delivery_status };

    if (context.last_attempt !== null && context.last_finished_at === null) {
      const ownEarlierRun = jobId !== null && context.last_job_id === jobId;
      const stale = now.getTime() - context.last_attempted_at!.getTime() > http.timeoutMs + IN_FLIGHT_GRACE_MS;
      if (!ownEarlierRun && !stale) {
        // A resend raced an attempt in flight: come back once it has had time to finish.
        await enqueueDelivery(trx, eventId, new Date(now.getTime() + http.timeoutMs + IN_FLIGHT_GRACE_MS));
        return { kind: "in_flight" };
      }
      await trx
        .updateTable("delivery_attempts")
        .set({ error: "interrupted", finished_at: now })
        .where("event_id", "=", eventId)
        .where("attempt", "=", context.last_attempt)
        .execute();
    }

    // At every attempt: an event queued before its merchant was unlinked stops too.
    if (context.withheld) return notSent(trx, eventId, "merchant_unlinked", now);
    if (context.attempts_made === context.cycle_start && !context.subscribed) return notSent(trx, eventId, "not_subscribed", now);
    const destination = pickDestination(context);
    if (!destination) return notSent(trx, eventId, "no_target", now);

    const attempt = context.attempts_made + 1;
    await sql`
      with claimed as (
        insert into delivery_attempts (event_id, attempt, attempted_at, target_url, job_id)
        values (${eventId}, ${attempt}, ${now}, ${destination.url}, ${jobId})
      )
      update event_deliveries set attempts_made = ${attempt}, target_url = ${destination.url}, next_attempt_at = null, updated_at = ${now}
       where event_id = ${eventId}`.execute(trx);
    const secret =
      context.secret !== null
        ? openSigningSecret(context.integration_client_id, { secret: context.secret, scheme: context.secret_scheme! })
        : await ensureSigningSecret(trx, context.integration_client_id, now);
    const eventCreatedAt = context.created_at.getTime() - Number(context.clock_offset_ms);
    return { attempt, eventCreatedAt, url: destination.url, validationToken: destination.validationToken, secret, rawBody: JSON.stringify(context.payload) };
  });
}

async function notSent(trx: Transaction<Database>, eventId: string, reason: NotSentReason, now: Date): Promise<DeliveryOutcome> {
  await trx
    .updateTable("event_deliveries")
    .set({ status: "not_sent", not_sent_reason: reason, next_attempt_at: null, updated_at: now })
    .where("event_id", "=", eventId)
    .execute();
  return { kind: "not_sent", reason };
}

/** One signed POST of `rawBody` (the exact bytes signed) with the delivery's headers: our signature and the Standard Webhooks ones. */
export function sendSigned(
  http: OutboundHttpClient,
  url: string,
  webhookId: string,
  rawBody: string,
  signing: SigningSecret,
  validationToken: string | null,
  at: Date,
): Promise<OutboundResult> {
  return http.postJson(url, rawBody, {
    [SIGNATURE_HEADER]: signatureHeader(rawBody, signing.secret, at),
    [WEBHOOK_ID_HEADER]: webhookId,
    ...standardWebhookHeaders(webhookId, rawBody, signing, at),
    ...(validationToken ? { [VALIDATION_TOKEN_HEADER]: validationToken } : {}),
  });
}

/**
 * Delivers an event again now (POST .../resend): same payload and X-Service-Webhook-Id, the destination,
 * the merchant's link and the subscription gate of now (409 EventNotDeliverableError when it would not be
 * sent), a new cycle
 * of the whole retry schedule. The pending retry, if any, is replaced (one job per event).
 */
export async function resendEvent(db: Kysely<Database>, integrationClientId: string, eventId: string, now: Date, retentionStart: Date): Promise<EventView> {
  return db.transaction().execute(async (trx) => {
    const event = await trx
      .selectFrom("events")
      .selectAll()
      .where("id", "=", eventId)
      .where("integration_client_id", "=", integrationClientId)
      .where("created_at", ">=", retentionStart)
      .executeTakeFirst();
    if (!event) throw new DomainError("EventNotFoundError", "No event with this id in the integration (events are kept 30 days)");
    if (await isEventWithheld(trx, event)) {
      throw new DomainError("EventNotDeliverableError", "The event would not be sent now", {
        cause: "merchant_unlinked: the event's merchant account is, or was when it occurred, unlinked from the integration",
      });
    }
    if (!(await isSubscribed(trx, integrationClientId, event.type))) {
      throw new DomainError("EventNotDeliverableError", "The event would not be sent now", { cause: `not_subscribed: ${event.type} is not in enabledEvents` });
    }
    const destination = await resolveDestination(trx, event);
    if (!destination)
      throw new DomainError("EventNotDeliverableError", "The event would not be sent now", {
        cause: "no_target: no destination resolves (no charge webhookUrl, tenant URL or integration webhook URL)",
      });
    await trx
      .insertInto("event_deliveries")
      .values({ event_id: eventId, status: "pending", updated_at: now })
      .onConflict((oc) => oc.column("event_id").doNothing())
      .execute();
    const delivery = await trx.selectFrom("event_deliveries").select("attempts_made").where("event_id", "=", eventId).forUpdate().executeTakeFirstOrThrow();
    await trx
      .updateTable("event_deliveries")
      .set({
        status: "pending",
        not_sent_reason: null,
        cycle_start: delivery.attempts_made,
        target_url: destination.url,
        next_attempt_at: now,
        updated_at: now,
      })
      .where("event_id", "=", eventId)
      .execute();
    await enqueueDelivery(trx, eventId);
    // Read before the commit: once committed, a worker may already be sending it.
    return (await getEventView(trx, integrationClientId, eventId))!;
  });
}
