// The webhook burst of `npm run bench` (figure 5) alone: the APIs and the worker in their own processes, a
// receiver on loopback, and one time sweep expiring BENCH_WEBHOOK_EVENTS charges (default 2,000) of a
// linked merchant, writing their events and delivery jobs at once. Prints events/s (delivered ÷ last
// receipt − first event's created_at), enqueue → receipt p50/p99 and the worker's statements per delivered
// event (BENCH_VERBOSE=1 lists them, each with PostgreSQL's planning and execution time per event, and the
// tables read per event: whole-table scans, index scans and their rows).
// BENCH_BURSTS runs (default 2), one after the other. `node bench/webhook-burst.ts`;
// BENCH_API_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=…" profiles the Cobro processes.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withBenchDatabase } from "./fixtures/bench-database.ts";
import { adminIdToken, createBenchIntegration, postJson } from "./fixtures/bench-integration.ts";
import { postgresCpuSeconds, processTreeCpuSeconds, startBenchCobro, type BenchProcess } from "./fixtures/bench-processes.ts";
import { statementFigures, statementLines } from "./fixtures/statement-counts.ts";
import { tableReadLines, tableReadSnapshot } from "./fixtures/table-reads.ts";
import { sweepExpiringBurst } from "./fixtures/time-sweep.ts";
import { deliveriesSince, startWebhookReceipts } from "./load/webhook-receipts.ts";

const burstSize = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 2_000);
const bursts = Number(process.env.BENCH_BURSTS ?? 2);
const verbose = process.env.BENCH_VERBOSE === "1";
const dataDir = mkdtempSync(join(tmpdir(), "cobro-bench-burst-"));
await withBenchDatabase(async (database) => {
  const db = database.db;
  const bench = await createBenchIntegration(db, 1);
  const processes: BenchProcess[] = [];
  try {
    const api = await startBenchCobro(database.connectionString, dataDir, ["integration", "auth", "admin"]);
    processes.push(api);
    // The worker as its own role, so that its statements are counted apart from the bench's own.
    const worker = await startBenchCobro(database.workerConnectionString, dataDir, ["worker"]);
    processes.push(worker);
    const workerStatements = database.workerStatements;
    const adminToken = await adminIdToken(api.urls.auth!, bench.sandbox.integrationAdmin);
    const receipts = await startWebhookReceipts();
    await postJson(`${api.urls.admin!}/my-integration/urls`, { url: receipts.url, urlType: "webhook" }, { authorization: `Bearer ${adminToken}` });
    const merchant = bench.merchants[1] ?? bench.merchants[0]!;
    for (let run = 1; run <= bursts; run++) {
      const statementsBefore = await workerStatements.snapshot();
      const readsBefore = verbose ? await tableReadSnapshot(db) : undefined;
      const cpuBefore = { worker: processTreeCpuSeconds(worker.pid), api: processTreeCpuSeconds(api.pid), postgres: postgresCpuSeconds() };
      const { from, expiredEvents } = await sweepExpiringBurst(db, bench.integrationClientId, merchant.id, burstSize);
      const burst = await deliveriesSince(db, bench.integrationClientId, receipts, from);
      console.log(
        `burst ${run}: ${expiredEvents} events, ${burst.delivered} delivered in ${burst.seconds.toFixed(2)} s = ${Math.round(burst.eventsPerSecond)} events/s; enqueue → receipt p50 ${burst.p50} ms p99 ${burst.p99} ms`,
      );
      // CPU per delivered event, from the sweep to the last receipt (the API's share is the sweep's).
      const cpuMs = (before: number, after: number) => (((after - before) * 1000) / Math.max(1, burst.delivered)).toFixed(2);
      console.log(
        `  CPU ms per delivered event: worker ${cpuMs(cpuBefore.worker, processTreeCpuSeconds(worker.pid))}, PostgreSQL ${cpuMs(cpuBefore.postgres, postgresCpuSeconds())}, API ${cpuMs(cpuBefore.api, processTreeCpuSeconds(api.pid))}`,
      );
      if (workerStatements.unavailable) console.log(`  statements: ${workerStatements.unavailable}`);
      else {
        // The worker's statements per delivered event: the delivery's own, and the queue's bookkeeping
        // (taking and completing jobs, graphile-worker's schema) apart.
        const { top } = statementFigures(statementsBefore, await workerStatements.snapshot(), burst.delivered, Number.POSITIVE_INFINITY);
        // The queue's: graphile-worker's own statements and the delivery dispatcher's take.
        const isQueue = (query: string) => /graphile_worker"?\._private_/.test(query);
        const queue = top.filter((row) => isQueue(row.query)).reduce((sum, row) => sum + row.perRequest, 0);
        const delivery = top.filter((row) => !isQueue(row.query)).reduce((sum, row) => sum + row.perRequest, 0);
        console.log(`  worker statements per delivered event: ${delivery.toFixed(2)} delivery, ${queue.toFixed(2)} queue`);
        if (verbose) for (const text of statementLines(top.slice(0, 12), 140)) console.log(`    ${text}`);
      }
      if (readsBefore) {
        // The sweep's own reads are in these too: it runs once for the whole burst.
        console.log("  tables read per delivered event (every session):");
        for (const text of tableReadLines(readsBefore, await tableReadSnapshot(db), burst.delivered)) console.log(`    ${text}`);
      }
    }
    await receipts.close();
  } finally {
    for (const running of processes.reverse()) await running.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
