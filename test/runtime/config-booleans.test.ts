// Yes-or-no variables read the words people write (true/false, 1/0, yes/no, any case) and refuse anything
// else in one line, instead of taking a typo for "no".
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../runtime/config.ts";

const sandbox = (value: string | undefined) => loadConfig({ COBRO_ALLOW_LOOPBACK_URLS: value }, [], false).allowLoopbackUrls;

describe("COBRO_ALLOW_LOOPBACK_URLS", () => {
  it("takes true, 1 and yes as yes, and false, 0 and no as no, in any case", () => {
    for (const value of ["true", "TRUE", "1", "yes", "Yes", " true "]) expect(sandbox(value), value).toBe(true);
    for (const value of ["false", "False", "0", "no", "NO"]) expect(sandbox(value), value).toBe(false);
  });

  it("is no when unset or empty", () => {
    expect(sandbox(undefined)).toBe(false);
    expect(sandbox("")).toBe(false);
  });

  it("refuses any other word, naming the variable and what it takes", () => {
    for (const value of ["maybe", "on", "2", "tru"]) {
      expect(() => sandbox(value), value).toThrow(ConfigError);
      expect(() => sandbox(value), value).toThrow(`COBRO_ALLOW_LOOPBACK_URLS must be true or false (1/0 and yes/no also work), not "${value}"`);
    }
  });

  it("stays no in Production, whatever it says", () => {
    expect(
      loadConfig({ SERVICE_ENV: "production", COBRO_ALLOW_LOOPBACK_URLS: "yes", COBRO_SECRET_KEY: `k:${Buffer.alloc(32, 1).toString("base64")}` }, [], false)
        .allowLoopbackUrls,
    ).toBe(false);
  });
});

describe("COBRO_SINGLE_PROCESS", () => {
  const workerInChild = (env: Record<string, string>, argv: string[] = []) => loadConfig(env, argv, false).workerInChildProcess;

  it("leaves the worker in a child process of its own by default, and in this one when true", () => {
    expect(workerInChild({})).toBe(true);
    expect(workerInChild({ COBRO_SINGLE_PROCESS: "false" })).toBe(true);
    expect(workerInChild({ COBRO_SINGLE_PROCESS: "yes" })).toBe(false);
  });

  it("never splits a process started with --only, even with every part named", () => {
    expect(workerInChild({}, ["--only", "integration,auth,admin,worker"])).toBe(false);
    expect(workerInChild({}, ["--only=worker"])).toBe(false);
  });

  it("refuses any other word, naming the variable", () => {
    expect(() => workerInChild({ COBRO_SINGLE_PROCESS: "one" })).toThrow(`COBRO_SINGLE_PROCESS must be true or false (1/0 and yes/no also work), not "one"`);
  });
});

describe("COBRO_DB_PREPARED_STATEMENTS", () => {
  const prepared = (value: string | undefined) => loadConfig({ COBRO_DB_PREPARED_STATEMENTS: value }, [], false).preparedStatements;

  it("prepares repeated statements by default, and not when false (behind a pooler that cannot keep them)", () => {
    expect(prepared(undefined)).toBe(true);
    expect(prepared("no")).toBe(false);
    expect(() => prepared("off")).toThrow(`COBRO_DB_PREPARED_STATEMENTS must be true or false (1/0 and yes/no also work), not "off"`);
  });
});

describe("COBRO_DELIVERY_DISPATCHER", () => {
  const dispatcher = (value: string | undefined) => loadConfig({ COBRO_DELIVERY_DISPATCHER: value }, [], false).deliveryDispatcher;
  it("is on by default (deliveries taken in batches); false runs one graphile-worker job per delivery", () => {
    expect(dispatcher(undefined)).toBe(true);
    expect(dispatcher("false")).toBe(false);
    expect(() => dispatcher("sometimes")).toThrow(`COBRO_DELIVERY_DISPATCHER must be true or false (1/0 and yes/no also work), not "sometimes"`);
  });
});
