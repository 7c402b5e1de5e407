// A rolling release under load (npm run test:ha, not part of npm test): two API processes behind HAProxy
// and two workers over one database; a steady load of creates, reads and simulated payments (each with a
// webhook to a loopback receiver) goes through the balancer while each API process in turn is stopped
// (SIGTERM), waited for and started again, then each worker. Counted from the clients' records: no request
// answered anything but its 2xx or its documented answer, no request without an answer, every charge
// created readable, every payment's event delivered. It prints its figures (docs/operations.md, "A rolling release").
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { freePorts } from "../../scripts/free-ports.ts";
import type { StartedCobro } from "../../scripts/cobro-process.ts";
import { chargeBody } from "../helpers/charges.ts";
import { startCobroCluster, type ClusterIntegration, type CobroCluster } from "../helpers/cobro-cluster.ts";
import { bearerCaller, type ApiCall } from "../helpers/service.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

let cluster: CobroCluster;
let receiver: WebhookReceiver;
let haproxy: ChildProcess;
let haproxyDir: string;
let ports: { second: { integration: number; auth: number; admin: number }; integration: number; admin: number; stats: number };
const apis: StartedCobro[] = [];
const workers: StartedCobro[] = [];

/**
 * HAProxy in front of both API processes. A readiness check (`GET /readyz`) every 200 ms takes a stopping
 * process out within three failed checks: from SIGTERM on, its readiness answers 503 while it still serves,
 * for its drain (COBRO_STOP_DRAIN_MS, API_ENV), longer than the balancer takes to mark it down, so that no
 * connection is sent to it once its listeners close. Without the drain a connection sent in the instant of
 * the close was cut with its request in it, which HAProxy passes on by closing the client's connection
 * (a failed request in about one run of ten). `fall 1` let one slow check under load take out the process
 * that stays up as well. `rise 2` puts a started one back once it is ready (it answers 503 "still
 * starting" until its APIs are built). `retries 3` with `option redispatch` sends a connection refused all
 * the same to the other server. HAProxy retries only a connection that was never established
 * (retry-on's default, conn-failure), never a request already sent, so a create is never made twice by
 * the balancer. Keep-alive to the servers is off (`http-server-close`): the answers of a draining process
 * carry `Connection: close` anyway.
 */
function haproxyConfig(): string {
  const servers = (api: "integration" | "admin") =>
    [
      `  server a 127.0.0.1:${api === "integration" ? cluster.integrationUrl.split(":")[2] : cluster.adminUrl.split(":")[2]} check inter 200ms fall 3 rise 2`,
      `  server b 127.0.0.1:${ports.second[api]} check inter 200ms fall 3 rise 2`,
    ].join("\n");
  return `global
  maxconn 512
defaults
  mode http
  timeout connect 2s
  timeout client 60s
  timeout server 60s
  option http-server-close
  option redispatch
  retries 3
  # Readiness: 503 while a process starts (its port opens before its APIs are built), while its database
  # does not answer, and while it drains after SIGTERM.
  option httpchk GET /readyz
  http-check expect status 200
frontend integration
  bind 127.0.0.1:${ports.integration}
  default_backend integration
backend integration
  balance roundrobin
${servers("integration")}
frontend admin
  bind 127.0.0.1:${ports.admin}
  default_backend admin
backend admin
  balance roundrobin
${servers("admin")}
listen stats
  bind 127.0.0.1:${ports.stats}
  stats enable
  stats uri /stats
`;
}

/** HAProxy's view of the servers: `<backend>/<server>` → UP or DOWN. */
async function serverStates(): Promise<Map<string, string>> {
  const csv = await (await fetch(`http://127.0.0.1:${ports.stats}/stats;csv`)).text();
  const states = new Map<string, string>();
  for (const line of csv.split("\n").slice(1)) {
    const fields = line.split(",");
    if (fields[1] === "a" || fields[1] === "b") states.set(`${fields[0]}/${fields[1]}`, fields[17]!.split(" ")[0]!);
  }
  return states;
}

const waitUntil = async (condition: () => Promise<boolean> | boolean) => {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 100));
};
const allUp = async () => [...(await serverStates()).values()].filter((state) => state === "UP").length === 4;

/** The API processes' drain after SIGTERM: longer than the balancer takes to mark a server down (3 checks 200 ms apart). */
const API_ENV = { COBRO_STOP_DRAIN_MS: "2000" };
const startFirstApi = () => cluster.startApi(API_ENV);
const startSecondApi = () =>
  cluster.startApi({
    ...API_ENV,
    INTEGRATION_PORT: String(ports.second.integration),
    AUTH_PORT: String(ports.second.auth),
    ADMIN_PORT: String(ports.second.admin),
  });

beforeAll(async () => {
  // A dead worker's jobs would wait 10 minutes: a delivery can arrive in the test's time only if a stopping worker gives it back.
  cluster = await startCobroCluster({ COBRO_DELIVERY_DISPATCHER: "true", COBRO_WORKER_HEARTBEAT_MS: "1000", COBRO_WORKER_STALE_AFTER_MS: "600000" });
  receiver = await startWebhookReceiver();
  const [integration, auth, admin, lbIntegration, lbAdmin, stats] = await freePorts(6);
  ports = { second: { integration: integration!, auth: auth!, admin: admin! }, integration: lbIntegration!, admin: lbAdmin!, stats: stats! };
  apis.push(...(await Promise.all([startFirstApi(), startSecondApi()])));
  workers.push(...(await Promise.all([cluster.startWorker(), cluster.startWorker()])));
  haproxyDir = await mkdtemp(path.join(os.tmpdir(), "cobro-haproxy-"));
  await writeFile(path.join(haproxyDir, "haproxy.cfg"), haproxyConfig());
  haproxy = spawn("/usr/sbin/haproxy", ["-db", "-f", path.join(haproxyDir, "haproxy.cfg")], { stdio: "ignore" });
  await waitUntil(() => serverStates().then(allUp, () => false));
}, 240_000);

afterAll(async () => {
  haproxy?.kill("SIGTERM");
  await receiver?.close();
  await cluster?.close().catch(() => undefined);
  if (haproxyDir) await rm(haproxyDir, { recursive: true, force: true });
}, 120_000);

interface Record {
  charges: Array<{ referenceId: string; cvu: string }>;
  payments: number;
  statuses: Map<string, number>;
  failed: string[];
  requests: number;
}

/** Requests through the balancer until `stop` resolves: creates, reads of a created charge, and payments. */
async function runLoad(record: Record, merchant: ApiCall, admin: ApiCall, stop: Promise<void>): Promise<void> {
  let stopped = false;
  void stop.then(() => (stopped = true));
  const call = async (what: string, caller: ApiCall, method: string, route: string, body: object | undefined, ok: number[]) => {
    record.requests++;
    let result: Awaited<ReturnType<ApiCall>>;
    try {
      result = await caller(method, route, body);
    } catch (error) {
      const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
      record.failed.push(`${what}: ${(error as Error).message}${cause ? ` (${cause.code ?? ""} ${cause.message ?? ""})` : ""}`);
      return undefined;
    }
    record.statuses.set(`${what} ${result.status}`, (record.statuses.get(`${what} ${result.status}`) ?? 0) + 1);
    // A merchant's pool of CVUs may fill up under this load: the documented refusal, not a fault.
    if (result.status === 400 && result.json?.code === "InsufficientActiveAccountsError") return undefined;
    if (!ok.includes(result.status)) {
      record.failed.push(`${what}: ${result.status} ${JSON.stringify([...result.headers])} ${result.text.slice(0, 300)}`);
      return undefined;
    }
    return result;
  };
  const actor = async () => {
    while (!stopped) {
      const referenceId = uniqueRef("RR");
      const created = await call("create", merchant, "POST", "/payment-request", chargeBody({ referenceId, amount: 2000 }), [201]);
      if (!created) continue;
      record.charges.push({ referenceId, cvu: created.json.CVU });
      await call("read", merchant, "GET", `/payment-request/${referenceId}`, undefined, [200]);
      const paid = await call(
        "simulate",
        admin,
        "POST",
        "/my-integration/simulate-payment",
        {
          externalAccountCvu: "0000003100000000000017",
          externalAccountCuil: "20301234563",
          externalAccountName: "Juan Pérez",
          cvu: created.json.CVU,
          amount: 2000,
        },
        [200, 422],
      );
      if (paid?.status === 200) record.payments++;
    }
  };
  await Promise.all([actor(), actor(), actor(), actor()]);
}

it("restarts each API process and each worker under load: no failed request, no lost job", async () => {
  const integration: ClusterIntegration = await cluster.integration();
  const hookPath = `/${uniqueRef("rr").toLowerCase()}`;
  const registered = await integration.adminCall("POST", "/my-integration/urls", { url: receiver.url(hookPath), urlType: "webhook" });
  expect(registered.status, registered.text).toBe(201);
  const merchant = bearerCaller(`http://127.0.0.1:${ports.integration}`, integration.merchantToken);
  const admin = bearerCaller(`http://127.0.0.1:${ports.admin}`, () => integration.adminToken);

  const record: Record = { charges: [], payments: 0, statuses: new Map(), failed: [], requests: 0 };
  let endLoad!: () => void;
  const started = Date.now();
  const load = runLoad(record, merchant, admin, new Promise<void>((resolve) => (endLoad = resolve)));
  const restarts: Array<{ what: string; ms: number }> = [];
  const progress = async () => {
    const before = record.requests;
    await waitUntil(() => record.requests >= before + 40);
  };
  try {
    await progress();
    // Each API process in turn: SIGTERM, its exit, started again on its ports, back in the balancer.
    for (const [index, start] of [
      [0, startFirstApi],
      [1, startSecondApi],
    ] as const) {
      const from = Date.now();
      apis[index]!.child.kill("SIGTERM");
      await apis[index]!.exited;
      expect(apis[index]!.child.exitCode).toBe(0);
      apis[index] = await start();
      await waitUntil(allUp);
      restarts.push({ what: `api ${index}`, ms: Date.now() - from });
      await progress();
    }
    for (const index of [0, 1]) {
      const from = Date.now();
      workers[index]!.child.kill("SIGTERM");
      await workers[index]!.exited;
      expect(workers[index]!.child.exitCode).toBe(0);
      workers[index] = await cluster.startWorker();
      restarts.push({ what: `worker ${index}`, ms: Date.now() - from });
      await progress();
    }
  } finally {
    endLoad();
    await load;
  }
  const loadSeconds = (Date.now() - started) / 1000;

  // Every charge created is readable; every payment's event reaches the receiver (0 lost jobs).
  const db = cluster.database.db;
  const references = record.charges.map((charge) => charge.referenceId);
  const stored = await db.selectFrom("charges").select("reference_id").where("reference_id", "in", references).execute();
  expect(new Set(stored.map((row) => row.reference_id)).size).toBe(references.length);
  const { rows: events } = await sql<{ id: string }>`
    select e.id::text from events e join charges c on c.id = e.charge_id where c.reference_id = any(${references}::text[])`.execute(db);
  const delivered = () => new Set(receiver.at(hookPath).map((request) => String(request.headers["x-service-webhook-id"])));
  await waitUntil(() => events.every((event) => delivered().has(event.id)));
  const undelivered = await sql<{ n: number }>`
    select count(*)::int as n from event_deliveries where event_id = any(${events.map((event) => event.id)}::uuid[]) and status <> 'delivered'`.execute(db);

  console.log(
    `rolling release: ${record.requests} requests in ${loadSeconds.toFixed(1)} s (${[...record.statuses].map(([key, n]) => `${key}: ${n}`).join(", ")}); ` +
      `${record.charges.length} charges, ${record.payments} payments, ${events.length} events delivered; ` +
      `restarts ${restarts.map((restart) => `${restart.what} ${(restart.ms / 1000).toFixed(1)} s`).join(", ")}; failed ${record.failed.length}`,
  );
  if (record.failed.length > 0) console.log(`failed requests:\n${record.failed.join("\n")}`);
  // The requests themselves in the assertion's message: a CI summary keeps that line and not the log.
  expect(record.failed, `failed requests: ${record.failed.join(" | ").slice(0, 2_000)}`).toEqual([]);
  expect(undelivered.rows[0]!.n).toBe(0);
  expect(record.payments).toBeGreaterThan(0);
}, 300_000);
