// The group commit's settings (domain/reconciliation/transfer-batcher.ts): read from the environment, refused with a readable line.
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../runtime/config.ts";

describe("group commit of transfers", () => {
  it("holds 200 transfers a batch, waits 5 ms at most, with 1 batch committing at once, by default; each read from the environment", () => {
    expect(loadConfig({}, [], false).reconcileBatches).toEqual({ maxSize: 200, windowMs: 5, maxInFlight: 1 });
    expect(
      loadConfig({ COBRO_RECONCILE_BATCH_MAX: "50", COBRO_RECONCILE_BATCH_WINDOW_MS: "0", COBRO_RECONCILE_BATCHES_IN_FLIGHT: "3" }, [], false).reconcileBatches,
    ).toEqual({ maxSize: 50, windowMs: 0, maxInFlight: 3 });
  });

  it.each([
    ["COBRO_RECONCILE_BATCH_MAX", "0", "COBRO_RECONCILE_BATCH_MAX must be a whole number from 1 to 1000"],
    ["COBRO_RECONCILE_BATCH_MAX", "1001", "COBRO_RECONCILE_BATCH_MAX must be a whole number from 1 to 1000"],
    ["COBRO_RECONCILE_BATCH_WINDOW_MS", "2.5", "COBRO_RECONCILE_BATCH_WINDOW_MS must be a whole number of milliseconds from 0 to 1000"],
    ["COBRO_RECONCILE_BATCH_WINDOW_MS", "5000", "COBRO_RECONCILE_BATCH_WINDOW_MS must be a whole number of milliseconds from 0 to 1000"],
    ["COBRO_RECONCILE_BATCHES_IN_FLIGHT", "0", "COBRO_RECONCILE_BATCHES_IN_FLIGHT must be a whole number, 1 or more"],
    ["COBRO_RECONCILE_BATCHES_IN_FLIGHT", "many", "COBRO_RECONCILE_BATCHES_IN_FLIGHT must be a whole number, 1 or more"],
  ])("refuses %s=%j with a readable line", (name, value, line) => {
    expect(() => loadConfig({ [name]: value }, [], false)).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value }, [], false)).toThrow(line);
  });
});
