// `npm start` with no `--only`: the APIs in the process a person started, the worker in a supervised child
// process of its own, one banner and one log stream, stopped in order by one Ctrl-C.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type AddressInfo, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { startCobro, waitForOutput, type StartedCobro } from "../../scripts/cobro-process.ts";
import { runningEmbeddedConnectionString } from "../../db/embedded-postgres.ts";

/** Two free ports in a row: the APIs' metrics port, and the worker's after it. */
async function freePortPair(): Promise<number> {
  const listen = (port: number) =>
    new Promise<Server | undefined>((resolve) => {
      const server = createServer();
      server.once("error", () => resolve(undefined));
      server.listen(port, "127.0.0.1", () => resolve(server));
    });
  for (;;) {
    const first = (await listen(0))!;
    const port = (first.address() as AddressInfo).port;
    const second = await listen(port + 1);
    await new Promise((resolve) => first.close(resolve));
    if (second) {
      await new Promise((resolve) => second.close(resolve));
      return port;
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function metricsPage(url: string): Promise<string> {
  return (await fetch(url)).text();
}

async function eventually(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("the default start", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "cobro-layout-"));
  let cobro: StartedCobro;
  let metricsPort: number;
  let workerPid: number;
  let postmasterPid: number;

  beforeAll(async () => {
    metricsPort = await freePortPair();
    cobro = startCobro({ COBRO_DATA_DIR: dataDir, LOG_FORMAT: "pretty", LOG_LEVEL: "info", COBRO_METRICS_PORT: String(metricsPort) });
    const [, pid] = await waitForOutput(cobro, /worker\s+running \(process (\d+)\)/);
    workerPid = Number(pid);
    await waitForOutput(cobro, /the integration's own test merchant/);
    postmasterPid = Number(readFileSync(join(dataDir, "postgres", "postmaster.pid"), "utf8").split("\n")[0]);
  }, 120_000);
  afterAll(() => {
    cobro.child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("runs npm start's bundle in both processes, not the TypeScript sources (no type stripper held in either)", () => {
    const entryOf = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[1];
    expect(entryOf(cobro.child.pid!)).toBe(join(import.meta.dirname, "..", "..", "server", "main.bundle.js"));
    expect(entryOf(workerPid)).toBe(entryOf(cobro.child.pid!));
  });

  it("runs the APIs and the worker in two processes, each with its own metrics, under one banner", async () => {
    expect(workerPid).not.toBe(cobro.child.pid);
    expect(alive(workerPid)).toBe(true);
    expect(cobro.output().match(/is running/g)).toHaveLength(1);
    expect(cobro.output().match(/credentials are shown once/g)).toHaveLength(1);
    expect(cobro.output()).toContain(`  metrics      http://127.0.0.1:${metricsPort}/metrics (APIs, process ${cobro.child.pid})`);
    expect(cobro.output()).toContain(`               http://127.0.0.1:${metricsPort + 1}/metrics (worker)`);
    expect(await metricsPage(`http://127.0.0.1:${metricsPort}/metrics`)).toMatch(/^process_cpu_seconds_total\{role="integration,auth,admin"\} /m);
    expect(await metricsPage(`http://127.0.0.1:${metricsPort + 1}/metrics`)).toMatch(/^process_cpu_seconds_total\{role="worker"\} /m);
    // running.json names the process that stops everything.
    expect(JSON.parse(readFileSync(join(dataDir, "running.json"), "utf8")).pid).toBe(cobro.child.pid);
  });

  it("writes both processes' log lines, whole, on its own output", async () => {
    const integrationUrl = /^\s+integration\s+(http:\S+)/m.exec(cobro.output())![1]!;
    expect((await fetch(`${integrationUrl}/readyz`)).status).toBe(200);
    await waitForOutput(cobro, /^\[[\d:.]+\] INFO: GET \/readyz 200 \d+ms \(integration\)$/m);
    // The worker's lines say so; every line starts with its time, or is a field of the line above.
    expect(cobro.output()).toMatch(/^\[[\d:.]+\] INFO: \(worker\) no email and chat provider: /m);
    const lines = cobro.output().split("\n");
    const banner = lines.indexOf("Cobro (sandbox) is running");
    const credentialsEnd = lines.findIndex((line) => line.includes("the integration's own test merchant"));
    const logLines = [...lines.slice(0, banner), ...lines.slice(credentialsEnd + 1)].filter((line) => line !== "");
    expect(logLines.filter((line) => !/^\[[\d:.]+\] [A-Z]+: |^ {4}\S/.test(line))).toEqual([]);
  });

  it("restarts a worker process that dies, and its jobs run again", async () => {
    process.kill(workerPid, "SIGKILL");
    const [, pid] = await waitForOutput(cobro, /INFO: the worker process restarted\n\s+workerPid: (\d+)/);
    expect(Number(pid)).not.toBe(workerPid);
    expect(cobro.output()).toMatch(/ERROR: the worker process exited: restarting it\n(\s+\w+: .*\n)*?\s+signal: "SIGKILL"/);
    expect(cobro.output()).toMatch(/restartInMs: 1000/);
    workerPid = Number(pid);
    const client = new pg.Client({ connectionString: runningEmbeddedConnectionString(dataDir) });
    await client.connect();
    try {
      await client.query(`select graphile_worker.add_job('noop', '{}'::json)`);
    } finally {
      await client.end();
    }
    await eventually(
      async () =>
        /^cobro_job_runs_total\{[^}]*task="noop"[^}]*outcome="success"[^}]*\} 1$/m.test(await metricsPage(`http://127.0.0.1:${metricsPort + 1}/metrics`)),
      "the restarted worker to run a job",
    );
  }, 90_000);

  it("stops the worker, the APIs and the embedded PostgreSQL on one Ctrl-C, leaving no process behind", async () => {
    cobro.child.kill("SIGINT");
    expect(await cobro.exited).toBe(0);
    expect(alive(workerPid)).toBe(false);
    await eventually(() => !alive(postmasterPid), "the embedded PostgreSQL to stop", 10_000);
    expect(existsSync(join(dataDir, "running.json"))).toBe(false);
    // In order: the worker had stopped before the parent's own stop finished.
    const workerStopped = cobro.output().search(/INFO: \(worker\) stopped$/m);
    expect(workerStopped, cobro.output()).toBeGreaterThan(-1);
    expect(cobro.output().search(/INFO: stopped$/m)).toBeGreaterThan(workerStopped);
  }, 60_000);
});

describe("COBRO_SINGLE_PROCESS=true", () => {
  it("runs the APIs and the worker in the one process, as before", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "cobro-layout-single-"));
    const cobro = startCobro({ COBRO_DATA_DIR: dataDir, COBRO_SINGLE_PROCESS: "true" });
    try {
      await waitForOutput(cobro, /worker\s+running$/m);
      expect(cobro.output()).not.toContain("(process ");
      cobro.child.kill("SIGTERM");
      expect(await cobro.exited).toBe(0);
    } finally {
      cobro.child.kill("SIGKILL");
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
