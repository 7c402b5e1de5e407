// A Sandbox a newcomer can use at once: the first `npm start` on an empty data folder creates a platform
// admin, an integration, its admin and a linked merchant, prints their credentials once and writes
// `<COBRO_DATA_DIR>/sandbox.json` (`sandbox.<installation id>.json` for a database of DATABASE_URL, so that
// each database keeps its own); `npm run sandbox:bootstrap -- --json` makes a fresh set against the
// running Sandbox. Both are real processes, as a person runs them (see test/runtime/process.test.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { postJson, read } from "../helpers/service.ts";
import { exchangeCode, obtainCode } from "../helpers/oauth.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { allServedUrls, type SandboxUrls } from "../helpers/sandbox-process.ts";
import { cobroEnv, ROOT, runScript, startCobro, type ScriptRun, waitForOutput as waitFor, type StartedCobro as Started } from "../../scripts/cobro-process.ts";

const BOOTSTRAP = join(ROOT, "scripts", "sandbox-bootstrap.ts");

/** The exact JSON of the issue, as key names (nested objects as nested shapes). */
const SANDBOX_JSON_SHAPE = {
  integrationApiUrl: "string",
  authApiUrl: "string",
  adminApiUrl: "string",
  platformAdmin: { email: "string", password: "string" },
  integration: { clientId: "string", clientSecret: "string", redirectUri: "string", name: "string" },
  integrationAdmin: { email: "string", password: "string" },
  merchant: { email: "string", password: "string", merchantUserId: "string" },
};

interface SandboxJson {
  integrationApiUrl: string;
  authApiUrl: string;
  adminApiUrl: string;
  platformAdmin: { email: string; password: string };
  integration: { clientId: string; clientSecret: string; redirectUri: string; name: string };
  integrationAdmin: { email: string; password: string };
  merchant: { email: string; password: string; merchantUserId: string };
}

/** Key names and value types, recursively, with keys in the document's own order. */
function shapeOf(value: unknown): unknown {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, shapeOf(inner)]));
}

const secretsOf = (set: SandboxJson) => [set.platformAdmin.password, set.integration.clientSecret, set.integrationAdmin.password, set.merchant.password];

const occurrences = (text: string, part: string) => text.split(part).length - 1;

function env(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return cobroEnv({ COBRO_DATA_DIR: dataDir, ...extra });
}

function start(dataDir: string, extra: Record<string, string> = {}): Started {
  return startCobro({ COBRO_DATA_DIR: dataDir, ...extra });
}

/** `node scripts/sandbox-bootstrap.ts --json`, as `npm run sandbox:bootstrap -- --json` runs it. */
function runBootstrap(dataDir: string): Promise<ScriptRun> {
  return runScript(BOOTSTRAP, ["--json"], env(dataDir));
}

async function stop(started: Started): Promise<number | null> {
  started.child.kill("SIGTERM");
  return started.exited;
}

const dataDir = mkdtempSync(join(tmpdir(), "cobro-bootstrap-"));
const sandboxFile = join(dataDir, "sandbox.json");
let first: Started;
let second: Started;
let urls: SandboxUrls;
let saved: SandboxJson;
let savedText: string;
let firstExit: number | null;
let savedUrlsReach: string[];

const readiness = (url: string) =>
  fetch(`${url}/readyz`).then(
    async (response) => `${url}: ${response.status} ${await response.text()}`,
    (error: unknown) => `${url}: ${String(error)}`,
  );

beforeAll(async () => {
  // Info-level logs on the first start, so that the test sees any secret that reaches a log line.
  first = start(dataDir, { LOG_LEVEL: "info" });
  await waitFor(first, /worker\s+running/);
  await waitFor(first, /merchantUserId \S+\)$/m);
  savedText = readFileSync(sandboxFile, "utf8");
  saved = JSON.parse(savedText) as SandboxJson;
  // With ports 0 each start has new ports: the saved URLs are those of the start that wrote the file.
  savedUrlsReach = await Promise.all([saved.integrationApiUrl, saved.authApiUrl, saved.adminApiUrl].map(readiness));
  firstExit = await stop(first);

  second = start(dataDir);
  await waitFor(second, /worker\s+running/);
  urls = allServedUrls(second.output());
}, 180_000);

afterAll(async () => {
  for (const started of [first, second]) {
    if (started && started.child.exitCode === null && started.child.signalCode === null) {
      started.child.kill("SIGTERM");
      const stopped = await Promise.race([started.exited.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 20_000))]);
      if (!stopped) started.child.kill("SIGKILL");
    }
  }
  await stopOrphanedPostgres(join(dataDir, "postgres"));
  rmSync(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}, 60_000);

/**
 * A Cobro that dies instead of stopping leaves its embedded PostgreSQL running (it runs in its own session).
 * Stop the postmaster of this test's data folder, and only that one (its command line names the folder).
 */
async function stopOrphanedPostgres(pgDir: string): Promise<void> {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(join(pgDir, "postmaster.pid"), "utf8").split("\n")[0] ?? "", 10);
    if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").includes(pgDir)) return;
  } catch {
    return; // no postmaster.pid, or not running
  }
  process.kill(pid, "SIGINT"); // fast shutdown
  for (let waited = 0; waited < 10_000; waited += 100) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("the first npm start of an empty Sandbox", () => {
  it("prints the new credentials once, and no log line carries a secret", () => {
    const output = first.output();
    expect(occurrences(output, "A new Sandbox")).toBe(1);
    expect(output).toContain(`these credentials are shown once (also in ${sandboxFile})`);
    expect(output).toMatch(/^\s+portal\s+http:\/\/\S+\/portal\/ \(sign in as an admin\)$/m);
    expect(output).toMatch(new RegExp(`^\\s+platform admin\\s+${literal(saved.platformAdmin.email)} / ${literal(saved.platformAdmin.password)}$`, "m"));
    expect(output).toMatch(
      new RegExp(
        `^\\s+integration\\s+${literal(saved.integration.name)}: clientId ${literal(saved.integration.clientId)}, clientSecret ${literal(saved.integration.clientSecret)}$`,
        "m",
      ),
    );
    expect(output).toMatch(/^\s+redirect URI http:\/\/localhost:8080\/callback$/m);
    expect(output).toMatch(
      new RegExp(`^\\s+integration admin\\s+${literal(saved.integrationAdmin.email)} / ${literal(saved.integrationAdmin.password)}$`, "m"),
    );
    expect(output).toMatch(
      new RegExp(
        `^\\s+merchant\\s+${literal(saved.merchant.email)} / ${literal(saved.merchant.password)} \\(merchantUserId ${literal(saved.merchant.merchantUserId)}\\)$`,
        "m",
      ),
    );
    // Test tokens are not this merchant's: the lines under it say whose they are.
    expect(output).toMatch(
      new RegExp(
        `\\(merchantUserId ${literal(saved.merchant.merchantUserId)}\\)\\n\\s+signs in on the authorization screen \\(OAuth\\); POST /my-integration/test-tokens\\n\\s+gives tokens of another account instead, the integration's own test merchant\\n`,
      ),
    );
    for (const secret of secretsOf(saved)) expect(occurrences(output, secret)).toBe(1);
  });

  it("stops cleanly on SIGTERM", () => {
    expect(firstExit, `signal ${first.child.signalCode}\n${errorLines(first.output())}`).toBe(0);
  });

  it("writes sandbox.json, readable only by its owner, with exactly the issue's keys", () => {
    expect(statSync(sandboxFile).mode & 0o777).toBe(0o600);
    expect(shapeOf(saved)).toEqual(SANDBOX_JSON_SHAPE);
    expect(Object.keys(saved)).toEqual(Object.keys(SANDBOX_JSON_SHAPE));
    expect(saved.integration.redirectUri).toBe("http://localhost:8080/callback");
    expect(saved.integration.clientId).toMatch(/^cli_/);
    expect(saved.integration.clientSecret).toMatch(/^cs_/);
  });

  it("does not print or write new credentials on the next start of the same data", () => {
    const output = second.output();
    expect(output).not.toContain("A new Sandbox");
    for (const secret of secretsOf(saved)) expect(output).not.toContain(secret);
    expect(readFileSync(sandboxFile, "utf8")).toBe(savedText);
    expect(statSync(sandboxFile).mode & 0o777).toBe(0o600);
  });

  it("saves URLs that reach the Sandbox that wrote them", () => {
    expect(savedUrlsReach).toEqual([saved.integrationApiUrl, saved.authApiUrl, saved.adminApiUrl].map((url) => `${url}: 200 {"status":"ready"}`));
  });

  it("gives credentials that work: the integration admin signs in and the merchant links through OAuth", async () => {
    const login = await read(await postJson(`${urls.auth}/integration/admin/login`, saved.integrationAdmin));
    expect(login.status, login.text).toBe(200);
    const code = await obtainCode(urls.auth, saved.integration, saved.merchant);
    const tokens = await exchangeCode(urls.auth, saved.integration, code);
    expect(tokens.status, tokens.text).toBe(200);
    const me = await read(await fetch(`${urls.integration}/me`, { headers: { authorization: `Bearer ${tokens.json.idToken}` } }));
    expect(me.status, me.text).toBe(200);
    expect(me.json).toMatchObject({
      merchantUserId: saved.merchant.merchantUserId,
      email: saved.merchant.email,
      integration: { name: saved.integration.name },
    });
  });
});

describe("npm run sandbox:bootstrap -- --json against the running Sandbox", () => {
  let sets: SandboxJson[];

  beforeAll(async () => {
    const runs = [await runBootstrap(dataDir), await runBootstrap(dataDir)];
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    // Exactly one JSON document on stdout: one line, nothing before or after it.
    for (const run of runs) expect(run.stdout).toMatch(/^\{[^\n]*\}\n$/);
    sets = runs.map((run) => JSON.parse(run.stdout) as SandboxJson);
  }, 120_000);

  it("prints exactly the issue's JSON", () => {
    for (const set of sets) {
      expect(shapeOf(set)).toEqual(SANDBOX_JSON_SHAPE);
      expect(Object.keys(set)).toEqual(Object.keys(SANDBOX_JSON_SHAPE));
      expect(set.integration.redirectUri).toBe("http://localhost:8080/callback");
    }
  });

  it("makes a new set each time", () => {
    const [a, b] = sets as [SandboxJson, SandboxJson];
    for (const set of [a, b, saved]) expect(new Set(secretsOf(set)).size).toBe(4);
    const identities = (set: SandboxJson) => [
      set.platformAdmin.email,
      set.integration.clientId,
      set.integration.name,
      set.integrationAdmin.email,
      set.merchant.email,
      set.merchant.merchantUserId,
      ...secretsOf(set),
    ];
    const all = [a, b, saved].flatMap(identities);
    expect(new Set(all).size).toBe(all.length);
  });

  it("prints URLs that reach the running Sandbox", async () => {
    for (const set of sets) {
      const urlsOfSet = [set.integrationApiUrl, set.authApiUrl, set.adminApiUrl];
      expect(await Promise.all(urlsOfSet.map(readiness))).toEqual(urlsOfSet.map((url) => `${url}: 200 {"status":"ready"}`));
    }
  });

  it("gives admins who sign in through the running Auth API, and test tokens that GET /me accepts", async () => {
    const set = sets[0]!;
    const platform = await read(await postJson(`${urls.auth}/integration/admin/login`, set.platformAdmin));
    expect(platform.status, platform.text).toBe(200);
    expect(platform.json).toEqual({
      idToken: expect.any(String),
      refreshToken: expect.any(String),
      tokenType: "Bearer",
      expiresIn: 3600,
      passwordChangeRequired: false,
    });

    const admin = await read(await postJson(`${urls.auth}/integration/admin/login`, set.integrationAdmin));
    expect(admin.status, admin.text).toBe(200);
    const testTokens = () =>
      fetch(`${urls.admin}/my-integration/test-tokens`, { method: "POST", headers: { authorization: `Bearer ${admin.json.idToken}` } }).then(read);
    const linked = await testTokens();
    expect(linked.status, linked.text).toBe(200);
    expect(linked.json).toEqual({ idToken: expect.any(String), refreshToken: expect.any(String), expiresIn: 3600, autoLinkAction: "linked" });
    const again = await testTokens();
    expect(again.status, again.text).toBe(200);
    expect(again.json.autoLinkAction).toBe("already-linked");

    for (const token of [linked.json.idToken, again.json.idToken]) {
      const me = await read(await fetch(`${urls.integration}/me`, { headers: { authorization: `Bearer ${token}` } }));
      expect(me.status, me.text).toBe(200);
      expect(me.json).toMatchObject({ merchantUserId: expect.any(String), integration: { name: set.integration.name } });
      expect(me.json.merchantUserId).not.toBe(set.merchant.merchantUserId); // the integration's own test merchant account
    }
  });

  it("gives a merchant account that links through OAuth as the printed merchantUserId", async () => {
    const set = sets[1]!;
    const code = await obtainCode(urls.auth, set.integration, set.merchant);
    const tokens = await exchangeCode(urls.auth, set.integration, code);
    expect(tokens.status, tokens.text).toBe(200);
    const me = await read(await fetch(`${urls.integration}/me`, { headers: { authorization: `Bearer ${tokens.json.idToken}` } }));
    expect(me.status, me.text).toBe(200);
    expect(me.json).toMatchObject({ merchantUserId: set.merchant.merchantUserId, email: set.merchant.email, integration: { name: set.integration.name } });
  });

  it("stops cleanly on SIGTERM", async () => {
    const exit = await stop(second);
    expect(exit, `signal ${second.child.signalCode}\n${errorLines(second.output())}`).toBe(0);
  });
});

describe("npm start on another database (DATABASE_URL, e.g. the cluster) with the same data folder", () => {
  let other: TestDatabase;
  let onOther: Started;
  let otherFile: string;

  beforeAll(async () => {
    other = await createTestDatabase({ migrate: false });
    onOther = start(dataDir, { DATABASE_URL: other.connectionString });
    await waitFor(onOther, /worker\s+running/);
    const installation = await other.db.selectFrom("installation").select("installation_id").executeTakeFirstOrThrow();
    otherFile = join(dataDir, `sandbox.${installation.installation_id}.json`);
  }, 120_000);

  afterAll(async () => {
    if (onOther && onOther.child.exitCode === null && onOther.child.signalCode === null) await stop(onOther);
    await other?.close();
  }, 60_000);

  it("keeps the embedded database's sandbox.json and writes the other database's credentials to a file of its own", async () => {
    expect(onOther.output()).toContain(`these credentials are shown once (also in ${otherFile})`);
    expect(readFileSync(sandboxFile, "utf8")).toBe(savedText);
    const written = JSON.parse(readFileSync(otherFile, "utf8")) as SandboxJson;
    expect(statSync(otherFile).mode & 0o777).toBe(0o600);
    expect(shapeOf(written)).toEqual(SANDBOX_JSON_SHAPE);
    expect(written.integrationAdmin.email).not.toBe(saved.integrationAdmin.email);
    const login = await read(await postJson(`${allServedUrls(onOther.output()).auth}/integration/admin/login`, written.integrationAdmin));
    expect(login.status, login.text).toBe(200);
    expect(await stop(onOther)).toBe(0);
  });
});

/** The error log lines and stack frames of a process's output, shortened, for an assertion's message. */
function errorLines(output: string): string {
  return output
    .split("\n")
    .filter((line) => /Unhandled|^\s+at |"level":(50|60)/.test(line))
    .slice(0, 8)
    .map((line) => line.slice(0, 400))
    .join("\n");
}

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
