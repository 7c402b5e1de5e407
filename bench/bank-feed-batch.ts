// The bank feed's pages alone (`node bench/bank-feed-batch.ts`): the APIs and the worker in their own
// processes on one embedded PostgreSQL, a webhook receiver on loopback for the integration (each matched
// transfer's event is delivered), 10,000 CUIL-mode charges made by bulk, then pages of
// BENCH_PAGE_SIZE transfers (default 500) of 1 peso each to them, BENCH_CONNECTIONS at a time (default 2),
// signed as the bank integration signs. Prints transfers/s against the goal (≥ 5,000/s), the CPU per
// transfer of the APIs' process and of PostgreSQL (goal ≤ 1 ms), and the statements per page (BENCH_VERBOSE=1
// lists them, each with PostgreSQL's time in it per page).
// BENCH_SECONDS and BENCH_WARMUP_SECONDS as for `npm run bench`; BENCH_WORKER=0 starts no worker (the intake
// alone: the events wait undelivered).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withBenchDatabase } from "./fixtures/bench-database.ts";
import { adminIdToken, createBenchIntegration, merchantIdToken, postJson } from "./fixtures/bench-integration.ts";
import { cpuSeconds, startBenchCobro, type BenchProcess } from "./fixtures/bench-processes.ts";
import { payableCuilCharges } from "./fixtures/seeded-charges.ts";
import { statementLines } from "./fixtures/statement-counts.ts";
import { BENCH_BANK_FEED_SECRET, benchTransferResults, createPayableCharges, measureBankFeedPages } from "./load/bank-feed-pages.ts";
import { loadSettingsFromEnv } from "./load/load-run.ts";
import { startWebhookReceipts, type WebhookReceipts } from "./load/webhook-receipts.ts";

const pageSize = Number(process.env.BENCH_PAGE_SIZE ?? 500);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 2);
const settings = loadSettingsFromEnv(process.env);
const dataDir = mkdtempSync(join(tmpdir(), "cobro-bench-bank-feed-"));
await withBenchDatabase(async (database) => {
  const db = database.db;
  const bench = await createBenchIntegration(db, 0);
  const processes: BenchProcess[] = [];
  let receipts: WebhookReceipts | undefined;
  try {
    const env = { COBRO_BANK_FEED_SECRET: BENCH_BANK_FEED_SECRET };
    const api = await startBenchCobro(database.connectionString, dataDir, ["integration", "auth", "admin"], { env });
    processes.push(api);
    // BENCH_WORKER=0: the intake alone, no worker delivering the events (they wait in the queue).
    const worker = process.env.BENCH_WORKER === "0" ? undefined : await startBenchCobro(database.workerConnectionString, dataDir, ["worker"], { env });
    if (worker) processes.push(worker);
    // The integration's receiver answers, as a live one would: each matched transfer's event is delivered.
    receipts = await startWebhookReceipts();
    const adminToken = await adminIdToken(api.urls.auth!, bench.sandbox.integrationAdmin);
    await postJson(`${api.urls.admin}/my-integration/urls`, { url: receipts.url, urlType: "webhook" }, { authorization: `Bearer ${adminToken}` });
    const merchant = bench.merchants[0]!;
    await createPayableCharges(api.urls.integration!, await merchantIdToken(api.urls.auth!, bench.sandbox.integration, merchant), 100);
    const targets = await payableCuilCharges(db, merchant.id);
    const figures = await measureBankFeedPages(settings, {
      adminUrl: api.urls.admin!,
      targets,
      pageSize,
      connections,
      pid: api.pid,
      statements: database.statements,
      otherParts: () => ({ worker: worker ? cpuSeconds(worker.pid) : 0, bench: cpuSeconds(process.pid) }),
    });
    const results = await benchTransferResults(db);
    console.log(
      `pages of ${pageSize}, ${connections} at a time, over ${targets.length} charges (${results.matched} transfers matched, ${results.unmatched} unmatched)`,
    );
    console.log(`  pages: ${figures.rps.toFixed(1)}/s, p50 ${figures.p50} ms, p99 ${figures.p99} ms, failures ${figures.failures} (${figures.statuses})`);
    const met = figures.transfersPerSecond >= 5000 ? "met" : "NOT MET";
    console.log(`  transfers through the batch bank feed (pages of ${pageSize}): ${Math.round(figures.transfersPerSecond)}/s (goal ≥ 5,000/s: ${met})`);
    if (figures.cpuPerTransfer) {
      const { serverMs, postgresMs, others } = figures.cpuPerTransfer;
      console.log(
        `  CPU per transfer: API process ${serverMs.toFixed(3)} ms, PostgreSQL ${postgresMs.toFixed(3)} ms (goal ≤ 1 ms: ${postgresMs <= 1 ? "met" : "NOT MET"})` +
          (others ? `, the worker ${others.worker!.toFixed(3)} ms, this process (the load) ${others.bench!.toFixed(3)} ms` : ""),
      );
    }
    if (figures.statements && "perRequest" in figures.statements) {
      console.log(`  statements per page: ${figures.statements.perRequest.toFixed(1)}`);
      if (process.env.BENCH_VERBOSE) for (const text of statementLines(figures.statements.top)) console.log(`    ${text}`);
    }
  } finally {
    await receipts?.close();
    for (const running of processes.reverse()) await running.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
