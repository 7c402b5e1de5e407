// `npm run bench:metrics`: what the metrics listener costs the APIs. The API process (`--only
// integration,auth,admin`) is started with its metrics on and off in turn, scraped every second while on
// (harder than Prometheus's usual 15 s), and loaded with the main bench's create and GET runs; each is run
// `BENCH_METRICS_ROUNDS` times (2), alternating which comes first, so a machine that drifts favours
// neither. Prints requests a second, p50/p99 and the API process's CPU per answered request, side by
// side. docs/performance.md keeps the figures.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withBenchDatabase } from "./fixtures/bench-database.ts";
import { createBenchIntegration, merchantIdToken } from "./fixtures/bench-integration.ts";
import { startBenchCobro, type BenchProcess } from "./fixtures/bench-processes.ts";
import { seedPendingCharges } from "./fixtures/seeded-charges.ts";
import { loadSettingsFromEnv, measureLoad, type LoadFigures } from "./load/load-run.ts";
import { cuilChargeBody } from "./load/charge-bodies.ts";
import type { AutocannonOptions } from "autocannon";

const settings = loadSettingsFromEnv(process.env);
const rounds = Number(process.env.BENCH_METRICS_ROUNDS ?? 2);
const CONNECTIONS = 16;
const SEEDED = 10_000;

interface Figures extends LoadFigures {
  /** Milliseconds of the API process's CPU per 2xx answer over the measured run. */
  cpuMs: number;
}

/** A warm-up, then the measured run with the API process's CPU time over it (measureLoad's own count). */
async function measure(pid: number, options: Omit<AutocannonOptions, "duration">): Promise<Figures> {
  const figures = await measureLoad(settings, options, pid);
  return { ...figures, cpuMs: figures.cpu?.serverMs ?? Number.NaN };
}

/** GET /metrics every second, as a scraper does, until stopped; counts the scrapes and their failures. */
function scrapeEverySecond(url: string): { stop(): { scrapes: number; failures: number } } {
  let scrapes = 0;
  let failures = 0;
  const timer = setInterval(() => {
    fetch(url).then(
      async (response) => {
        await response.text();
        if (response.ok) scrapes++;
        else failures++;
      },
      () => failures++,
    );
  }, 1000);
  return {
    stop: () => {
      clearInterval(timer);
      return { scrapes, failures };
    },
  };
}

const dataDir = mkdtempSync(join(tmpdir(), "cobro-bench-metrics-"));
const results: Record<"on" | "off", { create: Figures[]; get: Figures[] }> = { on: { create: [], get: [] }, off: { create: [], get: [] } };
console.log(
  `metrics on vs off: the API process alone, ${CONNECTIONS} connections, ${settings.warmupSeconds} s warm-up + ${settings.seconds} s a run, ${rounds} rounds alternating`,
);
await withBenchDatabase(async (database) => {
  const bench = await createBenchIntegration(database.db, 0);
  const merchant = bench.merchants[0]!;
  await seedPendingCharges(database.db, {
    integrationClientId: bench.integrationClientId,
    merchantAccountId: merchant.id,
    count: SEEDED,
    referencePrefix: "SEEDREF-",
    from: 1,
  });
  for (let round = 0; round < rounds; round++) {
    for (const mode of round % 2 === 0 ? (["off", "on"] as const) : (["on", "off"] as const)) {
      const api: BenchProcess = await startBenchCobro(database.connectionString, dataDir, ["integration", "auth", "admin"], { metrics: mode === "on" });
      try {
        const token = await merchantIdToken(api.urls.auth!, bench.sandbox.integration, merchant);
        const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
        const scraper = api.metricsUrl ? scrapeEverySecond(api.metricsUrl) : undefined;
        const create = await measure(api.pid, {
          url: `${api.urls.integration}/payment-request`,
          connections: CONNECTIONS,
          requests: [{ method: "POST", headers, setupRequest: (request: object) => ({ ...request, body: cuilChargeBody() }) }],
        });
        const get = await measure(api.pid, {
          url: api.urls.integration!,
          connections: CONNECTIONS,
          requests: [
            {
              method: "GET",
              headers,
              setupRequest: (request) => ({ ...request, path: `/payment-request/SEEDREF-${1 + Math.floor(Math.random() * SEEDED)}` }),
            },
          ],
        });
        const scraped = scraper?.stop();
        if (scraped && scraped.failures > 0) throw new Error(`${scraped.failures} scrapes failed`);
        results[mode].create.push(create);
        results[mode].get.push(get);
        const row = (name: string, figures: Figures) =>
          `  round ${round + 1}, metrics ${mode.padEnd(3)} ${name.padEnd(7)} ${Math.round(figures.rps).toString().padStart(6)} req/s  p50 ${figures.p50.toFixed(1).padStart(5)} ms  p99 ${figures.p99.toFixed(1).padStart(5)} ms  CPU ${figures.cpuMs.toFixed(3)} ms/req${figures.failures > 0 ? `  (${figures.failures} failed: ${figures.statuses})` : ""}`;
        console.log(row("create", create));
        console.log(`${row("GET", get)}${scraped ? `  (${scraped.scrapes} scrapes)` : ""}`);
      } finally {
        await api.stop();
      }
    }
  }
});
rmSync(dataDir, { recursive: true, force: true });

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
console.log("\nside by side (mean of the rounds; on − off relative to off)");
console.log(`  ${"".padEnd(22)} ${"metrics off".padStart(14)} ${"metrics on".padStart(14)} ${"change".padStart(8)}`);
for (const run of ["create", "get"] as const) {
  for (const [label, pick, digits] of [
    ["req/s", (figures: Figures) => figures.rps, 0],
    ["p50 ms", (figures: Figures) => figures.p50, 1],
    ["p99 ms", (figures: Figures) => figures.p99, 1],
    ["CPU ms/req", (figures: Figures) => figures.cpuMs, 3],
  ] as const) {
    const off = mean(results.off[run].map(pick));
    const on = mean(results.on[run].map(pick));
    console.log(
      `  ${`${run === "get" ? "GET" : "create"} ${label}`.padEnd(22)} ${off.toFixed(digits).padStart(14)} ${on.toFixed(digits).padStart(14)} ${`${(((on - off) / off) * 100).toFixed(1)}%`.padStart(8)}`,
    );
  }
}
