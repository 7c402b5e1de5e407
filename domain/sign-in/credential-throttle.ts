// Throttled guessing of credentials: merchant and admin passwords, client secrets, password reset links.
// Failures are counted in PostgreSQL (so every process of the deployment shares the count) per account
// (the lower-cased email, or the client_id) and per client address. Past a threshold the key waits,
// and each further failure doubles the wait, up to a cap: a growing delay, never a permanent lockout
// that an attacker could impose on the real owner. While a key waits, the credential is not checked at
// all (no argon2 work) and the answer is 429 TooManyAttemptsError, even for the right password.
//
// Keys are stored as their SHA-256: the table is a list of who is being guessed at, and an email or an
// address has no business there in clear (a dump or a support query shows counts, not people).
// Unknown accounts are counted exactly like known ones: the key is what was typed, not a row found.
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Clock } from "../clock.ts";
import { DomainError, type ErrorCode } from "../errors.ts";
import { sha256 } from "../secrets/hashing.ts";

/** The documented limits (README's security section and docs/security.md say the same). */
export const GUESSING_LIMITS = {
  /** Failures of one account (or client_id) before it waits. */
  accountFailures: 10,
  /** Failures from one client address, over every account, before it waits. */
  addressFailures: 50,
  /** The count starts again after this long without failures (counted from the end of a wait). */
  windowSeconds: 15 * 60,
  /** The first wait; each further failure doubles it. */
  firstWaitSeconds: 60,
  longestWaitSeconds: 15 * 60,
} as const;

/** What an account key counts: a merchant's or an admin's email, reset requests per email, a client_id. */
export type AccountScope = "merchant-email" | "admin-email" | "password-reset-email" | "client-id";
const ADDRESS_SCOPE = "address";

export interface GuessAttempt {
  /** The account the attempt names (absent when there is none, as for a reset link's token). */
  account?: { scope: AccountScope; id: string };
  /** The caller's address, as the API app determined it. */
  clientAddress: string;
}

/** The refusals that count as a failed guess. */
const CREDENTIAL_REFUSALS: ReadonlySet<ErrorCode> = new Set([
  "InvalidCredentialsError",
  "InvalidGrantError",
  "InvalidClientError",
  "PasswordResetLinkInvalidError",
]);

interface CountedKey {
  scope: string;
  keyHash: string;
  threshold: number;
}

function countedKeys(attempt: GuessAttempt): CountedKey[] {
  const keys: CountedKey[] = [{ scope: ADDRESS_SCOPE, keyHash: sha256(attempt.clientAddress), threshold: GUESSING_LIMITS.addressFailures }];
  if (attempt.account) {
    const id = attempt.account.scope === "client-id" ? attempt.account.id : attempt.account.id.trim().toLowerCase();
    keys.push({ scope: attempt.account.scope, keyHash: sha256(id), threshold: GUESSING_LIMITS.accountFailures });
  }
  return keys;
}

export function tooManyAttempts(retryAfterSeconds: number): DomainError<{ retryAfterSeconds: number; headers: { "Retry-After": number } }> {
  return new DomainError("TooManyAttemptsError", `Too many failed attempts: try again in ${retryAfterSeconds} seconds`, {
    retryAfterSeconds,
    headers: { "Retry-After": retryAfterSeconds },
  });
}

/**
 * Throws TooManyAttemptsError while the account or the address waits. One indexed select (at most two
 * rows); tells whether the account has failures counted, so that a success without any writes nothing.
 */
export async function requireNotWaiting(db: Kysely<Database>, clock: Clock, attempt: GuessAttempt): Promise<{ accountCounted: boolean }> {
  const now = clock.now();
  const keys = countedKeys(attempt);
  const rows = await db
    .selectFrom("credential_failures")
    .select(["scope", "blocked_until"])
    .where((eb) => eb.or(keys.map((key) => eb.and([eb("scope", "=", key.scope), eb("key_hash", "=", key.keyHash)]))))
    .execute();
  const waits = rows.flatMap((row) => (row.blocked_until !== null && row.blocked_until > now ? [row.blocked_until.getTime() - now.getTime()] : []));
  if (waits.length > 0) throw tooManyAttempts(Math.max(1, Math.ceil(Math.max(...waits) / 1000)));
  return { accountCounted: rows.some((row) => row.scope !== ADDRESS_SCOPE) };
}

/**
 * Counts one failure on the account and on the address in one `insert … on conflict do update`, so that
 * concurrent failures (from any process) are all counted. Once over its threshold, a key waits the first
 * wait doubled for each failure past the threshold, up to the longest.
 */
export async function recordFailure(db: Kysely<Database>, clock: Clock, attempt: GuessAttempt): Promise<void> {
  const now = clock.now();
  const { windowSeconds, firstWaitSeconds, longestWaitSeconds, addressFailures, accountFailures } = GUESSING_LIMITS;
  const keys = countedKeys(attempt);
  const failures = sql<number>`(case when f.forget_at <= ${now}::timestamptz then 1 else f.failures + 1 end)`;
  const threshold = sql<number>`(case when f.scope = ${ADDRESS_SCOPE} then ${addressFailures}::int else ${accountFailures}::int end)`;
  const blockedUntil = sql<Date | null>`(case when ${failures} >= ${threshold}
    then ${now}::timestamptz + least(${firstWaitSeconds}::float8 * power(2, least(${failures} - ${threshold}, 20)), ${longestWaitSeconds}::float8) * interval '1 second'
  end)`;
  const rows = keys.map(
    (key) => sql`(${key.scope}, ${key.keyHash}, 1, ${now}::timestamptz, null::timestamptz, ${now}::timestamptz + ${windowSeconds}::int * interval '1 second')`,
  );
  const { rows: counted } = await sql<{ inserted: boolean }>`
    insert into credential_failures as f (scope, key_hash, failures, last_failed_at, blocked_until, forget_at)
    values ${sql.join(rows)}
    on conflict (scope, key_hash) do update set
      failures = ${failures},
      last_failed_at = excluded.last_failed_at,
      blocked_until = ${blockedUntil},
      forget_at = coalesce(${blockedUntil}, ${now}::timestamptz) + ${windowSeconds}::int * interval '1 second'
    returning (xmax = 0) as inserted`.execute(db);
  // Rows past their window count for nothing: pruned when a new count starts (rare, and indexed).
  if (counted.some((row) => row.inserted)) await db.deleteFrom("credential_failures").where("forget_at", "<=", now).execute();
}

/** A success starts the account's count again. The address's count stands: one good account must not wash an address's guesses at others. */
export async function forgetAccountFailures(db: Kysely<Database>, attempt: GuessAttempt): Promise<void> {
  const account = countedKeys(attempt).find((key) => key.scope !== ADDRESS_SCOPE);
  if (account) await db.deleteFrom("credential_failures").where("scope", "=", account.scope).where("key_hash", "=", account.keyHash).execute();
}

/**
 * Runs `check` (the credential's verification) unless the account or the address waits. A credential
 * refusal is counted and thrown again; a success starts the account's count again.
 */
export async function throttledCheck<T>(db: Kysely<Database>, clock: Clock, attempt: GuessAttempt, check: () => Promise<T>): Promise<T> {
  const { accountCounted } = await requireNotWaiting(db, clock, attempt);
  let result: T;
  try {
    result = await check();
  } catch (error) {
    if (error instanceof DomainError && CREDENTIAL_REFUSALS.has(error.code)) await recordFailure(db, clock, attempt);
    throw error;
  }
  if (accountCounted) await forgetAccountFailures(db, attempt);
  return result;
}
