// The bulk create of `npm run bench` (figure 3) alone: the APIs and the worker in their own processes,
// `POST /payment-request/bulk` of BENCH_BULK_SIZE charges (default 100), 16 batches at a time, one
// merchant. Prints charges/s, and the CPU per charge of the APIs' process and of PostgreSQL over the
// measured run (which holds on a shared machine where rates do not), and the statements per batch
// (BENCH_VERBOSE=1 lists them with PostgreSQL's planning and execution time). BENCH_SECONDS (default 8)
// after BENCH_WARMUP_SECONDS (2); BENCH_RUNS runs one after the other (default 2). `node bench/bulk.ts`;
// BENCH_API_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=…" profiles the Cobro processes.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withBenchDatabase } from "./fixtures/bench-database.ts";
import { createBenchIntegration, merchantIdToken } from "./fixtures/bench-integration.ts";
import { startBenchCobro, type BenchProcess } from "./fixtures/bench-processes.ts";
import { bulkBody } from "./load/charge-bodies.ts";
import { loadSettingsFromEnv, measureLoad } from "./load/load-run.ts";

const BULK_SIZE = Number(process.env.BENCH_BULK_SIZE ?? 100);
const CONNECTIONS = 16;
const runs = Number(process.env.BENCH_RUNS ?? 2);
const settings = loadSettingsFromEnv(process.env);
const dataDir = mkdtempSync(join(tmpdir(), "cobro-bench-bulk-"));
await withBenchDatabase(async (database) => {
  const bench = await createBenchIntegration(database.db, 0);
  const processes: BenchProcess[] = [];
  try {
    const api = await startBenchCobro(database.connectionString, dataDir, ["integration", "auth", "admin"]);
    processes.push(api);
    processes.push(await startBenchCobro(database.workerConnectionString, dataDir, ["worker"]));
    const token = await merchantIdToken(api.urls.auth!, bench.sandbox.integration, bench.merchants[0]!);
    const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
    for (let run = 1; run <= runs; run++) {
      const figures = await measureLoad(
        settings,
        {
          url: `${api.urls.integration!}/payment-request/bulk`,
          connections: CONNECTIONS,
          timeout: 30,
          requests: [{ method: "POST", headers, setupRequest: (request) => ({ ...request, body: bulkBody(BULK_SIZE) }) }],
        },
        api.pid,
        database.statements,
      );
      const perCharge = (ms: number) => (ms / BULK_SIZE).toFixed(3);
      console.log(
        `run ${run}: ${Math.round(figures.rps * BULK_SIZE)} charges/s (${figures.rps.toFixed(1)} batches of ${BULK_SIZE}/s, p50 ${figures.p50} ms, p99 ${figures.p99} ms)${
          figures.failures > 0 ? `, ${figures.failures} failed: ${figures.statuses}` : ""
        }`,
      );
      if (figures.cpu) console.log(`  CPU per charge: API process ${perCharge(figures.cpu.serverMs)} ms, PostgreSQL ${perCharge(figures.cpu.postgresMs)} ms`);
      const counted = figures.statements;
      if (counted && !("unavailable" in counted)) {
        console.log(`  statements per batch: ${counted.perRequest.toFixed(2)}`);
        if (process.env.BENCH_VERBOSE)
          for (const { perRequest, execMsPerRequest, query } of counted.top)
            console.log(`    ${perRequest.toFixed(2).padStart(6)} ${execMsPerRequest.toFixed(2).padStart(7)} ms  ${query.replace(/\s+/g, " ").slice(0, 160)}`);
      } else if (counted) console.log(`  statements: ${counted.unavailable}`);
    }
  } finally {
    for (const running of processes.reverse()) await running.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
