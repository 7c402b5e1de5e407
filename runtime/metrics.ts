// What a Cobro process tells Prometheus: one registry per process (APIs and worker alike, told apart by
// the `role` label), every Cobro series declared here with its labels, so docs, alert rules and the
// dashboard have one place to check names against. Label values are bounded sets written in this file
// or taken from the contract (operationIds); no label ever holds a person's data, a secret, or an id of
// a person. The one id allowed is an integration's, and only in the bounded top-N gauges of waiting events.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { OutboundResult } from "../domain/outbound/http-client.ts";

/** Which part a process runs: the three APIs together, one of them (`--only`), or the worker. */
export type MetricsRole = string;

/** The status classes an HTTP answer is counted under. */
export const STATUS_CLASSES = ["2xx", "3xx", "4xx", "5xx"] as const;

/** How a webhook delivery attempt ended (domain/webhooks/delivery.ts's outcomes, by class). */
export const DELIVERY_OUTCOMES = ["2xx", "4xx", "5xx", "3xx", "timeout", "network", "refused"] as const;

/** Where a charge was created: POST /payment-request, its bulk, the checkout widget's /v1/payments, a Sandbox test charge. */
export const CHARGE_CHANNELS = ["single", "bulk", "widget", "test"] as const;

/** How a provider's failure to take a payer notification is classed (domain/outbound/sender.ts's outcomes). */
export const PROVIDER_ERROR_CLASSES = ["permanent", "temporary"] as const;

/** The pgBackRest backup types, as `pgbackrest info` names them. */
export const BACKUP_TYPES = ["full", "diff", "incr"] as const;

/** How many integrations the waiting-events gauges name at most (the ones with most waiting, oldest first on ties). */
export const WAITING_EVENTS_TOP_N = 10;

/** Seconds buckets for API latencies: a create is a few milliseconds, a bulk of 1,000 a second or two. */
const REQUEST_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Seconds buckets from an event's creation to its receipt: 50 ms when all is well, hours across retries. */
const DELIVERY_SECONDS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 60, 300, 1800, 3600, 6 * 3600, 24 * 3600];

/** How long a scrape waits for the samplers before answering with what it has. */
export const SAMPLE_TIMEOUT_MS = 2_000;

/**
 * Sets gauges just before a scrape, from the database or the process's memory (the queue's waiting jobs, a
 * pool's connections). Registered once per process with `metrics.addSampler`; a sampler that throws or
 * outlasts the timeout leaves its gauges as they were and counts in `cobro_metrics_sample_failures_total`.
 */
export type Sampler = () => Promise<void> | void;

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * The process's registry and every Cobro series in it, with Node.js's defaults (event-loop lag, heap,
 * GC, CPU). Each call makes a new registry, so several services in one process (the tests) do not share
 * counts.
 */
export function createMetrics(role: MetricsRole) {
  const registry = new Registry();
  registry.setDefaultLabels({ role });
  collectDefaultMetrics({ register: registry });
  const with_ = { registers: [registry] };
  const sampleFailures = new Counter({
    name: "cobro_metrics_sample_failures_total",
    help: "Scrape-time samplers that failed or outlasted the scrape's wait, by sampler (their gauges kept their previous values).",
    labelNames: ["sampler"] as const,
    ...with_,
  });
  const samplers = new Map<string, Sampler>();
  let sampling: Promise<void> | undefined;
  const sampleAll = async (timeoutMs: number): Promise<void> => {
    await Promise.all(
      [...samplers].map(async ([name, sample]) => {
        let timer: NodeJS.Timeout | undefined;
        const timedOut = new Promise<"timeout">((resolve) => {
          timer = setTimeout(() => resolve("timeout"), timeoutMs);
        });
        try {
          const outcome = await Promise.race([Promise.resolve().then(sample), timedOut]);
          if (outcome === "timeout") sampleFailures.inc({ sampler: name });
        } catch {
          sampleFailures.inc({ sampler: name });
        } finally {
          clearTimeout(timer);
        }
      }),
    );
  };
  return {
    registry,
    /**
     * Runs `sample` before every scrape. `name` is a fixed word (it labels the failures counter); a second
     * sampler under the same name replaces the first. Returns a function that removes it.
     */
    addSampler(name: string, sample: Sampler): () => void {
      samplers.set(name, sample);
      return () => {
        if (samplers.get(name) === sample) samplers.delete(name);
      };
    },
    /**
     * The text a scrape answers: every sampler run first (at most `timeoutMs`, concurrent scrapes sharing
     * one round), then the registry serialized in Prometheus's text format (`registry.contentType`).
     */
    async scrape(timeoutMs: number = SAMPLE_TIMEOUT_MS): Promise<string> {
      sampling ??= sampleAll(timeoutMs).finally(() => {
        sampling = undefined;
      });
      await sampling;
      return registry.metrics();
    },
    sampleFailures,
    health: {
      // Readiness as Prometheus sees it: /readyz is for load balancers and is not scraped, and `up` only says
      // the process answered the scrape, not that it can reach its database.
      ready: new Gauge({
        name: "cobro_ready",
        help: "1 when the process can serve requests (its database answers: the check of GET /readyz), 0 when that check fails or outlasts the scrape's wait; checked at scrape time.",
        ...with_,
      }),
    },
    http: {
      requestDuration: new Histogram({
        name: "cobro_http_request_duration_seconds",
        help: "Requests answered by the public APIs, by API, contract operationId (or a fixed name outside the contract), method and status class.",
        labelNames: ["api", "operation", "method", "status_class"] as const,
        buckets: REQUEST_SECONDS,
        ...with_,
      }),
      inFlight: new Gauge({
        name: "cobro_http_requests_in_flight",
        help: "Requests received and not yet answered, by API.",
        labelNames: ["api"] as const,
        ...with_,
      }),
    },
    db: {
      poolConnections: new Gauge({
        name: "cobro_db_pool_connections",
        help: "Connections of the process's PostgreSQL pools, by pool and state (total, idle, waiting = clients queued for one).",
        labelNames: ["pool", "state"] as const,
        ...with_,
      }),
      queryErrors: new Counter({
        name: "cobro_db_query_errors_total",
        help: "Statements that failed, by kind (unavailable, timeout, serialization, deadlock, constraint, other).",
        labelNames: ["kind"] as const,
        ...with_,
      }),
    },
    jobs: {
      waiting: new Gauge({
        name: "cobro_jobs_waiting",
        help: "Jobs due and not yet taken, by task (read from the queue at scrape time).",
        labelNames: ["task"] as const,
        ...with_,
      }),
      oldestWaitingAge: new Gauge({
        name: "cobro_jobs_oldest_waiting_age_seconds",
        help: "Age of the oldest job due and not yet taken, by task (0 when none waits).",
        labelNames: ["task"] as const,
        ...with_,
      }),
      runs: new Counter({
        name: "cobro_job_runs_total",
        help: "Job runs by task and outcome (success, failure: retried by the queue).",
        labelNames: ["task", "outcome"] as const,
        ...with_,
      }),
      heartbeats: new Counter({
        name: "cobro_worker_heartbeats_total",
        help: "Heartbeats the worker recorded (one per interval while its runner lives).",
        ...with_,
      }),
    },
    backups: {
      // Sampled by worker processes when COBRO_PGBACKREST_STANZA is set (runtime/backup-gauges.ts).
      age: new Gauge({
        name: "cobro_backup_age_seconds",
        help: "Seconds since the newest completed pgBackRest backup of each type (full, diff, incr) finished, from `pgbackrest info` (the repository is read at most once a minute).",
        labelNames: ["type"] as const,
        ...with_,
      }),
      archiveAge: new Gauge({
        name: "cobro_wal_archive_age_seconds",
        help: "Seconds since the database last archived a WAL segment (pg_stat_archiver on the primary; archive_timeout closes a segment at least every minute while anything is written).",
        ...with_,
      }),
      archivePending: new Gauge({
        name: "cobro_wal_archive_pending_segments",
        help: "Closed WAL segments the primary has not archived yet (from its current WAL position and pg_stat_archiver's last archived segment).",
        ...with_,
      }),
      archiveFailing: new Gauge({
        name: "cobro_wal_archive_failing",
        help: "1 when the primary's last attempt to archive a WAL segment failed (a failure newer than the last success in pg_stat_archiver), 0 otherwise.",
        ...with_,
      }),
    },
    money: {
      chargesCreated: new Counter({
        name: "cobro_charges_created_total",
        help: "Charges created, by kind (standard, draft, short-lived, checkout) and channel (single, bulk, widget, test).",
        labelNames: ["kind", "channel"] as const,
        ...with_,
      }),
      transfersReceived: new Counter({
        name: "cobro_transfers_received_total",
        help: "Transfers received, by source (bank-feed, simulation), result (matched, unmatched) and, when unmatched, reason (expired, already_paid, canceled, no_cuil_match, no_pending, ambiguous); a transaction id already recorded is not counted again.",
        labelNames: ["source", "result", "reason"] as const,
        ...with_,
      }),
      matchedCents: new Counter({
        name: "cobro_transfers_matched_cents_total",
        help: "Amounts of matched transfers, in cents, by source.",
        labelNames: ["source"] as const,
        ...with_,
      }),
      reconciliationBatchSize: new Histogram({
        name: "cobro_reconciliation_batch_transfers",
        help: "Transfers per reconciliation batch of single-transfer requests (the bank feed's single operation, simulate-payment), each batch one transaction.",
        buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
        ...with_,
      }),
      reconciliationBatchWait: new Histogram({
        name: "cobro_reconciliation_batch_wait_seconds",
        help: "How long a reconciliation batch's first transfer waited for the batch to be sent (0 on an idle service, at most the window).",
        buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1],
        ...with_,
      }),
    },
    webhooks: {
      deliveries: new Counter({
        name: "cobro_webhook_deliveries_total",
        help: "Webhook delivery attempts by outcome (2xx, 3xx, 4xx, 5xx, timeout, network, refused by the URL guard).",
        labelNames: ["outcome"] as const,
        ...with_,
      }),
      attemptsToDeliver: new Histogram({
        name: "cobro_webhook_attempts_to_deliver",
        help: "Attempts an event took until its receipt was acknowledged.",
        buckets: [1, 2, 3, 4, 5, 6, 7, 8, 9],
        ...with_,
      }),
      receiptLatency: new Histogram({
        name: "cobro_webhook_receipt_latency_seconds",
        help: "Seconds from an event's creation (its enqueue) to the 2xx that acknowledged it.",
        buckets: DELIVERY_SECONDS,
        ...with_,
      }),
      eventsWaiting: new Gauge({
        name: "cobro_webhook_events_waiting",
        help: `Events not yet acknowledged, for the ${WAITING_EVENTS_TOP_N} integrations with most waiting (read at scrape time).`,
        labelNames: ["integration"] as const,
        ...with_,
      }),
      oldestWaitingAge: new Gauge({
        name: "cobro_webhook_oldest_waiting_event_age_seconds",
        help: `Age of the oldest event not yet acknowledged, for the same ${WAITING_EVENTS_TOP_N} integrations.`,
        labelNames: ["integration"] as const,
        ...with_,
      }),
    },
    notifications: {
      messages: new Counter({
        name: "cobro_notifications_total",
        help: "Payer notifications by channel (email, whatsapp), kind (initial, advance_reminder, due_date, first_due_date_passed, second_due_date, payment_confirmation) and final status (sent, simulated in the Sandbox, failed, canceled when its send came due).",
        labelNames: ["channel", "kind", "status"] as const,
        ...with_,
      }),
      providerErrors: new Counter({
        name: "cobro_notification_provider_errors_total",
        help: "Provider failures by channel and class (permanent: refused for good; temporary: no answer or an answer that says later, retried until the attempts run out).",
        labelNames: ["channel", "class"] as const,
        ...with_,
      }),
      chatCapUse: new Gauge({
        name: "cobro_chat_cap_use_ratio",
        help: "Today's chat messages against the daily caps, read at scrape time: the highest ratio among integrations (scope=max), the number of integrations at their cap (scope=at_cap: a count, not a ratio) and the global cap's ratio (scope=global).",
        labelNames: ["scope"] as const,
        ...with_,
      }),
    },
    auth: {
      signIns: new Counter({
        name: "cobro_sign_ins_total",
        help: "Sign-ins by who signs in (admin, merchant) and outcome (success, refused, throttled).",
        labelNames: ["who", "outcome"] as const,
        ...with_,
      }),
      throttled: new Counter({
        name: "cobro_throttled_requests_total",
        help: "Attempts refused by a guessing limit, by the key that refused them (address, merchant-email, admin-email, password-reset-email, client-id).",
        labelNames: ["scope"] as const,
        ...with_,
      }),
      tokenChecksRefused: new Counter({
        name: "cobro_token_checks_refused_total",
        help: "Credentials refused by the APIs' security checks, by API.",
        labelNames: ["api"] as const,
        ...with_,
      }),
    },
  };
}

/** The outcome a webhook delivery attempt is counted under: the answer's status class, or why there was none. */
export function deliveryOutcome(result: OutboundResult): (typeof DELIVERY_OUTCOMES)[number] {
  if (result.ok) return "2xx";
  switch (result.failure) {
    case "blocked_address":
      return "refused";
    case "timeout":
      return "timeout";
    case "connection_error":
      return "network";
    case "redirect":
      return "3xx";
    default:
      return result.status === undefined ? "network" : statusClass(result.status);
  }
}

/** What a received transfer came to, for the money counters. */
export interface ReceivedTransfer {
  source: "bank-feed" | "simulation";
  amountCents: number;
  /** Its transaction id was already recorded: nothing new happened. */
  duplicate: boolean;
  matched: boolean;
  unmatchedReason?: string;
}

/** Counts a received transfer once: a transaction id already recorded (the feed sent it again) counts nothing. */
export function countTransfer(metrics: Metrics, transfer: ReceivedTransfer): void {
  const { source } = transfer;
  const { money } = metrics;
  if (transfer.duplicate) return;
  if (transfer.matched) {
    money.transfersReceived.inc({ source, result: "matched" });
    money.matchedCents.inc({ source }, transfer.amountCents);
  } else money.transfersReceived.inc({ source, result: "unmatched", reason: transfer.unmatchedReason ?? "ambiguous" });
}

/**
 * The process's PostgreSQL pools: `main` (db/connect.ts: the APIs' requests and the tasks' work),
 * `batches` (db/connect.ts `DatabaseHandle.batches`: reconciliation's batches and the delivery dispatcher's
 * claims and outcomes, on sessions that keep generic plans; not behind a pooler) and `queue` (jobs/queue.ts,
 * worker processes only: taking and finishing jobs, heartbeats).
 */
export const DB_POOLS = ["main", "batches", "queue"] as const;

/** What a pool tells of its connections (pg.Pool's counts). */
export interface PoolCounts {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
}

/** Samples `pool`'s connections at each scrape as cobro_db_pool_connections{pool, state}; returns the removal. */
export function samplePool(metrics: Metrics, name: (typeof DB_POOLS)[number], pool: PoolCounts): () => void {
  const gauge = metrics.db.poolConnections;
  return metrics.addSampler(`db-pool-${name}`, () => {
    gauge.set({ pool: name, state: "total" }, pool.totalCount);
    gauge.set({ pool: name, state: "idle" }, pool.idleCount);
    gauge.set({ pool: name, state: "waiting" }, pool.waitingCount);
  });
}

/** The status class of an HTTP status (a 1xx is counted with 2xx: Cobro never sends one). */
export function statusClass(status: number): (typeof STATUS_CLASSES)[number] {
  if (status >= 500) return "5xx";
  if (status >= 400) return "4xx";
  if (status >= 300) return "3xx";
  return "2xx";
}
