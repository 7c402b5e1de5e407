// The metrics listener of a running service: Prometheus's text format at GET /metrics, nothing else, the
// series the traffic caused, and every label value inside its documented bounded set (no path, no id, no
// email ever becomes a series).
import { createServer, type Server } from "node:net";
import { request } from "node:http";
import { describe, expect, it } from "vitest";
import { Registry } from "prom-client";
import { ConfigError, loadConfig, type ApiName } from "../../runtime/config.ts";
import { createMetrics, DB_POOLS, DELIVERY_OUTCOMES, PROVIDER_ERROR_CLASSES, STATUS_CLASSES } from "../../runtime/metrics.ts";
import { DATABASE_ERROR_KINDS } from "../../db/errors.ts";
import { createTaskList, type TaskDependencies } from "../../jobs/tasks.ts";
import { addJob } from "../../db/job-queue.ts";
import { COUNTED_METHODS, OUTSIDE_CONTRACT_OPERATIONS } from "../../server/http/request-metrics.ts";
import { startService } from "../../server/service.ts";
import { CobroStartupError } from "../../db/errors.ts";
import { GUESSING_LIMITS } from "../../domain/sign-in/credential-throttle.ts";
import { captureLogs } from "../helpers/captured-logs.ts";
import { linkedMerchant, postJson, read, serviceForFile } from "../helpers/service.ts";
import { chargeBody } from "../helpers/charges.ts";
import { generatedDocument } from "../helpers/openapi-documents.ts";
import { parseMetricsText, sampleValue, type MetricSample } from "../helpers/metrics-text.ts";

const t = serviceForFile({
  metrics: true,
  parts: ["integration", "auth", "admin", "worker"],
  env: { COBRO_WORKER_HEARTBEAT_MS: "200", COBRO_WORKER_STALE_AFTER_MS: "3000" },
});

const scrape = async (): Promise<MetricSample[]> => {
  const response = await fetch(t.metricsUrl);
  expect(response.status).toBe(200);
  return parseMetricsText(await response.text());
};

const APIS: ApiName[] = ["integration", "auth", "admin"];
const operationIds = new Set(
  APIS.flatMap((api) => Object.values(generatedDocument(api).paths).flatMap((methods) => Object.values(methods).map((op) => op.operationId))),
);
const taskNames = Object.keys(createTaskList({ metrics: createMetrics("bounds") } as TaskDependencies));

/** The documented values of each Cobro label (docs/operations/metrics.md lists the same). */
const LABELS: Record<string, ReadonlySet<string>> = {
  api: new Set(APIS),
  operation: new Set([...operationIds, ...OUTSIDE_CONTRACT_OPERATIONS]),
  method: new Set([...COUNTED_METHODS, "other"]),
  status_class: new Set(STATUS_CLASSES),
  pool: new Set(DB_POOLS),
  state: new Set(["total", "idle", "waiting"]),
  task: new Set(taskNames),
  who: new Set(["admin", "merchant"]),
  sampler: new Set(["http-in-flight", "db-pool-main", "db-pool-batches", "db-pool-queue", "jobs-waiting", "delivery-and-cap-gauges"]),
  role: new Set(["integration,auth,admin,worker"]),
  channel: new Set(["single", "bulk", "widget", "test", "email", "whatsapp"]),
  source: new Set(["bank-feed", "simulation"]),
  result: new Set(["matched", "unmatched"]),
  reason: new Set(["expired", "already_paid", "canceled", "no_cuil_match", "no_pending", "ambiguous"]),
  status: new Set(["sent", "simulated", "failed", "canceled"]),
  class: new Set(PROVIDER_ERROR_CLASSES),
};
/** Labels whose name means different things in different series. */
const SERIES_LABELS: Record<string, Record<string, ReadonlySet<string>>> = {
  cobro_db_query_errors_total: { kind: new Set(DATABASE_ERROR_KINDS) },
  cobro_job_runs_total: { outcome: new Set(["success", "failure"]) },
  cobro_sign_ins_total: { outcome: new Set(["success", "refused", "throttled"]) },
  cobro_throttled_requests_total: { scope: new Set(["address", "merchant-email", "admin-email", "password-reset-email", "client-id"]) },
  cobro_charges_created_total: { kind: new Set(["standard", "draft", "short-lived", "checkout"]) },
  cobro_webhook_deliveries_total: { outcome: new Set(DELIVERY_OUTCOMES) },
  cobro_notifications_total: {
    kind: new Set(["initial", "advance_reminder", "due_date", "first_due_date_passed", "second_due_date", "payment_confirmation"]),
  },
  cobro_chat_cap_use_ratio: { scope: new Set(["max", "at_cap", "global"]) },
};
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** Where a label value is out of bounds, or undefined when it is one of its documented values. */
function outOfBounds(series: string, label: string, value: string): string | undefined {
  // The one id allowed: an integration's, in the webhook backlog's top-N gauges.
  if (label === "integration")
    return UUID.test(value) && /^cobro_webhook_(events_waiting|oldest_waiting_event_age_seconds)$/.test(series) ? undefined : "an id";
  if (UUID.test(value) || /[@/]/.test(value)) return "a path, id or email";
  if (!series.startsWith("cobro_") && label !== "role") return undefined; // Node.js's defaults: their own fixed sets
  if (label === "le") return undefined;
  const allowed = SERIES_LABELS[series.replace(/_(bucket|sum|count)$/, "")]?.[label] ?? LABELS[label];
  if (allowed === undefined) return "an undocumented label";
  return allowed.has(value) ? undefined : "outside the documented values";
}

describe("the metrics listener", () => {
  it("serves Prometheus's text format at GET /metrics, with the process's role and Node's defaults", async () => {
    expect(t.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const response = await fetch(t.metricsUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe(new Registry().contentType);
    const samples = parseMetricsText(await response.text());
    expect(samples.every((sample) => sample.labels.role === "integration,auth,admin,worker")).toBe(true);
    expect(sampleValue(samples, "nodejs_eventloop_lag_seconds")).toBeGreaterThanOrEqual(0);
    expect(sampleValue(samples, "nodejs_heap_size_used_bytes")).toBeGreaterThan(0);
    // Pools sampled at the scrape: the main one has opened connections by now, the worker's too.
    expect(sampleValue(samples, "cobro_db_pool_connections", { pool: "main", state: "total" })).toBeGreaterThan(0);
    expect(sampleValue(samples, "cobro_db_pool_connections", { pool: "queue", state: "total" })).toBeGreaterThan(0);
    // The batches' pool opens on demand: sampled from the start, whether or not a batch ran yet.
    expect(sampleValue(samples, "cobro_db_pool_connections", { pool: "batches", state: "waiting" })).toBe(0);
    expect((await fetch(t.metricsUrl, { method: "HEAD" })).status).toBe(200);
  });

  it("answers 404 to anything else", async () => {
    const base = new URL(t.metricsUrl).origin;
    for (const path of ["/", "/metrics/", "/metrics.json", "/payment-request"]) expect((await fetch(`${base}${path}`)).status, path).toBe(404);
    expect((await fetch(t.metricsUrl, { method: "POST" })).status).toBe(404);
  });

  it("is not served on the public APIs", async () => {
    for (const url of [t.integrationUrl, t.authUrl, t.adminUrl]) expect((await fetch(`${url}/metrics`)).status).toBe(404);
  });
});

describe("what traffic shows", () => {
  it("counts requests by operationId and status class, requests outside the contract by a fixed name, and refused tokens by API", async () => {
    const before = await scrape();
    const created = (samples: MetricSample[]) =>
      sampleValue(samples, "cobro_http_request_duration_seconds_count", {
        api: "integration",
        operation: "createPaymentRequest",
        method: "POST",
        status_class: "2xx",
      }) ?? 0;
    const merchant = await linkedMerchant(t);
    for (let i = 0; i < 3; i++) expect((await merchant.call("POST", "/payment-request", chargeBody())).status).toBe(201);
    // Unknown paths carrying ids: counted as `unmatched`, never by path.
    expect((await fetch(`${t.integrationUrl}/no-such/3f1c7a9e-2b7d-4e57-9d0c-5b7c1e2f8a90/x@example.com`)).status).toBe(404);
    expect((await fetch(`${t.integrationUrl}/docs`)).status).toBe(200);
    expect((await fetch(`${t.integrationUrl}/me`, { headers: { authorization: "Bearer garbage" } })).status).toBe(401);
    expect((await fetch(`${t.integrationUrl}/payment-request`, { method: "PROPFIND" })).status).toBeGreaterThanOrEqual(400);

    const after = await scrape();
    expect(created(after) - created(before)).toBe(3);
    expect(
      sampleValue(after, "cobro_http_request_duration_seconds_count", { api: "integration", operation: "unmatched", method: "GET", status_class: "4xx" }),
    ).toBeGreaterThanOrEqual(1);
    expect(sampleValue(after, "cobro_http_request_duration_seconds_count", { api: "integration", operation: "docs", method: "GET", status_class: "2xx" })).toBe(
      1,
    );
    expect(
      sampleValue(after, "cobro_http_request_duration_seconds_count", { api: "integration", operation: "getMe", method: "GET", status_class: "4xx" }),
    ).toBeGreaterThanOrEqual(1);
    expect(sampleValue(after, "cobro_http_request_duration_seconds_count", { api: "integration", method: "other" })).toBe(1);
    expect(sampleValue(after, "cobro_token_checks_refused_total", { api: "integration" })).toBeGreaterThanOrEqual(1);
    // Nothing is in flight once every answer is in (the scrape is not on the APIs).
    for (const api of APIS) expect(sampleValue(after, "cobro_http_requests_in_flight", { api })).toBe(0);
  });

  it("counts a request in flight until its answer is sent", async () => {
    const inFlight = async () => sampleValue(await scrape(), "cobro_http_requests_in_flight", { api: "integration" });
    // A body sent in part: the request has arrived and waits for the rest.
    const body = JSON.stringify(chargeBody());
    const outgoing = request(`${t.integrationUrl}/payment-request`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) },
    });
    const answered = new Promise<number>((resolve, reject) => {
      outgoing.on("response", (response) => {
        response.resume();
        resolve(response.statusCode ?? 0);
      });
      outgoing.on("error", reject);
    });
    outgoing.write(body.slice(0, 10));
    await expect.poll(inFlight, { timeout: 5_000 }).toBe(1);
    outgoing.end(body.slice(10));
    expect(await answered).toBe(401); // no token: answered all the same
    await expect.poll(inFlight, { timeout: 5_000 }).toBe(0);
  });

  it("counts admin sign-ins by outcome, and attempts throttled by the key that refused them", async () => {
    const { integrationAdmin } = await t.sandbox();
    const signIns = (samples: MetricSample[], outcome: string) => sampleValue(samples, "cobro_sign_ins_total", { who: "admin", outcome }) ?? 0;
    const before = await scrape();
    const login = async (password: string) => (await read(await postJson(`${t.authUrl}/integration/admin/login`, { ...integrationAdmin, password }))).status;
    expect(await login(integrationAdmin.password)).toBe(200);
    for (let i = 0; i < GUESSING_LIMITS.accountFailures; i++) expect(await login(`wrong-${i}`)).toBe(401);
    expect(await login(integrationAdmin.password)).toBe(429);
    const after = await scrape();
    expect(signIns(after, "success") - signIns(before, "success")).toBe(1);
    expect(signIns(after, "refused") - signIns(before, "refused")).toBe(GUESSING_LIMITS.accountFailures);
    expect(signIns(after, "throttled") - signIns(before, "throttled")).toBe(1);
    expect(sampleValue(after, "cobro_throttled_requests_total", { scope: "admin-email" })).toBe(1);
  });

  it("counts the worker's heartbeats and job runs, and samples the waiting jobs of every task", async () => {
    await expect.poll(async () => sampleValue(await scrape(), "cobro_worker_heartbeats_total") ?? 0, { timeout: 10_000 }).toBeGreaterThan(0);
    const samples = await scrape();
    for (const task of taskNames) {
      expect(sampleValue(samples, "cobro_jobs_waiting", { task }), task).toBeGreaterThanOrEqual(0);
      expect(sampleValue(samples, "cobro_jobs_oldest_waiting_age_seconds", { task }), task).toBeGreaterThanOrEqual(0);
    }
    // A run that ends well and one that throws (a go-live with no Production deployment configured: retried by the queue).
    const runs = (all: MetricSample[], task: string, outcome: string) => sampleValue(all, "cobro_job_runs_total", { task, outcome }) ?? 0;
    await addJob(t.database.db, "noop", {});
    await addJob(t.database.db, "provision-production", { goLiveRequestId: "00000000-0000-4000-8000-000000000000" }, { maxAttempts: 1 });
    await expect.poll(async () => runs(await scrape(), "noop", "success"), { timeout: 10_000 }).toBe(runs(samples, "noop", "success") + 1);
    await expect.poll(async () => runs(await scrape(), "provision-production", "failure"), { timeout: 10_000 }).toBe(1);
  });

  it("would be caught holding a path, an id, an email or an undocumented value", () => {
    const http = "cobro_http_request_duration_seconds_count";
    expect(outOfBounds(http, "operation", "createPaymentRequest")).toBeUndefined();
    expect(outOfBounds(http, "operation", "/payment-request/REF-1")).toBeDefined();
    expect(outOfBounds(http, "operation", "getPaymentRequestByReferenceId")).toBeDefined();
    expect(outOfBounds("cobro_sign_ins_total", "who", "ana@example.com")).toBeDefined();
    expect(outOfBounds("cobro_job_runs_total", "task", "3f1c7a9e-2b7d-4e57-9d0c-5b7c1e2f8a90")).toBeDefined();
    expect(outOfBounds("cobro_webhook_events_waiting", "integration", "3f1c7a9e-2b7d-4e57-9d0c-5b7c1e2f8a90")).toBeUndefined();
    expect(outOfBounds("cobro_charges_created_total", "integration", "3f1c7a9e-2b7d-4e57-9d0c-5b7c1e2f8a90")).toBeDefined();
    expect(outOfBounds("cobro_db_query_errors_total", "kind", "standard")).toBeDefined();
  });

  it("keeps every label value inside its documented set: no path, id or email", async () => {
    const samples = await scrape();
    const problems = samples.flatMap((sample) =>
      Object.entries(sample.labels).flatMap(([label, value]) => {
        const problem = outOfBounds(sample.name, label, value);
        return problem === undefined ? [] : [`${sample.name}{${label}="${value}"}: ${problem}`];
      }),
    );
    expect(problems).toEqual([]);
  });
});

describe("COBRO_METRICS_PORT and COBRO_METRICS_HOST", () => {
  it("serve on 127.0.0.1:9464 by default; 0 turns the listener off", () => {
    expect(loadConfig({}, [], false).metrics).toEqual({ host: "127.0.0.1", port: 9464 });
    expect(loadConfig({ COBRO_METRICS_PORT: "9100", COBRO_METRICS_HOST: "0.0.0.0" }, [], false).metrics).toEqual({ host: "0.0.0.0", port: 9100 });
    expect(loadConfig({ COBRO_METRICS_PORT: "0" }, [], false).metrics).toBeUndefined();
  });

  it.each(["-1", "65536", "nine"])("refuse the port %j with a readable line", (value) => {
    expect(() => loadConfig({ COBRO_METRICS_PORT: value }, [], false)).toThrow(ConfigError);
    expect(() => loadConfig({ COBRO_METRICS_PORT: value }, [], false)).toThrow(`COBRO_METRICS_PORT must be a port number from 0 to 65535, not "${value}"`);
  });

  it("a taken port stops the start with one line naming COBRO_METRICS_PORT, before the database is opened", async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const config = loadConfig(
        { INTEGRATION_PORT: "0", AUTH_PORT: "0", ADMIN_PORT: "0", COBRO_METRICS_PORT: String(port), DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" },
        ["--only", "integration"],
      );
      const started = startService(config, { logger: captureLogs().logger });
      await expect(started).rejects.toThrow(CobroStartupError);
      await expect(started).rejects.toThrow(
        `Port ${port} (metrics) is already in use: stop what uses it or set COBRO_METRICS_PORT (0 turns the metrics listener off)`,
      );
    } finally {
      blocker.close();
    }
  });
});
