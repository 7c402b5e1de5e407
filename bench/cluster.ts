// `npm run bench:cluster`: Cobro as a replicated deployment runs it, two API processes and two worker
// processes, under the same load on four databases one after the other: the embedded PostgreSQL; the
// leader of the Patroni cluster of scripts/cluster.ts reached directly with synchronous replication off
// (PostgreSQL 15 and a second server on the machine, before replication and proxies cost anything); the
// cluster through HAProxy with synchronous replication, as deployed; and the same with the APIs' queries
// through PgBouncer in transaction mode (prepared statements off, as behind Debian's PgBouncer they must
// be). Prints the answers a second, latency and the CPU each part spent per answer, then the four side
// by side; it never fails on a time. docs/scaling.md holds this machine's figures and what they mean.
//
// Environment: BENCH_SECONDS (8) and BENCH_WARMUP_SECONDS (2) per load run, BENCH_WEBHOOK_EVENTS
// (2,000), COBRO_BENCH_CLUSTER_PORT_BASE (25600: a cluster of its own, not npm run cluster:up's).
import { availableParallelism, cpus, tmpdir } from "node:os";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import {
  clusterDown,
  clusterLayout,
  clusterMembers,
  clusterProcesses,
  clusterUp,
  nodeDatabaseUrl,
  postmasterPid,
  setSynchronousMode,
  waitForHealthy,
  type ClusterLayout,
} from "../scripts/cluster.ts";
import { withBenchDatabase } from "./fixtures/bench-database.ts";
import { adminIdToken, createBenchIntegration, merchantIdToken, postJson } from "./fixtures/bench-integration.ts";
import { cpuSeconds, postgresCpuSeconds, processTreeCpuSeconds, startBenchCobro, type BenchProcess } from "./fixtures/bench-processes.ts";
import { payableCuilCharges, seedPendingCharges } from "./fixtures/seeded-charges.ts";
import { sweepExpiringBurst } from "./fixtures/time-sweep.ts";
import { bulkBody, cuilChargeBody, simulatedTransferBody } from "./load/charge-bodies.ts";
import { cpuPerAnswer, loadSettingsFromEnv, measureLoadTogether, type LoadFigures } from "./load/load-run.ts";
import { deliveriesSince, startWebhookReceipts } from "./load/webhook-receipts.ts";

const settings = loadSettingsFromEnv(process.env);
const webhookBurst = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 2_000);
const API_PROCESSES = 2;
const WORKERS = 2;
/** Connections in all, shared evenly by the API processes. */
const CONNECTIONS = 16;
const BULK_SIZE = 100;
const SEEDED_ROWS = 10_000;

interface Database {
  name: string;
  /** Makes the database ready (the cluster started, its replication set) and answers its URL; undefined: the embedded PostgreSQL. */
  prepare(): Promise<string | undefined>;
  /** What the API processes are given besides DATABASE_URL. */
  apiEnv: Record<string, string>;
  /** CPU seconds so far of the database's side, by part (PostgreSQL, proxies, Patroni). */
  databaseCpu(): Record<string, number>;
}

/** One measured load: answers (or events) a second, latency and CPU per answer of each part. */
interface Measured {
  rate: number;
  unit: string;
  p50: number;
  p99: number;
  failures: number;
  cpuByPart: Record<string, number>;
}

const cpuModel = cpus()[0]?.model ?? "unknown";
console.log(`Cobro on one PostgreSQL vs on a Patroni cluster — ${availableParallelism()} cores (${cpuModel}), Node ${process.version}`);
console.log(
  `${API_PROCESSES} API processes and ${WORKERS} workers each time; autocannon from this process, ${CONNECTIONS} connections in all, ${settings.warmupSeconds} s warm-up + ${settings.seconds} s per run`,
);

const layout: ClusterLayout = clusterLayout(Number(process.env.COBRO_BENCH_CLUSTER_PORT_BASE ?? 25600));
let clusterStarted = false;
/** The cluster up, with synchronous replication on or off; answers its leader. */
async function clusterReady(synchronous: boolean): Promise<string> {
  if (!clusterStarted) {
    clusterStarted = true;
    console.log(`\nstarting the cluster (npm run cluster:up's script, ports from ${layout.portBase})`);
    // Its own ports: a cluster still running there is what an earlier bench left.
    await clusterUp(layout, { replace: true });
  }
  await setSynchronousMode(layout, synchronous);
  if (synchronous) return (await waitForHealthy(layout)).leader;
  // Off: Patroni demotes the synchronous standby to a plain replica at its next loop.
  const deadline = Date.now() + 30_000;
  for (;;) {
    const members = await clusterMembers(layout);
    const leader = members.find((member) => member.role === "leader" && member.state === "running");
    if (leader && !members.some((member) => member.role === "sync_standby")) return leader.name;
    if (Date.now() > deadline) throw new Error(`synchronous replication did not turn off: ${JSON.stringify(members)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
/** The cluster as deployed: synchronous replication on, reached through HAProxy. */
async function synchronousCluster(): Promise<string> {
  await clusterReady(true);
  return layout.databaseUrl;
}
const clusterCpu = (): Record<string, number> => {
  const pids = clusterProcesses(layout);
  const tree = (pid: number | undefined) => (pid === undefined ? 0 : processTreeCpuSeconds(pid));
  const own = (pid: number | undefined) => (pid === undefined ? 0 : cpuSeconds(pid, true));
  return {
    "PostgreSQL, both nodes": layout.nodes.reduce((sum, node) => sum + tree(postmasterPid(node)), 0),
    "HAProxy and PgBouncer": own(pids.haproxy) + own(pids.pgbouncer),
    "Patroni and etcd": own(pids.pg0) + own(pids.pg1) + own(pids.etcd),
  };
};
const databases: Database[] = [
  {
    name: "embedded PostgreSQL 18",
    prepare: async () => undefined,
    apiEnv: {},
    // The bench database's own server, as withBenchDatabase found it.
    databaseCpu: () => ({ PostgreSQL: postgresCpuSeconds() }),
  },
  {
    // What PostgreSQL 15 and this machine's second server cost before replication and proxies do.
    name: "cluster's leader, direct, async",
    prepare: async () => nodeDatabaseUrl(layout, await clusterReady(false)),
    apiEnv: {},
    databaseCpu: clusterCpu,
  },
  { name: "cluster via HAProxy, sync", prepare: synchronousCluster, apiEnv: {}, databaseCpu: clusterCpu },
  {
    name: "cluster, APIs via PgBouncer",
    prepare: synchronousCluster,
    apiEnv: { COBRO_POOLED_DATABASE_URL: layout.pooledUrl, COBRO_DB_PREPARED_STATEMENTS: "false" },
    databaseCpu: clusterCpu,
  },
];

// One folder for every run: it holds the secret key that seals the signing keys in the database, which
// the cluster's runs share.
const dataDir = mkdtempSync(join(tmpdir(), "cobro-bench-cluster-"));
const results = new Map<string, Map<string, Measured>>();
try {
  for (const database of databases) results.set(database.name, await measureOn(database, await database.prepare()));
} finally {
  await clusterDown(layout);
  rmSync(dataDir, { recursive: true, force: true });
}
printSideBySide();

async function measureOn(target: Database, databaseUrl: string | undefined): Promise<Map<string, Measured>> {
  console.log(`\n== ${target.name}`);
  const measured = new Map<string, Measured>();
  const processes: BenchProcess[] = [];
  try {
    await withBenchDatabase(
      async (database) => {
        const db = database.db;
        const bench = await createBenchIntegration(db, 1);
        const merchant = bench.merchants[0]!;
        const apis: BenchProcess[] = [];
        const workers: BenchProcess[] = [];
        for (let n = 0; n < API_PROCESSES; n++)
          apis.push(await startBenchCobro(database.connectionString, dataDir, ["integration", "auth", "admin"], { env: target.apiEnv }));
        for (let n = 0; n < WORKERS; n++) workers.push(await startBenchCobro(database.workerConnectionString, dataDir, ["worker"]));
        processes.push(...apis, ...workers);
        const cpuNow = () => ({
          "API processes": apis.reduce((sum, api) => sum + cpuSeconds(api.pid), 0),
          workers: workers.reduce((sum, worker) => sum + cpuSeconds(worker.pid), 0),
          ...target.databaseCpu(),
        });

        const merchantToken = await merchantIdToken(apis[0]!.urls.auth!, bench.sandbox.integration, merchant);
        const adminToken = await adminIdToken(apis[0]!.urls.auth!, bench.sandbox.integrationAdmin);
        const asMerchant = { authorization: `Bearer ${merchantToken}`, "content-type": "application/json" };
        const asAdmin = { authorization: `Bearer ${adminToken}`, "content-type": "application/json" };
        await seedPendingCharges(db, {
          integrationClientId: bench.integrationClientId,
          merchantAccountId: merchant.id,
          count: SEEDED_ROWS,
          referencePrefix: "SEEDREF-",
        });
        await sql`analyze charges`.execute(db);

        /** The same request shape on every API process, the connections shared among them. */
        const acrossApis = (part: "integration" | "admin", path: string, request: object, timeout?: number) =>
          apis.map((api, index) => ({
            url: `${api.urls[part]!}${path}`,
            connections: CONNECTIONS / API_PROCESSES + (index < CONNECTIONS % API_PROCESSES ? 1 : 0),
            ...(timeout ? { timeout } : {}),
            requests: [request],
          }));
        const load = async (label: string, unit: string, runs: ReturnType<typeof acrossApis>, perAnswer = 1) => {
          const figures: LoadFigures = await measureLoadTogether(settings, runs, cpuNow);
          const result: Measured = {
            rate: figures.rps * perAnswer,
            unit,
            p50: figures.p50,
            p99: figures.p99,
            failures: figures.failures,
            cpuByPart: Object.fromEntries(Object.entries(figures.cpuByPart ?? {}).map(([part, ms]) => [part, ms / perAnswer])),
          };
          report(label, result, figures.failures > 0 ? figures.statuses : "");
          measured.set(label, result);
        };

        await load(
          "GET /payment-request/{referenceId}",
          "req/s",
          acrossApis("integration", "/payment-request", {
            method: "GET",
            headers: asMerchant,
            setupRequest: (request: object) => ({ ...request, path: `/payment-request/SEEDREF-${1 + Math.floor(Math.random() * SEEDED_ROWS)}` }),
          }),
        );
        await load(
          "create POST /payment-request",
          "req/s",
          acrossApis("integration", "/payment-request", {
            method: "POST",
            headers: asMerchant,
            setupRequest: (request: object) => ({ ...request, body: cuilChargeBody() }),
          }),
        );
        await load(
          `bulk of ${BULK_SIZE}`,
          "charges/s",
          acrossApis(
            "integration",
            "/payment-request/bulk",
            { method: "POST", headers: asMerchant, setupRequest: (request: object) => ({ ...request, body: bulkBody(BULK_SIZE) }) },
            30,
          ),
          BULK_SIZE,
        );

        const receipts = await startWebhookReceipts();
        try {
          await postJson(`${apis[0]!.urls.admin!}/my-integration/urls`, { url: receipts.url, urlType: "webhook" }, { authorization: `Bearer ${adminToken}` });
          const payable = await payableCuilCharges(db, merchant.id);
          let nextPayable = 0;
          const transfersFrom = new Date();
          await load(
            "simulate-payment (reconciled)",
            "req/s",
            acrossApis("admin", "/my-integration/simulate-payment", {
              method: "POST",
              headers: asAdmin,
              setupRequest: (request: object) => ({ ...request, body: simulatedTransferBody(payable[nextPayable++ % payable.length]!) }),
            }),
          );
          const delivered = await deliveriesSince(db, bench.integrationClientId, receipts, transfersFrom);
          line("  their webhooks", `${delivered.delivered} of ${delivered.written}, enqueue → receipt p50 ${ms(delivered.p50)} p99 ${ms(delivered.p99)}`);

          const before = cpuNow();
          const { from, expiredEvents } = await sweepExpiringBurst(db, bench.integrationClientId, bench.merchants[1]!.id, webhookBurst);
          const burst = await deliveriesSince(db, bench.integrationClientId, receipts, from);
          const result: Measured = {
            rate: burst.eventsPerSecond,
            unit: "events/s",
            p50: burst.p50,
            p99: burst.p99,
            failures: burst.written - burst.delivered,
            cpuByPart: cpuPerAnswer(before, cpuNow(), Math.max(1, burst.delivered)),
          };
          report(`webhook burst of ${expiredEvents}, ${WORKERS} workers`, result, "");
          measured.set("webhook burst", result);
        } finally {
          await receipts.close();
        }
      },
      { databaseUrl, countStatements: false },
    );
  } finally {
    for (const child of processes.reverse()) await child.stop();
  }
  return measured;
}

function report(label: string, result: Measured, statuses: string): void {
  line(
    label,
    `${Math.round(result.rate).toString().padStart(6)} ${result.unit}  p50 ${ms(result.p50).padStart(7)}  p99 ${ms(result.p99).padStart(7)}${result.failures > 0 ? `  (${result.failures} failed${statuses ? `: ${statuses}` : ""})` : ""}`,
  );
  line("  CPU per answer", cpuText(result.cpuByPart));
}

function cpuText(cpuByPart: Record<string, number>): string {
  const total = Object.values(cpuByPart).reduce((sum, value) => sum + value, 0);
  return `${total.toFixed(2)} ms in all: ${Object.entries(cpuByPart)
    .map(([part, value]) => `${part} ${value.toFixed(2)}`)
    .join(", ")}`;
}

function printSideBySide(): void {
  const [embedded, ...clustered] = databases.map((database) => results.get(database.name));
  if (!embedded) return;
  console.log("\n== side by side (rates; each cluster column with its share of the embedded one's)");
  const header = ["load", ...databases.map((database) => database.name)];
  const rows = [...embedded.keys()].map((label) => [
    label,
    `${Math.round(embedded.get(label)!.rate)} ${embedded.get(label)!.unit}`,
    ...clustered.map((measuredOn) => {
      const figure = measuredOn?.get(label);
      return figure ? `${Math.round(figure.rate)} (${((figure.rate / embedded.get(label)!.rate) * 100).toFixed(0)}%)` : "not measured";
    }),
  ]);
  const cpuRows = [...embedded.keys()].map((label) => [
    `${label}: CPU ms per answer`,
    ...databases.map((database) => {
      const figure = results.get(database.name)?.get(label);
      return figure
        ? Object.values(figure.cpuByPart)
            .reduce((sum, value) => sum + value, 0)
            .toFixed(2)
        : "";
    }),
  ]);
  const table = [header, ...rows, ...cpuRows];
  const widths = header.map((_, column) => Math.max(...table.map((row) => row[column]!.length)));
  const format = (row: string[]) => `| ${row.map((cell, column) => cell.padEnd(widths[column]!)).join(" | ")} |`;
  console.log(format(header));
  console.log(`|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`);
  for (const row of [...rows, ...cpuRows]) console.log(format(row));
}

function line(label: string, text: string): void {
  console.log(`  ${label.padEnd(40)} ${text}`);
}
function ms(value: number): string {
  return `${value.toFixed(value < 10 ? 1 : 0)} ms`;
}
