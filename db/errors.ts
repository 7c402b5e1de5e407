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
