// The worker's concurrency: jobs run at once in one process (webhook deliveries mostly wait on receivers).
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../runtime/config.ts";

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

describe("delivery pace", () => {
  it("is 20 ms by default and read from COBRO_DELIVERY_PACE_MS; 0 looks at every notification", () => {
    expect(loadConfig({}, [], false).deliveryPaceMs).toBe(20);
    expect(loadConfig({ COBRO_DELIVERY_PACE_MS: "50" }, [], false).deliveryPaceMs).toBe(50);
    expect(loadConfig({ COBRO_DELIVERY_PACE_MS: "0" }, [], false).deliveryPaceMs).toBe(0);
  });

  it.each(["-1", "2.5", "soon", "1001"])("refuses %j with a readable line", (value) => {
    expect(() => loadConfig({ COBRO_DELIVERY_PACE_MS: value }, [], false)).toThrow(
      "COBRO_DELIVERY_PACE_MS must be a whole number of milliseconds from 0 to 1000",
    );
  });
});

describe("worker heartbeat", () => {
  it("beats every 30 s and takes a worker quiet for 2 minutes as dead by default; both read from the environment", () => {
    expect(loadConfig({}, [], false)).toMatchObject({ workerHeartbeatMs: 30_000, workerStaleAfterMs: 120_000 });
    expect(loadConfig({ COBRO_WORKER_HEARTBEAT_MS: "500", COBRO_WORKER_STALE_AFTER_MS: "3000" }, [], false)).toMatchObject({
      workerHeartbeatMs: 500,
      workerStaleAfterMs: 3000,
    });
  });

  it("refuses a staleness that a live worker's heartbeat could miss", () => {
    expect(() => loadConfig({ COBRO_WORKER_HEARTBEAT_MS: "1000", COBRO_WORKER_STALE_AFTER_MS: "2000" }, [], false)).toThrow(
      "COBRO_WORKER_STALE_AFTER_MS must be a whole number of milliseconds, more than twice COBRO_WORKER_HEARTBEAT_MS",
    );
    expect(() => loadConfig({ COBRO_WORKER_HEARTBEAT_MS: "10" }, [], false)).toThrow(
      "COBRO_WORKER_HEARTBEAT_MS must be a whole number of milliseconds, 100 or more",
    );
  });
});

describe("backup monitoring", () => {
  it("is off by default; COBRO_PGBACKREST_STANZA turns it on, COBRO_PGBACKREST_CONFIG names pgBackRest's file", () => {
    expect(loadConfig({}, [], false).backups).toBeUndefined();
    expect(loadConfig({ COBRO_PGBACKREST_STANZA: "cobro" }, [], false).backups).toEqual({ stanza: "cobro" });
    expect(loadConfig({ COBRO_PGBACKREST_STANZA: "cobro", COBRO_PGBACKREST_CONFIG: "/etc/pgbackrest/cobro.conf" }, [], false).backups).toEqual({
      stanza: "cobro",
      configPath: "/etc/pgbackrest/cobro.conf",
    });
  });

  it("refuses a stanza that is no pgBackRest name, and a configuration file without a stanza", () => {
    expect(() => loadConfig({ COBRO_PGBACKREST_STANZA: "cobro --repo1-path=/tmp" }, [], false)).toThrow(
      "COBRO_PGBACKREST_STANZA must be a pgBackRest stanza name (letters, digits, '.', '_', '-')",
    );
    expect(() => loadConfig({ COBRO_PGBACKREST_CONFIG: "/etc/pgbackrest/cobro.conf" }, [], false)).toThrow(
      "COBRO_PGBACKREST_CONFIG needs COBRO_PGBACKREST_STANZA",
    );
  });
});
