// SIGTERM to a worker-only Cobro, as a release stops it: while its worker finishes (its jobs, then its
// heartbeat's farewell) the process still answers its metrics scrapes, and the listener closes only once
// the worker is done. The worker's stop is held without timing: the test holds a lock on the heartbeats
// table, and the stop forgets the stopped workers' heartbeats (a DELETE on it), which waits until the test
// lets go. That DELETE waiting is the sign that the stop is under way (the JSON log lines are buffered).
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePorts } from "../../scripts/free-ports.ts";
import { startCobroCluster, type CobroCluster } from "../helpers/cobro-cluster.ts";

let cluster: CobroCluster;
beforeAll(async () => {
  cluster = await startCobroCluster();
}, 120_000);
afterAll(async () => {
  await cluster?.close();
}, 60_000);

/** Resolves once a session of the worker waits on a lock to forget workers' heartbeats: its stop has begun. */
async function untilForgettingWaits(client: pg.Client): Promise<void> {
  for (;;) {
    const { rows } = await client.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity
       where datname = current_database() and wait_event_type = 'Lock' and query like 'delete from worker_heartbeats where worker_id = any%'`,
    );
    if (rows[0]!.n > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("SIGTERM to a worker process", () => {
  it("answers its metrics scrapes while the worker finishes, then exits 0", async () => {
    const [metricsPort] = await freePorts(1);
    const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    const worker = await cluster.startWorker({ COBRO_METRICS_PORT: String(metricsPort) });
    expect((await fetch(metricsUrl)).status).toBe(200);

    const holder = new pg.Client({ connectionString: cluster.database.connectionString, application_name: "cobro-test" });
    const watcher = new pg.Client({ connectionString: cluster.database.connectionString, application_name: "cobro-test" });
    await holder.connect();
    await watcher.connect();
    try {
      await holder.query("begin");
      await holder.query("lock table worker_heartbeats in share mode");
      worker.child.kill("SIGTERM");
      await untilForgettingWaits(watcher);
      const scrape = await fetch(metricsUrl).then(
        async (response) => ({ status: response.status, text: await response.text() }),
        (error: unknown) => ({ status: 0, text: String((error as Error).cause ?? error) }),
      );
      expect(scrape.status, scrape.text).toBe(200);
      expect(scrape.text).toContain("cobro_worker_heartbeats_total");
      expect(worker.child.exitCode).toBeNull(); // still finishing
    } finally {
      await holder.query("rollback").catch(() => undefined);
      await holder.end();
      await watcher.end();
    }
    expect(await worker.exited).toBe(0);
    await expect(fetch(metricsUrl)).rejects.toThrow(); // closed once the worker was done
  }, 120_000);
});
