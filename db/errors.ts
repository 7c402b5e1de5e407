/**
 * A failure to start that the operator can fix (a wrong DATABASE_URL, a data folder in use, a failed
 * migration, a port in use). Its message is one readable line; the process entry and the scripts print
 * it without a stack and exit non-zero. The underlying error, if any, is kept as `cause` for debug logs.
 */
export class CobroStartupError extends Error {
  override name = "CobroStartupError";

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * Hides the password in a PostgreSQL URL so it can be logged or shown in an error.
 * `postgres://cobro:s3cret@db:5432/cobro` → `postgres://cobro:***@db:5432/cobro`.
 */
export function redactConnectionString(connectionString: string): string {
  let url: URL;
  try {
    url = new URL(connectionString);
  } catch {
    return "(an unparseable connection string)";
  }
  if (url.password) url.password = "***";
  for (const key of [...url.searchParams.keys()]) {
    if (/pass|secret|key/i.test(key)) url.searchParams.set(key, "***");
  }
  return url.toString();
}

/** PostgreSQL refused a write for a unique constraint or index (SQLSTATE 23505), this one when named. */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const { code, constraint: violated } = (error ?? {}) as { code?: string; constraint?: string };
  return code === "23505" && (constraint === undefined || violated === constraint);
}

/**
 * SQLSTATE classes and codes of a server that is away: connection exceptions, shutting down, starting up;
 * and a write refused in a read-only transaction (25006), which Cobro never opens itself: the server
 * reached is a standby, or one still promoting. Patroni's `/primary` answers 200 from the moment it holds
 * the leader lock, before PostgreSQL accepts writes, so a proxy routing by it sends sessions there early.
 */
const UNAVAILABLE_SQLSTATES = ["57P01", "57P02", "57P03", "53300", "25006"];
const UNAVAILABLE_SOCKET_CODES = ["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"];
/**
 * The drivers' own errors, which carry no code: pg's for a connection lost mid-query ("Connection
 * terminated", with or without "due to connection timeout") or none obtained in time, and Kysely's for a
 * connection whose rollback failed (its server gone), still asked for a query before it is dropped.
 */
const UNAVAILABLE_DRIVER_MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Postgres connection has been discarded/i;

/**
 * The database could not be reached or went away mid-query (stopped, restarting, unreachable, or no free
 * connection within the pool's timeout), or takes no writes for now (a standby), as opposed to a query it
 * refused: the request may be retried.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (
    let current = error as { code?: unknown; message?: unknown; cause?: unknown } | undefined, depth = 0;
    current && depth < 5;
    current = current.cause as typeof current, depth++
  ) {
    const code = typeof current.code === "string" ? current.code : undefined;
    if (code && (code.startsWith("08") || UNAVAILABLE_SQLSTATES.includes(code) || UNAVAILABLE_SOCKET_CODES.includes(code))) return true;
    const message = typeof current.message === "string" ? current.message : "";
    if (!code && UNAVAILABLE_DRIVER_MESSAGES.test(message)) return true;
  }
  return false;
}

/** What a failed statement is counted as (cobro_db_query_errors_total's `kind`). */
export const DATABASE_ERROR_KINDS = ["unavailable", "timeout", "serialization", "deadlock", "constraint", "other"] as const;
export type DatabaseErrorKind = (typeof DATABASE_ERROR_KINDS)[number];

/** PostgreSQL refused a value (a data exception, class 22) or a constraint (class 23): the data, not the database. */
export function isRefusedData(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && (code.startsWith("22") || code.startsWith("23"));
}

/**
 * The kind of a statement's failure: the server away (isDatabaseUnavailable), a statement or lock timeout
 * (57014, 55P03), a serialization failure (40001), a deadlock (40P01), an integrity constraint (class 23,
 * including the unique violations Cobro expects and answers), anything else.
 */
export function databaseErrorKind(error: unknown): DatabaseErrorKind {
  if (isDatabaseUnavailable(error)) return "unavailable";
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code === "57014" || code === "55P03") return "timeout";
  if (code === "40001") return "serialization";
  if (code === "40P01") return "deadlock";
  if (typeof code === "string" && code.startsWith("23")) return "constraint";
  return "other";
}
