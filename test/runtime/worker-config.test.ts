// The worker's concurrency: jobs run at once in one process (webhook deliveries mostly wait on receivers).
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../server/config.ts";

describe("worker concurrency", () => {
  it("is 16 by default and read from COBRO_WORKER_CONCURRENCY", () => {
    expect(loadConfig({}, [], false).workerConcurrency).toBe(16);
    expect(loadConfig({ COBRO_WORKER_CONCURRENCY: "40" }, [], false).workerConcurrency).toBe(40);
  });

  it.each(["0", "2.5", "many", "201"])("refuses %j with a readable line", (value) => {
    expect(() => loadConfig({ COBRO_WORKER_CONCURRENCY: value }, [], false)).toThrow(ConfigError);
    expect(() => loadConfig({ COBRO_WORKER_CONCURRENCY: value }, [], false)).toThrow("COBRO_WORKER_CONCURRENCY must be a whole number from 1 to 200");
  });
});
