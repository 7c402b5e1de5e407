// `npm start` as a person runs it: what it prints, how it refuses a bad start, and how it stops.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { servedUrls, startCobro as start, waitForOutput as waitFor, type StartedCobro as Started } from "../../scripts/cobro-process.ts";
import { shownUrl } from "../../server/banner.ts";

/** A pretty log line's start: its time and level. */
const PRETTY_LINE = /^\[\d\d:\d\d:\d\d\.\d{3}\] (TRACE|DEBUG|INFO|WARN|ERROR|FATAL): /;

describe("a configuration error", () => {
  it("is one readable line per problem and exit code 2, before anything starts", async () => {
    const started = start({ SERVICE_ENV: "staging", INTEGRATION_PORT: "70000" });
    expect(await started.exited).toBe(2);
    expect(started.output()).toContain('SERVICE_ENV must be "sandbox" or "production", not "staging"');
    expect(started.output()).toContain("INTEGRATION_PORT must be a port number from 0 to 65535");
    expect(started.output()).not.toMatch(/\n\s+at /);
  });

  it("reports an unreachable DATABASE_URL in one line", async () => {
    const started = start({ DATABASE_URL: "postgres://nobody:wrong@127.0.0.1:1/none" });
    expect(await started.exited).toBe(1);
    expect(started.output()).toMatch(/^cobro: .*127\.0\.0\.1:1/m);
    expect(started.output()).not.toContain("wrong");
    expect(started.output()).not.toMatch(/\n\s+at /);
  });
});

describe("the embedded default", () => {
  const dataDir = mkdtempSync(join(tmpdir(), "cobro-process-"));
  let first: Started;
  let urls: Record<string, string>;

  beforeAll(async () => {
    // What a person sees at a terminal: there LOG_FORMAT is pretty by default (test/runtime/logs.test.ts).
    first = start({ COBRO_DATA_DIR: dataDir, LOG_FORMAT: "pretty", LOG_LEVEL: "info" });
    await waitFor(first, /worker\s+running/);
    urls = servedUrls(first.output());
  }, 120_000);
  afterAll(() => {
    first.child.kill("SIGKILL");
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("prints the three URLs, the data folder and how payer notifications go out, and serves them", async () => {
    expect(Object.keys(urls).sort()).toEqual(["admin", "auth", "integration"]);
    expect(first.output()).toContain(`embedded PostgreSQL in ${dataDir}`);
    expect(first.output()).toContain("payer notifications  email simulated (no provider), chat simulated (no provider)");
    expect(first.output()).toContain("every operation of the served contracts is implemented");
    expect(first.output()).not.toContain("answer 501");
    for (const url of Object.values(urls)) {
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: "ready" });
    }
  });

  it("at a terminal, starts in a few lines that end with the banner, then writes one line a request", async () => {
    const output = () => stripVTControlCharacters(first.output());
    const lines = output().split("\n");
    const banner = lines.indexOf("Cobro (sandbox) is running");
    expect(banner, output()).toBeGreaterThan(0);
    // Start-up: a handful of lines (a first start also creates the data folder and applies the migrations).
    expect(lines.slice(0, banner).length, output()).toBeLessThanOrEqual(10);
    expect(lines.slice(0, banner).filter((line) => PRETTY_LINE.test(line)).length).toBeLessThanOrEqual(5);

    const answer = await fetch(`${urls.admin}/no-such-page?token=not-for-logs`);
    expect(answer.status).toBe(404);
    const requestLine = /^.* INFO: GET \/no-such-page\?token=\[redacted\] 404 \d+ms \(admin\)$/m;
    await waitFor(first, requestLine);
    const after = output().split("\n");
    const at = after.findIndex((line) => requestLine.test(line));
    // The line after it (if any yet) is another record, not a field of this one.
    expect(after[at + 1] ?? "", output()).not.toMatch(/^\s/);
    expect(output()).not.toContain("not-for-logs");
    // Nothing of the start-up trails the banner: after the credentials come the requests, one line each.
    const credentialsEnd = after.findIndex((line) => line.includes("the integration's own test merchant"));
    expect(credentialsEnd).toBeGreaterThan(banner);
    const oneLineRequest = /^\[[\d:.]+\] INFO: [A-Z]+ \/\S* \d{3} \d+ms \((integration|auth|admin)\)$/;
    expect(
      after.slice(credentialsEnd + 1, at + 1).filter((line) => !oneLineRequest.test(line)),
      output(),
    ).toEqual([]);
  });

  it("refuses a second start on the same data folder with one readable line", async () => {
    const second = start({ COBRO_DATA_DIR: dataDir });
    expect(await second.exited).toBe(1);
    expect(second.output()).toMatch(/^cobro: .*already/m);
    expect(second.output()).not.toMatch(/\n\s+at /);
    // and the first one is unharmed
    expect((await fetch(`${urls.integration}/readyz`)).status).toBe(200);
  });

  it("refuses a port that is taken with one readable line, before any database is created", async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as { port: number }).port;
    const otherData = mkdtempSync(join(tmpdir(), "cobro-process-port-"));
    try {
      const started = start({ COBRO_DATA_DIR: otherData, AUTH_PORT: String(port) });
      expect(await started.exited).toBe(1);
      expect(started.output()).toContain(`Port ${port} (auth API) is already in use`);
      // The embedded PostgreSQL was never initialised: the port was checked first.
      expect(readdirSync(otherData).filter((name) => name !== "cobro.lock" && name !== "running.json")).toEqual([]);
    } finally {
      blocker.close();
      rmSync(otherData, { recursive: true, force: true });
    }
  }, 120_000);

  it("stops cleanly on SIGTERM, and starts again on the same data", async () => {
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    // Behind a proxy: the banner shows the public URL, and where the API listens.
    const again = start({ COBRO_DATA_DIR: dataDir, COBRO_INTEGRATION_URL: "https://pagos.example.com" });
    try {
      const match = await waitFor(again, /^\s+integration\s+https:\/\/pagos\.example\.com \(listening on (http:\/\/127\.0\.0\.1:\d+)\)$/m);
      await waitFor(again, /worker\s+running/);
      expect((await fetch(`${match[1]}/readyz`)).status).toBe(200);
      again.child.kill("SIGINT");
      expect(await again.exited).toBe(0);
    } finally {
      again.child.kill("SIGKILL");
    }
  }, 120_000);
});

describe("the start-up lines' addresses", () => {
  it("are the public URLs, which sandbox.json, emails and the tokens' issuer use, with no listener when it is the same port here", () => {
    expect(shownUrl("http://localhost:3000", "http://127.0.0.1:3000")).toBe("http://localhost:3000");
    expect(shownUrl("http://127.0.0.1:41234", "http://127.0.0.1:41234")).toBe("http://127.0.0.1:41234");
    expect(shownUrl("http://localhost:8000", "http://127.0.0.1:3000")).toBe("http://localhost:8000 (listening on http://127.0.0.1:3000)");
    expect(shownUrl("https://api.example.com", "http://0.0.0.0:3000")).toBe("https://api.example.com (listening on http://0.0.0.0:3000)");
  });
});
