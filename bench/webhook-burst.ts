// The webhook burst of `npm run bench` (figure 5) alone: the APIs and the worker in their own processes, a
// receiver on loopback, and one time sweep expiring BENCH_WEBHOOK_EVENTS charges (default 2,000) of a
// linked merchant, writing their events and delivery jobs at once. Prints events/s (delivered ÷ last
// receipt − first event's created_at) and enqueue → receipt p50/p99. BENCH_BURSTS runs (default 2), one
// after the other. `node bench/webhook-burst.ts`; BENCH_API_NODE_OPTIONS="--cpu-prof --cpu-prof-dir=…" profiles
// the Cobro processes.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { withBenchDatabase } from "./fixtures/bench-database.ts";
import { adminIdToken, createBenchIntegration, postJson } from "./fixtures/bench-integration.ts";
import { startBenchCobro, type BenchProcess } from "./fixtures/bench-processes.ts";
import { seedExpiringCharges } from "./fixtures/time-sweep.ts";
import { startWebhookReceipts } from "./load/webhook-receipts.ts";
import { runTimeTransitions } from "../domain/charges/time-transitions.ts";

const burstSize = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 2_000);
const bursts = Number(process.env.BENCH_BURSTS ?? 2);
const dataDir = mkdtempSync(join(tmpdir(), "cobro-bench-burst-"));
await withBenchDatabase(async (database) => {
  const db = database.db;
  const bench = await createBenchIntegration(db, 1);
  const processes: BenchProcess[] = [];
  try {
    const api = await startBenchCobro(database.connectionString, dataDir, ["integration", "auth", "admin"]);
    processes.push(api);
    processes.push(await startBenchCobro(database.connectionString, dataDir, ["worker"]));
    const adminToken = await adminIdToken(api.urls.auth!, bench.sandbox.integrationAdmin);
    const receipts = await startWebhookReceipts();
    await postJson(`${api.urls.admin!}/my-integration/urls`, { url: receipts.url, urlType: "webhook" }, { authorization: `Bearer ${adminToken}` });
    const merchant = bench.merchants[1] ?? bench.merchants[0]!;
    for (let run = 1; run <= bursts; run++) {
      await seedExpiringCharges(db, bench.integrationClientId, merchant.id, burstSize);
      const from = new Date();
      const swept = await runTimeTransitions(db, { now: new Date(), livemode: false, draftLifetimeHours: 6 });
      const deadline = Date.now() + 120_000;
      let events: { id: string; created_at: Date }[] = [];
      do {
        await new Promise((resolve) => setTimeout(resolve, 100));
        events = (
          await sql<{
            id: string;
            created_at: Date;
          }>`select id, created_at from events where integration_client_id = ${bench.integrationClientId} and created_at >= ${from}`.execute(db)
        ).rows;
      } while (events.some((event) => !receipts.arrivals.has(event.id)) && Date.now() < deadline);
      const latencies = events.flatMap((event) => {
        const arrived = receipts.arrivals.get(event.id);
        return arrived === undefined ? [] : [arrived - event.created_at.getTime()];
      });
      latencies.sort((a, b) => a - b);
      const percentile = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? Number.NaN;
      const first = Math.min(...events.map((event) => event.created_at.getTime()));
      const last = Math.max(...events.map((event) => receipts.arrivals.get(event.id) ?? 0));
      const seconds = (last - first) / 1000;
      console.log(
        `burst ${run}: ${swept.expiredEvents} events, ${latencies.length} delivered in ${seconds.toFixed(2)} s = ${Math.round(latencies.length / seconds)} events/s; enqueue → receipt p50 ${percentile(50)} ms p99 ${percentile(99)} ms`,
      );
    }
    await receipts.close();
  } finally {
    for (const running of processes.reverse()) await running.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
