// The whole service in-process, as `npm start` runs it, on a fresh database of the test run and free
// ports, with a clock the test moves. Every response is checked against the contract. A test file takes
// its service with `serviceForFile()` (or several with `servicesForFile()`), which starts it before the
// file's (or the describe block's) tests and closes it after them.
import { afterAll, beforeAll, expect } from "vitest";
import { ManualClock, systemClock, type Clock } from "../../domain/clock.ts";
import type { TokenCheckCache } from "../../domain/sign-in/token-check-cache.ts";
import { loadConfig, type Config, type ServicePart } from "../../runtime/config.ts";
import { startService, type RunningService } from "../../server/service.ts";
import { createSandboxSet, type SandboxCredentials } from "../../domain/sandbox/sandbox-bootstrap.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";
import { captureLogs } from "./captured-logs.ts";

/** The keyring of in-process test services (a fixed key: a test may open what the service sealed). */
export const TEST_SECRET_KEY = `test:${Buffer.alloc(32, 7).toString("base64")}`;

export interface TestService {
  integrationUrl: string;
  authUrl: string;
  adminUrl: string;
  /** The service's GET /metrics, when started with `metrics: true` (empty otherwise). */
  metricsUrl: string;
  clock: ManualClock;
  database: TestDatabase;
  service: RunningService;
  config: Config;
  logLines: Array<Record<string, unknown>>;
  /** A fresh platform admin, integration, integration admin and linked merchant. */
  sandbox(): Promise<SandboxCredentials>;
  close(): Promise<void>;
}

export interface TestServiceOptions {
  env?: Record<string, string>;
  parts?: ServicePart[];
  start?: Date;
  /** Start on this database (a restart of another test service's, which stays open on close) instead of a fresh one. */
  database?: TestDatabase;
  /** The service's memory of token checks. */
  tokenChecks?: TokenCheckCache;
  /** Serve the metrics on a free loopback port (`metricsUrl`); off otherwise, as many services run at once. */
  metrics?: boolean;
}

/** The clock of the test service started last in this file (real time before any): what default request bodies are dated from. */
let latestClock: Clock = systemClock;
export const latestServiceClock = (): Clock => latestClock;

export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const database = options.database ?? (await createTestDatabase());
  const clock = new ManualClock(options.start ?? new Date());
  latestClock = clock;
  const base = loadConfig(
    { INTEGRATION_PORT: "0", AUTH_PORT: "0", ADMIN_PORT: "0", COBRO_AUTH_URL: "http://auth.cobro.test", COBRO_SECRET_KEY: TEST_SECRET_KEY, ...options.env },
    [],
  );
  const config: Config = {
    ...base,
    databaseUrl: database.connectionString,
    parts: new Set(options.parts ?? ["integration", "auth", "admin"]),
    metrics: options.metrics ? { host: "127.0.0.1", port: 0 } : undefined,
  };
  const { logger, logLines } = captureLogs();
  const started = await startService(config, { logger, clock, validateResponses: true, tokenChecks: options.tokenChecks });
  // Stopped once: a test may stop the service itself (then restart on its database) before close().
  let stopping: Promise<void> | undefined;
  const service: RunningService = { ...started, stop: () => (stopping ??= started.stop()) };
  return {
    integrationUrl: service.urls.integration ?? "",
    authUrl: service.urls.auth ?? "",
    adminUrl: service.urls.admin ?? "",
    metricsUrl: service.metricsUrl ?? "",
    clock,
    database,
    service,
    config,
    logLines,
    sandbox: () => createSandboxSet(database.db, clock.now()),
    close: async () => {
      await service.stop();
      if (!options.database) await database.close();
    },
  };
}

/** Options now, or computed when the service starts (from what an earlier `beforeAll` set up: an SMTP server's URL). */
export type TestServiceOptionsSource = TestServiceOptions | (() => TestServiceOptions | Promise<TestServiceOptions>);

/**
 * The service of this file, or of the describe block it is called in: started in a `beforeAll`, closed in
 * an `afterAll`. The handle stands for the started service (each property is the started service's), so a
 * test uses it as it is; reading it before the service started (at the file's top level, or in a
 * `beforeAll` registered before this call) throws and says so.
 */
export function serviceForFile(options: TestServiceOptionsSource = {}): TestService {
  return servicesForFile({ service: options }).service;
}

/** Several services of this file (a Sandbox and a Production, two processes on one database), started together. */
export function servicesForFile<Name extends string>(optionsByName: Record<Name, TestServiceOptionsSource>): Record<Name, TestService> {
  const started = new Map<Name, TestService>();
  const names = Object.keys(optionsByName) as Name[];
  beforeAll(async () => {
    const services = await Promise.all(
      names.map(async (name) => {
        const source = optionsByName[name];
        return startTestService(typeof source === "function" ? await source() : source);
      }),
    );
    for (const [i, name] of names.entries()) started.set(name, services[i]!);
  });
  afterAll(async () => {
    await Promise.all([...started.values()].map((service) => service.close()));
    started.clear();
  });
  return Object.fromEntries(
    names.map((name) => [name, startedHandle(`the test service "${name}"`, "serviceForFile() (servicesForFile())", () => started.get(name))]),
  ) as Record<Name, TestService>;
}

/**
 * A handle that stands for what a fixture starts in a `beforeAll` (the services here; a helper's fixture
 * that starts something with them, such as a webhook receiver): each property read or written is the
 * started thing's. Reading it before `started()` gives it throws, naming the fixture to call first.
 */
export function startedHandle<T extends object>(description: string, fixture: string, started: () => T | undefined): T {
  const current = (property: string | symbol): T => {
    const value = started();
    if (value === undefined)
      throw new Error(`${description} was read (.${String(property)}) before it started: use it in a test, or in a beforeAll registered after ${fixture}`);
    return value;
  };
  return new Proxy({} as T, {
    get(_target, property) {
      // Not started yet: nothing to await, no symbols (what inspecting or awaiting the handle asks for).
      if (started() === undefined && (property === "then" || typeof property === "symbol")) return undefined;
      const target = current(property);
      const value: unknown = Reflect.get(target, property);
      return typeof value === "function" ? value.bind(target) : value;
    },
    set(_target, property, value) {
      return Reflect.set(current(property), property, value);
    },
  });
}

/** JSON or text of a fetch response, with its status and headers. */
export async function read(response: Response): Promise<{ status: number; headers: Headers; text: string; json: any }> {
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
}

/** One API's calls with a Bearer token, read at each call (so a renewed token is used); a body goes as JSON. */
export function bearerCaller(baseUrl: string, token: () => string): ApiCall {
  return async (method, path, body, headers = {}) =>
    read(
      await fetch(`${baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token()}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
}

/** A call to an API as someone; `headers` adds request headers (an `Idempotency-Key`). */
export type ApiCall = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Awaited<ReturnType<typeof read>>>;

/** A merchant linked to a fresh integration, with its idToken (Sandbox test tokens); `renew()` gets a new one after the clock moved. */
export async function linkedMerchant(t: TestService): Promise<{
  idToken: string;
  sandbox: SandboxCredentials;
  call: ApiCall;
  renew: () => Promise<void>;
}> {
  const sandbox = await t.sandbox();
  const renew = async () => {
    const login = await read(await postJson(`${t.authUrl}/integration/admin/login`, sandbox.integrationAdmin));
    const tokens = await read(
      await fetch(`${t.adminUrl}/my-integration/test-tokens`, { method: "POST", headers: { authorization: `Bearer ${login.json.idToken}` } }),
    );
    merchant.idToken = tokens.json.idToken;
  };
  const call = bearerCaller(t.integrationUrl, () => merchant.idToken);
  const merchant = { idToken: "", sandbox, call, renew };
  await renew();
  return merchant;
}

/**
 * A test that writes straight to the database what a token check reads (an unlink, a revocation) changes
 * it behind the service's back: the service hears of it by a notification, or forgets what it remembered
 * within a second (domain/sign-in/token-check-cache.ts). Wait until the merchant's token is refused on
 * `GET /me`, which has no side effect, before asserting what another operation answers.
 */
export async function untilMerchantTokenRefused(call: ApiCall): Promise<void> {
  await expect.poll(async () => (await call("GET", "/me")).status, { timeout: 5_000, interval: 50 }).toBe(403);
}
