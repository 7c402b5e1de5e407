// Opens Cobro's database: the server at `databaseUrl`, or an embedded PostgreSQL in `<dataDir>/postgres`.
// Both paths end in the same pg.Pool and Kysely instance, so the rest of Cobro cannot tell them apart.
//
// Value types coming back from PostgreSQL (decided here, once, for every query):
// - int8 / bigint → JS number. Money is integer cents in bigint columns; 2e10 cents is far inside
//   Number.MAX_SAFE_INTEGER (9e15). A value outside the safe range fails the query instead of losing digits.
//   count(*) is int8, so it comes back as a number too. Arrays of int8 stay strings (pg's default).
// - numeric → string (exact; pg's default). Note that sum(bigint) is numeric: cast it, `sum(x)::int8`.
// - date → 'YYYY-MM-DD' string (pg's default Date would be local midnight: off by a day in UTC-03:00).
// - timestamptz → Date (pg's default). Sessions run with TimeZone=UTC so SQL date arithmetic is the same on
//   every server; Argentina's calendar is computed in the domain.
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { Logger } from "pino";
import { CobroStartupError, redactConnectionString } from "./errors.ts";
import { startEmbeddedPostgres } from "./embedded-postgres.ts";
import type { Database } from "./schema.ts";
import { namedStatementClients, StatementNames } from "./prepared-statements.ts";
import { keepsGenericPlans } from "./transactions.ts";

export interface OpenDatabaseOptions {
  /** An external PostgreSQL (15 or newer). Without it, the embedded one in `<dataDir>/postgres`. */
  databaseUrl?: string;
  /** Cobro's data folder (used only by the embedded PostgreSQL). */
  dataDir: string;
  logger?: Logger;
  /** Connections in the pool (default 10). */
  poolSize?: number;
  /** Fixed port for the embedded PostgreSQL; a free port when absent. */
  embeddedPort?: number;
  /** Server settings for the embedded PostgreSQL's start (ignored with `databaseUrl`). */
  embeddedSettings?: Record<string, string>;
  /**
   * How long to wait for the server to answer a new connection (default 5000 ms); also the longest a query
   * waits for a free connection when the pool is exhausted (then it fails instead of hanging).
   */
  connectTimeoutMs?: number;
  /**
   * Told of every failed statement of the Kysely instance, and of every failure to get a connection for
   * one (the server away, the pool exhausted past its timeout): the process's metrics count them by kind.
   */
  onQueryError?: (error: unknown) => void;
  /**
   * Kysely's repeated statements run as named prepared statements (db/prepared-statements.ts); default on.
   * Off behind a pooler that does not keep a connection's prepared statements to one client (PgBouncer in
   * transaction mode before 1.21).
   */
  preparedStatements?: boolean;
  /** The sessions' application_name (default APPLICATION_NAME): `npm run db:migrate` tells its own apart from a serving release's. */
  applicationName?: string;
  /**
   * Connections of a second pool for batches' statements over arrays (`DatabaseHandle.batches`), whose
   * sessions keep one generic plan of each prepared statement; default 0: none, `batches` is `db`. Only
   * with a direct connection: a pooler does not keep a client's session settings.
   */
  genericPlanConnections?: number;
}

/** The application_name of a serving Cobro process's sessions. */
export const APPLICATION_NAME = "cobro";

export interface DatabaseHandle {
  db: Kysely<Database>;
  /**
   * For the transactions of batches (inGenericPlanTransaction): a pool whose sessions run with
   * plan_cache_mode=force_generic_plan, so that such a transaction needs no `set local` round trip; `db`
   * itself when the database was opened without one (genericPlanConnections).
   */
  batches: Kysely<Database>;
  pool: pg.Pool;
  /** The pool under `batches` when it has its own (genericPlanConnections), for its gauges. */
  batchesPool?: pg.Pool;
  /** Contains the password: pass it to libraries, log only `redactConnectionString(connectionString)`. */
  connectionString: string;
  embedded: boolean;
  /** Closes the pool, then stops the embedded server (fast shutdown). Safe to call twice. */
  close(): Promise<void>;
}

const MINIMUM_SERVER_VERSION = 150000;
/** How long a new connection waits for the server to answer, unless told otherwise. */
const CONNECT_TIMEOUT_MS = 5000;
const INT8_OID = 20;
const DATE_OID = 1082;

export async function openDatabase(options: OpenDatabaseOptions): Promise<DatabaseHandle> {
  const connectTimeoutMs = options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  const logger = options.logger;
  let connectionString: string;
  let stopEmbedded: (() => Promise<void>) | undefined;
  if (options.databaseUrl !== undefined) {
    connectionString = options.databaseUrl;
    assertPostgresUrl(connectionString);
  } else {
    const server = await startEmbeddedPostgres({ dataDir: options.dataDir, port: options.embeddedPort, logger, settings: options.embeddedSettings });
    connectionString = server.connectionString;
    stopEmbedded = server.stop;
  }

  try {
    await checkServer(connectionString, connectTimeoutMs);
  } catch (error) {
    await stopEmbedded?.();
    throw error;
  }

  const pool = createPool(connectionString, { max: options.poolSize ?? 10, connectTimeoutMs, logger, applicationName: options.applicationName });
  const onQueryError = options.onQueryError;
  const forKysely = options.preparedStatements === false ? (client: pg.PoolClient) => client : namedStatementClients(new StatementNames());
  const kyselyOn = (on: pg.Pool) =>
    new Kysely<Database>({
      dialect: new PostgresDialect({
        pool: {
          connect: () =>
            on.connect().then(forKysely, (error: unknown) => {
              onQueryError?.(error);
              throw error;
            }),
          end: () => on.end(),
          options: on.options,
        },
      }),
      log: onQueryError
        ? (event) => {
            if (event.level === "error") onQueryError(event.error);
          }
        : undefined,
    });
  const db = kyselyOn(pool);
  // Opens its connections only once a batch runs (pg.Pool connects on demand).
  const batchesPool = options.genericPlanConnections
    ? createPool(connectionString, {
        max: options.genericPlanConnections,
        connectTimeoutMs,
        logger,
        applicationName: options.applicationName,
        sessionSettings: { plan_cache_mode: "force_generic_plan" },
      })
    : undefined;
  const batches = batchesPool ? kyselyOn(batchesPool) : db;
  if (batches !== db) keepsGenericPlans(batches);
  logger?.debug({ database: redactConnectionString(connectionString), embedded: !!stopEmbedded }, "database connected"); // start-up detail; failing to connect is an error

  let closing: Promise<void> | undefined;
  const close = async () => {
    try {
      if (batches !== db) await batches.destroy();
      await db.destroy(); // ends the pool, waiting for checked-out clients to be released
    } finally {
      await stopEmbedded?.();
    }
  };
  return {
    db,
    batches,
    pool,
    ...(batchesPool ? { batchesPool } : {}),
    connectionString,
    embedded: stopEmbedded !== undefined,
    close: () => (closing ??= close()),
  };
}

/** A pool with Cobro's type parsing, session settings and connect timeout. */
export function createPool(
  connectionString: string,
  options: { max?: number; connectTimeoutMs?: number; logger?: Logger; applicationName?: string; sessionSettings?: Record<string, string> } = {},
): pg.Pool {
  const config = connectionConfig(connectionString, options.connectTimeoutMs, options.applicationName);
  const settings = Object.entries(options.sessionSettings ?? {}).map(([name, value]) => ` -c ${name}=${value}`);
  const pool = new pg.Pool({
    ...config,
    options: config.options + settings.join(""),
    max: options.max ?? 10,
    idleTimeoutMillis: 30_000,
  });
  // A client losing its server (restart, network) emits 'error'; without listeners the process dies. Each
  // client's own listener logs it, idle or checked out (the failing query rejects anyway); the pool relays
  // an idle client's error too, already logged.
  pool.on("error", () => undefined);
  pool.on("connect", (client) => {
    client.on("error", (error) => options.logger?.warn(connectionFailure(error), "a database connection failed"));
  });
  return pool;
}

/**
 * What a line about a failed connection says: the error's message and code. Not the error itself, whose
 * `client` carries every prepared statement's SQL and the backend's cancel key (kilobytes a line).
 */
function connectionFailure(error: unknown): { reason: string; code?: string } {
  const { message, code } = (error ?? {}) as { message?: string; code?: string };
  return { reason: message ?? String(error), ...(code ? { code } : {}) };
}

/**
 * A connection as Cobro opens it (its pools, and the connections kept apart, as the auth-change LISTEN):
 * named APPLICATION_NAME, so that `npm run db:migrate` counts it as a serving release's, in UTC, with
 * Cobro's value types and a connect timeout.
 */
export function connectionConfig(connectionString: string, connectTimeoutMs = CONNECT_TIMEOUT_MS, applicationName = APPLICATION_NAME): pg.ClientConfig {
  return {
    connectionString,
    connectionTimeoutMillis: connectTimeoutMs,
    application_name: applicationName,
    options: "-c TimeZone=UTC",
    types: { getTypeParser: getTypeParser as typeof pg.types.getTypeParser },
  };
}

function getTypeParser(oid: number, format?: "text" | "binary"): unknown {
  if (format === undefined || format === "text") {
    if (oid === INT8_OID) return parseInt8;
    if (oid === DATE_OID) return (value: string) => value;
  }
  return pg.types.getTypeParser(oid, format ?? "text");
}

function parseInt8(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed)) {
    throw new RangeError(`bigint value ${value} is beyond JavaScript's safe integer range`);
  }
  return parsed;
}

function assertPostgresUrl(connectionString: string): void {
  let url: URL | undefined;
  try {
    url = new URL(connectionString);
  } catch {
    // reported below
  }
  if (!url || (url.protocol !== "postgres:" && url.protocol !== "postgresql:")) {
    throw new CobroStartupError("DATABASE_URL is not a PostgreSQL URL (expected postgres://user:password@host:5432/database)");
  }
}

/** One connection, with a timeout, so a wrong URL ends in one readable line instead of a hang or a stack. */
async function checkServer(connectionString: string, connectTimeoutMs: number): Promise<void> {
  const where = redactConnectionString(connectionString);
  const client = new pg.Client(connectionConfig(connectionString, connectTimeoutMs));
  client.on("error", () => undefined); // a late socket error after a failed connect must not crash us
  let version: number;
  try {
    await client.connect();
    const { rows } = await client.query<{ version: number }>("select current_setting('server_version_num')::int as version");
    version = rows[0]?.version ?? 0;
  } catch (error) {
    throw new CobroStartupError(`Cannot connect to PostgreSQL at ${where}: ${describeConnectError(error, connectTimeoutMs)}`, {
      cause: error,
    });
  } finally {
    await client.end().catch(() => undefined);
  }
  if (version < MINIMUM_SERVER_VERSION) {
    throw new CobroStartupError(`PostgreSQL at ${where} is version ${version}; Cobro needs 15 or newer`);
  }
}

function describeConnectError(error: unknown, connectTimeoutMs: number): string {
  const { code, message } = error as { code?: string; message?: string };
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused (is the server running, and on that port?)";
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "host not found";
    case "ETIMEDOUT":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
      return "host unreachable";
    case "ECONNRESET":
      return "the server closed the connection";
  }
  if (!code && message && /timeout/i.test(message)) return `no answer within ${connectTimeoutMs / 1000} s`;
  if (!code && message && /terminated unexpectedly/i.test(message)) return "the server closed the connection";
  // PostgreSQL's own messages (wrong password, unknown database, …) are one line and carry no secret.
  return (message ?? String(error)).split("\n")[0] ?? "unknown error";
}
