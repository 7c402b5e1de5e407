// Readiness: 200 while the database answers, the documented 503 {status: "unavailable"} when it does not
// (a load balancer takes the process out of rotation), and the cause in the log.
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startTestApi, type TestApi } from "../helpers/api.ts";
import { integrationHandlers } from "../../handlers/integration/index.ts";
import { anonymousCaller, type IntegrationCaller } from "../../domain/sign-in/callers.ts";
import { loadConfig } from "../../runtime/config.ts";
import { systemClock } from "../../domain/clock.ts";
import type { Database } from "../../db/schema.ts";
import { createMetrics } from "../../runtime/metrics.ts";

let api: TestApi;
// Port 1 on loopback: nothing listens there, so every query fails at once.
const unreachable = new Kysely<Database>({
  dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: "postgres://cobro@127.0.0.1:1/cobro", connectionTimeoutMillis: 1000 }) }),
});

beforeAll(async () => {
  api = await startTestApi<IntegrationCaller>("integration", {
    anonymous: anonymousCaller,
    security: { MerchantBearer: async () => ({ caller: anonymousCaller }) },
    handlers: integrationHandlers,
    services: {
      db: unreachable,
      clock: systemClock,
      config: loadConfig({}, []),
      tokens: undefined as never,
      credentialThrottle: undefined as never,
      transfers: undefined as never,
      outboundHttp: undefined as never,
      metrics: createMetrics("test"),
      isStopping: () => false,
    },
  });
});
afterAll(async () => {
  await api.close();
  await unreachable.destroy();
});

it("answers 503 {status: unavailable} when the database does not answer, and logs why", async () => {
  const response = await fetch(`${api.url}/readyz`);
  expect(response.status).toBe(503);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  expect(await response.json()).toEqual({ status: "unavailable" });
  expect(api.logLines.some((line) => String(line.msg).includes("readiness check failed"))).toBe(true);
});

it("stays live (healthz 200) while not ready", async () => {
  const response = await fetch(`${api.url}/healthz`);
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({ status: "ok" });
});
