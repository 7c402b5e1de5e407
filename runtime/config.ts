// Configuration, read once from the environment and the command line, validated at start with one
// readable line per problem. Nothing else in Cobro reads process.env.
import { resolve } from "node:path";
import { LOG_FORMATS, type LogFormat } from "./logger.ts";
import { SecretKeyFormatError, SecretKeyring } from "../domain/secrets/keyring.ts";
import { DEFAULT_DELIVERY_PACE_MS, DEFAULT_HEARTBEAT_INTERVAL_MS, DEFAULT_STALE_WORKER_AFTER_MS } from "../db/job-queue.ts";

export type ServiceEnv = "sandbox" | "production";
export const SERVICE_PARTS = ["integration", "auth", "admin", "worker"] as const;
export type ServicePart = (typeof SERVICE_PARTS)[number];
export type ApiName = Exclude<ServicePart, "worker">;

export interface Config {
  serviceEnv: ServiceEnv;
  /** An external PostgreSQL; without it Cobro starts an embedded one in `dataDir`. */
  databaseUrl: string | undefined;
  /**
   * A pooler in transaction mode (PgBouncer) in front of the same database, for the API processes'
   * queries (COBRO_POOLED_DATABASE_URL). What needs a session keeps to `databaseUrl`: migrations (a
   * session advisory lock), the LISTEN connection and the worker.
   */
  pooledDatabaseUrl: string | undefined;
  dataDir: string;
  host: string;
  ports: Record<ApiName, number>;
  /**
   * Where the process serves its Prometheus metrics (GET /metrics), never on the public APIs:
   * COBRO_METRICS_HOST (default 127.0.0.1) and COBRO_METRICS_PORT (default 9464; 0 turns the listener off,
   * so `undefined` here). A port of 0 given in code (tests) binds a free port.
   */
  metrics: { host: string; port: number } | undefined;
  /** The parts this process serves (`--only integration,worker`); all by default. */
  parts: ReadonlySet<ServicePart>;
  /**
   * `npm start` with no `--only`: the APIs serve in this process and the worker runs in a supervised child
   * process of its own, so neither waits for the other's event loop. COBRO_SINGLE_PROCESS=true keeps both
   * in one process (debugging); `--only` always runs one process with the parts named.
   */
  workerInChildProcess: boolean;
  logLevel: string;
  /** `pretty` (readable lines) when standard output is a terminal, `json` otherwise; LOG_FORMAT overrides. */
  logFormat: LogFormat;
  /** Largest JSON or form body accepted; larger ones get 413. */
  maxBodyBytes: number;
  /**
   * How long a client may take, on every listener: to send a request's headers
   * (COBRO_HTTP_HEADERS_TIMEOUT_MS, default 10 s) and the whole request (COBRO_HTTP_REQUEST_TIMEOUT_MS,
   * default 30 s), after which Node answers 408 and closes the connection; and how long an idle
   * keep-alive connection stays open (5 s).
   */
  httpTimeouts: { headersMs: number; requestMs: number; keepAliveMs: number };
  /**
   * The most connections each API listener holds open at once (COBRO_HTTP_MAX_CONNECTIONS, default 1,024);
   * past it a new connection is closed at once, so that a flood of idle sockets cannot exhaust the process.
   */
  maxConnectionsPerListener: number;
  /**
   * After SIGTERM, how long an API process goes on serving while its readiness (`GET /readyz`) answers 503,
   * before its listeners close (COBRO_STOP_DRAIN_MS, default 0: they close at once). Behind a load balancer
   * that checks readiness, at least the time it takes to mark a server down: a connection it sends to a
   * listener that is closing is cut with its request, which the client sees as a failure.
   */
  stopDrainMs: number;
  /**
   * The URL each API is reached at from outside (behind a proxy, its public address). The Auth API's is
   * the issuer of every token, so it must be the same in every process of one deployment.
   */
  publicUrls: Record<ApiName, string>;
  /**
   * Repeated statements run as named prepared statements on their connection (COBRO_DB_PREPARED_STATEMENTS,
   * default true): PostgreSQL then plans them once instead of on every run. `false` behind a pooler that
   * does not keep prepared statements to one client (PgBouncer in transaction mode before 1.21).
   */
  preparedStatements: boolean;
  /**
   * Webhook deliveries through the batch dispatcher (jobs/delivery-dispatcher.ts), or, `false`, one
   * graphile-worker job run each as before it (COBRO_DELIVERY_DISPATCHER, default true).
   */
  deliveryDispatcher: boolean;
  /**
   * The shortest time between two of the delivery dispatcher's looks for due deliveries, and between two of
   * its outcomes' statements (COBRO_DELIVERY_PACE_MS, default 20): in a steady flow, a webhook waits up to
   * this long for the next look, and each look takes what came due since the last one. An idle dispatcher
   * looks at once; 0 looks at every new delivery's notification.
   */
  deliveryPaceMs: number;
  /** Sandbox only (COBRO_ALLOW_LOOPBACK_URLS=true): webhook destinations on loopback, for local receivers and tests. */
  allowLoopbackUrls: boolean;
  /** The global daily cap of chat messages shared by all integrations (COBRO_GLOBAL_DAILY_MESSAGE_CAP). */
  globalDailyMessageCap: number;
  /** Drafts not completed within this many hours are discarded (COBRO_DRAFT_LIFETIME_HOURS, default 6). */
  draftLifetimeHours: number;
  /** Jobs the worker runs at once (COBRO_WORKER_CONCURRENCY, default 16): sends mostly wait on providers, so more than the cores (webhook deliveries are the delivery dispatcher's). */
  workerConcurrency: number;
  /** How often a worker process records its heartbeat and releases the jobs of dead workers (COBRO_WORKER_HEARTBEAT_MS, default 30 s). */
  workerHeartbeatMs: number;
  /**
   * The Admin API's event stream: a `: heartbeat` comment after this long without an event
   * (COBRO_EVENT_STREAM_HEARTBEAT_MS, default 15 s), and how often a process looks for new events for its
   * open streams (COBRO_EVENT_STREAM_POLL_MS, default 500 ms); how many streams one integration may have
   * open in this process at once (COBRO_EVENT_STREAM_MAX_PER_INTEGRATION, default 10).
   */
  eventStream: { heartbeatMs: number; pollMs: number; maxPerIntegration: number };
  /** A worker not seen for this long is dead and its jobs run again elsewhere (COBRO_WORKER_STALE_AFTER_MS, default 2 min). */
  workerStaleAfterMs: number;
  /**
   * The pgBackRest stanza (COBRO_PGBACKREST_STANZA) and, when not pgBackRest's default, its configuration file
   * (COBRO_PGBACKREST_CONFIG): a worker process then samples the backups' age and the WAL archive's state.
   */
  backups?: { stanza: string; configPath?: string };
  /** How long one save of a changed service commission may spend applying it to merchant links (COBRO_COMMISSION_BACKFILL_BUDGET_MS, default 2000). */
  commissionBackfillBudgetMs: number;
  /**
   * Group commit of single transfers (domain/reconciliation/transfer-batcher.ts): at most `maxSize`
   * transfers a batch (COBRO_RECONCILE_BATCH_MAX, default 200), a transfer waits at most `windowMs` while
   * others commit (COBRO_RECONCILE_BATCH_WINDOW_MS, default 5), `maxInFlight` batches commit at once
   * before new transfers wait (COBRO_RECONCILE_BATCHES_IN_FLIGHT, default 1: on a machine whose cores the
   * API, PostgreSQL and the worker share, bigger batches cost less CPU a transfer; docs/performance.md).
   */
  reconcileBatches: { maxSize: number; windowMs: number; maxInFlight: number };
  /** The secret shared with the bank integration that posts received transfers (COBRO_BANK_FEED_SECRET); without it the bank feed refuses everything. */
  bankFeedSecret: string | undefined;
  /** Production's tax registry for payer lookups (COBRO_TAX_REGISTRY_URL, http or https); the Sandbox uses its deterministic one. */
  taxRegistryUrl: string | undefined;
  /** Where payer notifications go out. Without a channel's provider the Sandbox records its messages as `simulated`; a Production worker refuses to start. */
  notifications: NotificationProviders;
  /**
   * The bank's outgoing transfers API that returns of unmatched money are asked of (COBRO_BANK_API_URL, http or
   * https, and its bearer token COBRO_BANK_API_TOKEN; domain/outbound/http-bank.ts). Without it the Sandbox's
   * bank completes returns by itself; a Production worker without it keeps returns `requested`, retrying, and
   * warns at start.
   */
  bankApi: { apiUrl: string; token: string } | undefined;
  /**
   * Sandbox only: the Production deployment's Admin API and a platform API key created there
   * (COBRO_PRODUCTION_ADMIN_URL, COBRO_PRODUCTION_API_KEY), where approved go-live requests create the
   * integration. Without them an approval is recorded and the integration is created in Production by hand.
   */
  productionDeployment: { adminUrl: string; apiKey: string } | undefined;
  /**
   * The keys that seal secrets at rest (COBRO_SECRET_KEY: `<id>:<key>[,<id>:<key>…]`, 32 random bytes each in
   * base64 or hex; the first seals, all open; docs/secrets.md). Required in Production; without it the
   * Sandbox uses the key it generated in its data folder (`<dataDir>/secret-key`).
   */
  secretKeyring: SecretKeyring | undefined;
}

export interface NotificationProviders {
  /** Email over SMTP (COBRO_SMTP_URL, `smtp://` or `smtps://`, credentials in the URL) from COBRO_MAIL_FROM. */
  email: { smtpUrl: string; from: string } | undefined;
  /**
   * Chat through the WhatsApp Business Cloud API: `POST {apiUrl}/{phoneNumberId}/messages` with the bearer
   * token (COBRO_WHATSAPP_API_URL, COBRO_WHATSAPP_PHONE_NUMBER_ID, COBRO_WHATSAPP_TOKEN). Each kind of
   * message is an approved template named `{templatePrefix}{kind}` (COBRO_WHATSAPP_TEMPLATE_PREFIX, default `cobro_`).
   */
  whatsapp: { apiUrl: string; phoneNumberId: string; token: string; templatePrefix: string } | undefined;
  /** Messages each channel's provider is sent per second at most (COBRO_EMAIL_SENDS_PER_SECOND, default 20; COBRO_WHATSAPP_SENDS_PER_SECOND, default 80). */
  sendsPerSecond: { email: number; whatsapp: number };
}

export class ConfigError extends Error {
  constructor(problems: string[]) {
    super(problems.join("\n"));
    this.name = "ConfigError";
  }
}

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

const TRUE_WORDS = ["true", "1", "yes"];
const FALSE_WORDS = ["false", "0", "no"];

/** A yes-or-no variable: true/false, 1/0 or yes/no (any case); unset or empty is `fallback`; anything else is a problem. */
function booleanSetting(env: NodeJS.ProcessEnv, name: string, fallback: boolean, problems: string[]): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === "") return fallback;
  if (TRUE_WORDS.includes(raw)) return true;
  if (FALSE_WORDS.includes(raw)) return false;
  problems.push(`${name} must be true or false (1/0 and yes/no also work), not "${env[name]}"`);
  return fallback;
}

export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  argv: readonly string[] = process.argv.slice(2),
  stdoutIsTerminal: boolean = process.stdout.isTTY === true,
): Config {
  const problems: string[] = [];

  const serviceEnv = env.SERVICE_ENV ?? "sandbox";
  if (serviceEnv !== "sandbox" && serviceEnv !== "production") {
    problems.push(`SERVICE_ENV must be "sandbox" or "production", not "${serviceEnv}"`);
  }

  const port = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0 || value > 65535) {
      problems.push(`${name} must be a port number from 0 to 65535, not "${raw}"`);
      return fallback;
    }
    return value;
  };
  const ports = {
    integration: port("INTEGRATION_PORT", 3000),
    auth: port("AUTH_PORT", 3001),
    admin: port("ADMIN_PORT", 3002),
  };

  const metricsPort = port("COBRO_METRICS_PORT", 9464);
  const metricsHost = env.COBRO_METRICS_HOST || "127.0.0.1";

  const databaseUrl = env.DATABASE_URL === "" ? undefined : env.DATABASE_URL;
  if (databaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    problems.push("DATABASE_URL must be a postgres:// or postgresql:// connection string");
  }
  const pooledDatabaseUrl = env.COBRO_POOLED_DATABASE_URL === "" ? undefined : env.COBRO_POOLED_DATABASE_URL;
  if (pooledDatabaseUrl !== undefined && !/^postgres(ql)?:\/\//.test(pooledDatabaseUrl)) {
    problems.push("COBRO_POOLED_DATABASE_URL must be a postgres:// or postgresql:// connection string");
  }
  if (pooledDatabaseUrl !== undefined && databaseUrl === undefined) {
    problems.push("COBRO_POOLED_DATABASE_URL needs DATABASE_URL (the same database, without the pooler)");
  }

  const logLevel = env.LOG_LEVEL ?? "info";
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}`);
  const logFormat = env.LOG_FORMAT === undefined || env.LOG_FORMAT === "" ? (stdoutIsTerminal ? "pretty" : "json") : env.LOG_FORMAT;
  if (!(LOG_FORMATS as readonly string[]).includes(logFormat)) problems.push(`LOG_FORMAT must be one of ${LOG_FORMATS.join(", ")}, not "${logFormat}"`);

  const parts = parseParts(argv, problems);

  const globalDailyMessageCap = Number(env.COBRO_GLOBAL_DAILY_MESSAGE_CAP ?? 10000);
  if (!Number.isInteger(globalDailyMessageCap) || globalDailyMessageCap < 0) problems.push("COBRO_GLOBAL_DAILY_MESSAGE_CAP must be a whole number");
  const draftLifetimeHours = Number(env.COBRO_DRAFT_LIFETIME_HOURS ?? 6);
  if (!(draftLifetimeHours > 0)) problems.push("COBRO_DRAFT_LIFETIME_HOURS must be a positive number of hours");
  const workerConcurrency = Number(env.COBRO_WORKER_CONCURRENCY ?? 16);
  if (!(Number.isInteger(workerConcurrency) && workerConcurrency >= 1 && workerConcurrency <= 200))
    problems.push("COBRO_WORKER_CONCURRENCY must be a whole number from 1 to 200");
  const deliveryPaceMs = Number(env.COBRO_DELIVERY_PACE_MS || DEFAULT_DELIVERY_PACE_MS);
  if (!(Number.isInteger(deliveryPaceMs) && deliveryPaceMs >= 0 && deliveryPaceMs <= 1000))
    problems.push("COBRO_DELIVERY_PACE_MS must be a whole number of milliseconds from 0 to 1000");
  const workerHeartbeatMs = Number(env.COBRO_WORKER_HEARTBEAT_MS || DEFAULT_HEARTBEAT_INTERVAL_MS);
  if (!(Number.isInteger(workerHeartbeatMs) && workerHeartbeatMs >= 100))
    problems.push("COBRO_WORKER_HEARTBEAT_MS must be a whole number of milliseconds, 100 or more");
  const workerStaleAfterMs = Number(env.COBRO_WORKER_STALE_AFTER_MS || DEFAULT_STALE_WORKER_AFTER_MS);
  if (!(Number.isInteger(workerStaleAfterMs) && workerStaleAfterMs > 2 * workerHeartbeatMs))
    problems.push("COBRO_WORKER_STALE_AFTER_MS must be a whole number of milliseconds, more than twice COBRO_WORKER_HEARTBEAT_MS");
  const backupStanza = env.COBRO_PGBACKREST_STANZA || undefined;
  if (backupStanza !== undefined && !/^[A-Za-z0-9_.-]+$/.test(backupStanza))
    problems.push("COBRO_PGBACKREST_STANZA must be a pgBackRest stanza name (letters, digits, '.', '_', '-')");
  if (env.COBRO_PGBACKREST_CONFIG && backupStanza === undefined) problems.push("COBRO_PGBACKREST_CONFIG needs COBRO_PGBACKREST_STANZA");
  const eventStream = {
    heartbeatMs: Number(env.COBRO_EVENT_STREAM_HEARTBEAT_MS || 15_000),
    pollMs: Number(env.COBRO_EVENT_STREAM_POLL_MS || 500),
    maxPerIntegration: Number(env.COBRO_EVENT_STREAM_MAX_PER_INTEGRATION || 10),
  };
  if (!(Number.isInteger(eventStream.heartbeatMs) && eventStream.heartbeatMs >= 10))
    problems.push("COBRO_EVENT_STREAM_HEARTBEAT_MS must be a whole number of milliseconds, 10 or more");
  if (!(Number.isInteger(eventStream.pollMs) && eventStream.pollMs >= 10))
    problems.push("COBRO_EVENT_STREAM_POLL_MS must be a whole number of milliseconds, 10 or more");
  if (!(Number.isInteger(eventStream.maxPerIntegration) && eventStream.maxPerIntegration >= 1))
    problems.push("COBRO_EVENT_STREAM_MAX_PER_INTEGRATION must be a whole number, 1 or more");
  const reconcileBatches = {
    maxSize: Number(env.COBRO_RECONCILE_BATCH_MAX || 200),
    windowMs: Number(env.COBRO_RECONCILE_BATCH_WINDOW_MS || 5),
    maxInFlight: Number(env.COBRO_RECONCILE_BATCHES_IN_FLIGHT || 1),
  };
  if (!(Number.isInteger(reconcileBatches.maxSize) && reconcileBatches.maxSize >= 1 && reconcileBatches.maxSize <= 1000))
    problems.push("COBRO_RECONCILE_BATCH_MAX must be a whole number from 1 to 1000");
  if (!(Number.isInteger(reconcileBatches.windowMs) && reconcileBatches.windowMs >= 0 && reconcileBatches.windowMs <= 1000))
    problems.push("COBRO_RECONCILE_BATCH_WINDOW_MS must be a whole number of milliseconds from 0 to 1000");
  if (!(Number.isInteger(reconcileBatches.maxInFlight) && reconcileBatches.maxInFlight >= 1))
    problems.push("COBRO_RECONCILE_BATCHES_IN_FLIGHT must be a whole number, 1 or more");
  const commissionBackfillBudgetMs = Number(env.COBRO_COMMISSION_BACKFILL_BUDGET_MS || 2000);
  if (!(Number.isInteger(commissionBackfillBudgetMs) && commissionBackfillBudgetMs >= 0))
    problems.push("COBRO_COMMISSION_BACKFILL_BUDGET_MS must be a whole number of milliseconds, 0 or more");

  const timeoutMs = (name: string, fallback: number): number => {
    const value = Number(env[name] || fallback);
    if (!(Number.isInteger(value) && value > 0)) problems.push(`${name} must be a positive whole number of milliseconds`);
    return value;
  };
  const httpTimeouts = {
    headersMs: timeoutMs("COBRO_HTTP_HEADERS_TIMEOUT_MS", 10_000),
    requestMs: timeoutMs("COBRO_HTTP_REQUEST_TIMEOUT_MS", 30_000),
    keepAliveMs: 5_000,
  };
  if (httpTimeouts.headersMs > httpTimeouts.requestMs) problems.push("COBRO_HTTP_HEADERS_TIMEOUT_MS must not be longer than COBRO_HTTP_REQUEST_TIMEOUT_MS");
  const maxConnectionsPerListener = Number(env.COBRO_HTTP_MAX_CONNECTIONS || 1024);
  if (!(Number.isInteger(maxConnectionsPerListener) && maxConnectionsPerListener >= 16))
    problems.push("COBRO_HTTP_MAX_CONNECTIONS must be a whole number, 16 or more");
  const stopDrainMs = Number(env.COBRO_STOP_DRAIN_MS || 0);
  if (!(Number.isInteger(stopDrainMs) && stopDrainMs >= 0 && stopDrainMs <= 60_000))
    problems.push("COBRO_STOP_DRAIN_MS must be a whole number of milliseconds from 0 to 60000");

  const taxRegistryUrl = env.COBRO_TAX_REGISTRY_URL === "" ? undefined : env.COBRO_TAX_REGISTRY_URL;
  if (taxRegistryUrl !== undefined && !(URL.canParse(taxRegistryUrl) && /^https?:$/.test(new URL(taxRegistryUrl).protocol)))
    problems.push(`COBRO_TAX_REGISTRY_URL must be an http(s) URL, not "${taxRegistryUrl}"`);

  const secretKeyring = secretKeyringOf(env, problems);
  const notifications = notificationProviders(env, problems);
  const bankApi = bankApiOf(env, problems);
  const production = productionDeployment(env, serviceEnv as ServiceEnv, problems);

  const host = env.COBRO_HOST ?? "127.0.0.1";
  const publicUrl = (name: string, api: ApiName): string => {
    const raw = env[name];
    if (raw === undefined || raw === "") return `http://localhost:${ports[api]}`;
    if (!/^https?:\/\/[^/]+$/.test(raw.replace(/\/$/, ""))) problems.push(`${name} must be an http(s) origin such as https://auth.example.com, not "${raw}"`);
    return raw.replace(/\/$/, "");
  };
  const publicUrls = {
    integration: publicUrl("COBRO_INTEGRATION_URL", "integration"),
    auth: publicUrl("COBRO_AUTH_URL", "auth"),
    admin: publicUrl("COBRO_ADMIN_URL", "admin"),
  };

  const allowLoopbackUrls = booleanSetting(env, "COBRO_ALLOW_LOOPBACK_URLS", false, problems);
  const singleProcess = booleanSetting(env, "COBRO_SINGLE_PROCESS", false, problems);
  const preparedStatements = booleanSetting(env, "COBRO_DB_PREPARED_STATEMENTS", true, problems);
  const deliveryDispatcher = booleanSetting(env, "COBRO_DELIVERY_DISPATCHER", true, problems);
  const onlyGiven = argv.some((arg) => arg === "--only" || arg.startsWith("--only="));

  if (problems.length > 0) throw new ConfigError(problems);
  return {
    serviceEnv: serviceEnv as ServiceEnv,
    databaseUrl,
    preparedStatements,
    deliveryDispatcher,
    pooledDatabaseUrl,
    dataDir: resolve(env.COBRO_DATA_DIR ?? ".data"),
    host,
    ports,
    metrics: metricsPort === 0 ? undefined : { host: metricsHost, port: metricsPort },
    parts,
    workerInChildProcess: !onlyGiven && !singleProcess,
    logLevel,
    logFormat: logFormat as LogFormat,
    maxBodyBytes: 1024 * 1024,
    httpTimeouts,
    maxConnectionsPerListener,
    stopDrainMs,
    publicUrls,
    allowLoopbackUrls: serviceEnv === "sandbox" && allowLoopbackUrls,
    globalDailyMessageCap,
    draftLifetimeHours,
    workerConcurrency,
    deliveryPaceMs,
    workerHeartbeatMs,
    eventStream,
    reconcileBatches,
    workerStaleAfterMs,
    ...(backupStanza !== undefined
      ? { backups: { stanza: backupStanza, ...(env.COBRO_PGBACKREST_CONFIG ? { configPath: resolve(env.COBRO_PGBACKREST_CONFIG) } : {}) } }
      : {}),
    commissionBackfillBudgetMs,
    taxRegistryUrl,
    bankFeedSecret: env.COBRO_BANK_FEED_SECRET || undefined,
    notifications,
    bankApi,
    productionDeployment: production,
    secretKeyring,
  };
}

function bankApiOf(env: NodeJS.ProcessEnv, problems: string[]): Config["bankApi"] {
  const apiUrl = env.COBRO_BANK_API_URL || undefined;
  const token = env.COBRO_BANK_API_TOKEN || undefined;
  if ((apiUrl === undefined) !== (token === undefined)) problems.push("COBRO_BANK_API_URL and COBRO_BANK_API_TOKEN go together: set both, or neither");
  if (apiUrl !== undefined && !(URL.canParse(apiUrl) && /^https?:$/.test(new URL(apiUrl).protocol)))
    problems.push(`COBRO_BANK_API_URL must be an http(s) URL, not "${apiUrl}"`);
  if (apiUrl === undefined || token === undefined) return undefined;
  return { apiUrl: apiUrl.replace(/\/$/, ""), token };
}

/**
 * What a Production process cannot start without, all reported at once (npm start checks them with the rest
 * of its configuration): COBRO_SECRET_KEY, and both payer notification providers for a worker. Operator
 * commands that never touch a sealed secret (creating a platform admin or an API key) load the
 * configuration without them.
 */
export function requireProductionSettings(config: Config): void {
  if (config.serviceEnv !== "production") return;
  const problems = [
    ...(config.secretKeyring === undefined
      ? [
          "COBRO_SECRET_KEY is required in Production (it seals the secrets stored in the database): set it to `<id>:<32 random bytes in base64>`, e.g. `k1:$(openssl rand -base64 32)`",
        ]
      : []),
    ...(config.parts.has("worker") ? [workerProvidersProblem(config)].filter((problem) => problem !== undefined) : []),
  ];
  if (problems.length > 0) throw new ConfigError(problems);
}

/** Production sends every payer notification for real: a worker without both providers would drop them. */
export function workerProvidersProblem(config: Config): string | undefined {
  if (config.serviceEnv !== "production") return undefined;
  const missing = [
    ...(config.notifications.email ? [] : ["email provider (COBRO_SMTP_URL, COBRO_MAIL_FROM)"]),
    ...(config.notifications.whatsapp ? [] : ["chat provider (COBRO_WHATSAPP_API_URL, COBRO_WHATSAPP_PHONE_NUMBER_ID, COBRO_WHATSAPP_TOKEN)"]),
  ];
  if (missing.length === 0) return undefined;
  return `The worker sends payer notifications, and this Production process has no ${missing.join(" and no ")}: set ${missing.length > 1 ? "them" : "it"}, or run the process without the worker (--only integration,auth,admin)`;
}

function secretKeyringOf(env: NodeJS.ProcessEnv, problems: string[]): SecretKeyring | undefined {
  const text = env.COBRO_SECRET_KEY || undefined;
  if (text === undefined) return undefined;
  try {
    return SecretKeyring.parse(text);
  } catch (error) {
    if (!(error instanceof SecretKeyFormatError)) throw error;
    problems.push(`COBRO_SECRET_KEY ${error.message} (the form is <id>:<key>[,<id>:<key>], the first key sealing new values)`);
    return undefined;
  }
}

function productionDeployment(env: NodeJS.ProcessEnv, serviceEnv: ServiceEnv, problems: string[]): Config["productionDeployment"] {
  const adminUrl = env.COBRO_PRODUCTION_ADMIN_URL || undefined;
  const apiKey = env.COBRO_PRODUCTION_API_KEY || undefined;
  if (adminUrl === undefined && apiKey === undefined) return undefined;
  if (adminUrl === undefined || apiKey === undefined)
    problems.push("COBRO_PRODUCTION_ADMIN_URL and COBRO_PRODUCTION_API_KEY go together: set both, or neither");
  if (serviceEnv === "production")
    problems.push(
      "COBRO_PRODUCTION_ADMIN_URL and COBRO_PRODUCTION_API_KEY belong to the Sandbox deployment, which creates approved integrations in Production",
    );
  if (adminUrl !== undefined && !(URL.canParse(adminUrl) && /^https?:$/.test(new URL(adminUrl).protocol)))
    problems.push(`COBRO_PRODUCTION_ADMIN_URL must be an http(s) URL, not "${adminUrl}"`);
  if (adminUrl === undefined || apiKey === undefined) return undefined;
  return { adminUrl: adminUrl.replace(/\/$/, ""), apiKey };
}

function notificationProviders(env: NodeJS.ProcessEnv, problems: string[]): NotificationProviders {
  const value = (name: string) => (env[name] === "" ? undefined : env[name]);

  const smtpUrl = value("COBRO_SMTP_URL");
  const from = value("COBRO_MAIL_FROM");
  if (smtpUrl !== undefined && !(URL.canParse(smtpUrl) && /^smtps?:$/.test(new URL(smtpUrl).protocol)))
    problems.push("COBRO_SMTP_URL must be an smtp:// or smtps:// URL (credentials in it)");
  if ((smtpUrl === undefined) !== (from === undefined)) problems.push("COBRO_SMTP_URL and COBRO_MAIL_FROM go together: set both, or neither");

  const whatsappNames = ["COBRO_WHATSAPP_API_URL", "COBRO_WHATSAPP_PHONE_NUMBER_ID", "COBRO_WHATSAPP_TOKEN"] as const;
  const [apiUrl, phoneNumberId, token] = whatsappNames.map(value);
  const whatsappSet = whatsappNames.filter((name) => value(name) !== undefined);
  if (whatsappSet.length > 0 && whatsappSet.length < whatsappNames.length) problems.push(`${whatsappNames.join(", ")} go together: set all three, or none`);
  if (apiUrl !== undefined && !(URL.canParse(apiUrl) && /^https?:$/.test(new URL(apiUrl).protocol)))
    problems.push(`COBRO_WHATSAPP_API_URL must be an http(s) URL, not "${apiUrl}"`);

  const rate = (name: string, fallback: number): number => {
    const raw = value(name);
    if (raw === undefined) return fallback;
    const parsed = Number(raw);
    if (!(Number.isFinite(parsed) && parsed > 0)) problems.push(`${name} must be a positive number of messages per second, not "${raw}"`);
    return parsed;
  };

  return {
    email: smtpUrl !== undefined && from !== undefined ? { smtpUrl, from } : undefined,
    whatsapp:
      apiUrl !== undefined && phoneNumberId !== undefined && token !== undefined
        ? { apiUrl: apiUrl.replace(/\/$/, ""), phoneNumberId, token, templatePrefix: value("COBRO_WHATSAPP_TEMPLATE_PREFIX") ?? "cobro_" }
        : undefined,
    sendsPerSecond: { email: rate("COBRO_EMAIL_SENDS_PER_SECOND", 20), whatsapp: rate("COBRO_WHATSAPP_SENDS_PER_SECOND", 80) },
  };
}

function parseParts(argv: readonly string[], problems: string[]): ReadonlySet<ServicePart> {
  const index = argv.findIndex((arg) => arg === "--only" || arg.startsWith("--only="));
  if (index === -1) return new Set(SERVICE_PARTS);
  const arg = argv[index]!;
  const list = arg.includes("=") ? arg.slice("--only=".length) : argv[index + 1];
  const names = (list ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !(SERVICE_PARTS as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0) {
    problems.push(`--only takes a comma-separated list of ${SERVICE_PARTS.join(", ")}${unknown.length ? ` (unknown: ${unknown.join(", ")})` : ""}`);
    return new Set(SERVICE_PARTS);
  }
  return new Set(names as ServicePart[]);
}
