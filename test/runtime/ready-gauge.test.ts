// cobro_ready: 1 while the database answers /readyz's check, 0 when it refuses or does not answer in time
// (a hung database must read 0, not keep the last 1 as a failed sampler's gauges do).
import { createServer, type Server, type Socket } from "node:net";
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../db/schema.ts";
import { sampleReadiness } from "../../runtime/database-gauges.ts";
import { createMetrics } from "../../runtime/metrics.ts";
import { serviceForFile } from "../helpers/service.ts";

const t = serviceForFile({ metrics: true });

const readyValue = async (metrics: ReturnType<typeof createMetrics>) => (await metrics.health.ready.get()).values[0]?.value;

function databaseAt(port: number): Kysely<Database> {
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: `postgres://cobro@127.0.0.1:${port}/cobro` }) }) });
}

describe("cobro_ready", () => {
  it("reads 1 in a scrape of a service whose database answers", async () => {
    const text = await (await fetch(t.metricsUrl!)).text();
    expect(text).toMatch(/^cobro_ready\{role="[^"]+"\} 1$/m);
  });

  it("reads 0 when the database refuses connections", async () => {
    const metrics = createMetrics("test");
    metrics.health.ready.set(1);
    const refused = databaseAt(1); // nothing listens on port 1
    try {
      await sampleReadiness(refused, metrics);
    } finally {
      await refused.destroy();
    }
    expect(await readyValue(metrics)).toBe(0);
  });

  describe("a database that accepts connections and never answers", () => {
    let silent: Server;
    const sockets = new Set<Socket>();
    beforeAll(async () => {
      silent = createServer((socket) => void sockets.add(socket));
      await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    });

    it("reads 0 once the check's own wait is over, before the scrape's", async () => {
      const metrics = createMetrics("test");
      metrics.health.ready.set(1);
      const hung = databaseAt((silent.address() as { port: number }).port);
      await sampleReadiness(hung, metrics, 200); // without its own wait, this never returns
      expect(await readyValue(metrics)).toBe(0);
      for (const socket of sockets) socket.destroy();
      await hung.destroy().catch(() => undefined);
    });
  });
});
