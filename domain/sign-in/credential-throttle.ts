// Throttled guessing of credentials: merchant and admin passwords, client secrets, password reset links,
// and the reset requests themselves. Attempts are counted in PostgreSQL (so every process of the
// deployment shares the count) per account (the lower-cased email, or the client_id) and per client
// address. Past a threshold the key waits, and each further attempt after a wait doubles the next one, up
// to a cap: a growing delay, never a permanent lockout that an attacker could impose on the real owner.
// While a key waits, the credential is not checked at all (no argon2 work) and the answer is 429
// TooManyAttemptsError, even for the right password.
//
// An attempt is counted BEFORE its credential is checked, in one short transaction that locks the keys'
// rows: a burst of parallel attempts cannot all pass a check of the count made before any of them was
// recorded. At most `threshold` attempts of a key are checked; the rest are refused. An attempt whose
// credential was right is then confirmed: if attempts of its keys were refused while it was being checked
// (a burst over the limit), it is refused like them, so that a right guess inside a burst gains nothing.
// Otherwise the account's count starts again, and the attempt no longer counts against the address.
//
// Keys are stored as their SHA-256: the table is a list of who is being guessed at, and an email or an
// address has no business there in clear (a dump or a support query shows counts, not people).
// Unknown accounts are counted exactly like known ones: the key is what was typed, not a row found.
import { sql, type Kysely, type Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Clock } from "../clock.ts";
import { DomainError, type ErrorCode } from "../errors.ts";
import { sha256 } from "../secrets/hashing.ts";

/** The documented limits (README's security section and docs/throttled-guessing.md say the same). */
export const GUESSING_LIMITS = {
  /** Attempts of one account (or client_id) that are checked before it waits. */
  accountFailures: 10,
  /** Attempts from one client address, over every account, that are checked before it waits. */
  addressFailures: 50,
  /** The count starts again after this long without attempts (counted from the end of a wait). */
  windowSeconds: 15 * 60,
  /** The first wait; each attempt after a wait doubles the next. */
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

/**
 * What the throttle tells the process's metrics: each sign-in of a person (an admin's or a merchant
 * account's password) by outcome, and each attempt refused for too many, by the key that refused it.
 */
export interface GuessingObserver {
  signIn(who: "admin" | "merchant", outcome: "success" | "refused" | "throttled"): void;
  throttled(scope: AccountScope | typeof ADDRESS_SCOPE): void;
}

/**
 * A service's throttle. Its bookkeeping runs on the database it is made with, the service's own, and never
 * on a handle a request was given: a count commits on its own, before and apart from the change it guards,
 * whatever a request's own handle adds to its change.
 */
export interface CredentialThrottle {
  readonly db: Kysely<Database>;
  readonly clock: Clock;
  /** Told of what the throttle judges: each process (each test service) has its own, so counts stay with their process. */
  readonly observer?: GuessingObserver;
}

export function credentialThrottle(db: Kysely<Database>, clock: Clock, observer?: GuessingObserver): CredentialThrottle {
  return { db, clock, observer };
}

const SIGN_IN_SCOPES: Partial<Record<AccountScope, "admin" | "merchant">> = { "admin-email": "admin", "merchant-email": "merchant" };

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

/** An attempt that was counted and may be checked: how many attempts each of its keys had refused when it was counted. */
export interface CountedAttempt {
  attempt: GuessAttempt;
  refusedWhenCounted: ReadonlyMap<string, number>;
}

/** The keys in a fixed order (scope, then hash: the address first), so that two attempts lock their rows in the same order. */
function countedKeys(attempt: GuessAttempt): CountedKey[] {
  const keys: CountedKey[] = [{ scope: ADDRESS_SCOPE, keyHash: sha256(attempt.clientAddress), threshold: GUESSING_LIMITS.addressFailures }];
  if (attempt.account) {
    const id = attempt.account.scope === "client-id" ? attempt.account.id : attempt.account.id.trim().toLowerCase();
    keys.push({ scope: attempt.account.scope, keyHash: sha256(id), threshold: GUESSING_LIMITS.accountFailures });
  }
  return keys.sort((a, b) => (a.scope === b.scope ? a.keyHash.localeCompare(b.keyHash) : a.scope.localeCompare(b.scope)));
}

export function tooManyAttempts(retryAfterSeconds: number): DomainError<{ retryAfterSeconds: number; headers: { "Retry-After": number } }> {
  return new DomainError("TooManyAttemptsError", `Too many failed attempts: try again in ${retryAfterSeconds} seconds`, {
    retryAfterSeconds,
    headers: { "Retry-After": retryAfterSeconds },
  });
}

function secondsUntil(instant: Date, now: Date): number {
  return Math.max(1, Math.ceil((instant.getTime() - now.getTime()) / 1000));
}

function nextWait(attempts: number, threshold: number): number {
  const { firstWaitSeconds, longestWaitSeconds } = GUESSING_LIMITS;
  return Math.min(firstWaitSeconds * 2 ** Math.min(attempts - threshold - 1, 20), longestWaitSeconds);
}

interface KeyRow {
  scope: string;
  key_hash: string;
  failures: number;
  refused: number;
  blocked_until: Date | null;
  forget_at: Date;
}

/** The keys' rows, created when missing, locked in the keys' order for the rest of the transaction. */
async function lockKeys(trx: Transaction<Database>, keys: CountedKey[], now: Date): Promise<{ rows: KeyRow[]; created: boolean }> {
  const { windowSeconds } = GUESSING_LIMITS;
  const fresh = keys.map(
    (key) =>
      sql`(${key.scope}, ${key.keyHash}, 0, 0, ${now}::timestamptz, null::timestamptz, ${now}::timestamptz + ${windowSeconds}::int * interval '1 second')`,
  );
  const inserted = await sql`insert into credential_failures (scope, key_hash, failures, refused, last_failed_at, blocked_until, forget_at)
    values ${sql.join(fresh)} on conflict (scope, key_hash) do nothing`.execute(trx);
  const rows = await trx
    .selectFrom("credential_failures")
    .select(["scope", "key_hash", "failures", "refused", "blocked_until", "forget_at"])
    .where((eb) => eb.or(keys.map((key) => eb.and([eb("scope", "=", key.scope), eb("key_hash", "=", key.keyHash)]))))
    .orderBy("scope")
    .orderBy("key_hash")
    .forUpdate()
    .execute();
  return { rows, created: Number(inserted.numAffectedRows ?? 0n) > 0 };
}

/**
 * Counts the attempt on each of its keys before anything is checked, and refuses it (429
 * TooManyAttemptsError with Retry-After) when a key waits or has had its `threshold` attempts checked
 * already. One transaction: the keys' rows are locked, so parallel attempts are counted one after another.
 */
export async function countAttempt(throttle: CredentialThrottle, attempt: GuessAttempt): Promise<CountedAttempt> {
  const { db, clock, observer } = throttle;
  const now = clock.now();
  const keys = countedKeys(attempt);
  const outcome = await db.transaction().execute(async (trx) => {
    let created = false;
    const judged: Judgement[] = [];
    // The address first (its scope sorts first): a key that refuses stops the count, so the keys after it
    // are not touched, and an address that waits cannot make rows for new accounts.
    for (const key of keys) {
      const locked = await lockKeys(trx, [key], now);
      created ||= locked.created;
      const judgement = judgeAttempt(key, locked.rows[0]!, now);
      if (judgement.waitSeconds > 0) {
        // Refused: counted as refused on this key, and not at all on the others.
        await writeCount(trx, judgement, now);
        return { created, waitSeconds: judgement.waitSeconds, refusedBy: judgement.row.scope, refusedWhenCounted: new Map<string, number>() };
      }
      judged.push(judgement);
    }
    for (const judgement of judged) await writeCount(trx, judgement, now);
    return {
      created,
      waitSeconds: 0,
      refusedBy: undefined,
      refusedWhenCounted: new Map(judged.map((judgement) => [judgement.row.scope, judgement.refused])),
    };
  });
  // A new count started: rows past their window count for nothing (rare, and one indexed delete).
  if (outcome.created) await db.deleteFrom("credential_failures").where("forget_at", "<=", now).execute();
  if (outcome.waitSeconds > 0) {
    observer?.throttled(outcome.refusedBy as AccountScope | typeof ADDRESS_SCOPE);
    throw tooManyAttempts(outcome.waitSeconds);
  }
  return { attempt, refusedWhenCounted: outcome.refusedWhenCounted };
}

interface Judgement {
  row: KeyRow;
  /** The key's count and refusals with this attempt, and its wait. */
  failures: number;
  refused: number;
  blockedUntil: Date | null;
  /** Above 0: the key refuses this attempt for that long. */
  waitSeconds: number;
}

/** What one key says of an attempt: counted and checked, or refused while it waits or once over its threshold. */
function judgeAttempt(key: CountedKey, row: KeyRow, now: Date): Judgement {
  // A count whose window has passed starts again.
  const expired = row.forget_at <= now;
  const failures = expired ? 0 : row.failures;
  const refused = expired ? 0 : row.refused;
  const blockedUntil = expired ? null : row.blocked_until;
  if (blockedUntil !== null && blockedUntil > now) {
    // Waiting: refused, and not counted (a refused attempt does not lengthen the wait).
    return { row, failures, refused: refused + 1, blockedUntil, waitSeconds: secondsUntil(blockedUntil, now) };
  }
  const counted = failures + 1;
  if (counted <= key.threshold) return { row, failures: counted, refused, blockedUntil, waitSeconds: 0 };
  if (blockedUntil === null) {
    // Over the threshold for the first time: refused, and the first wait starts.
    const until = new Date(now.getTime() + GUESSING_LIMITS.firstWaitSeconds * 1000);
    return { row, failures: counted, refused: refused + 1, blockedUntil: until, waitSeconds: secondsUntil(until, now) };
  }
  // After a wait: this attempt is checked, and the next one already waits twice as long as the last.
  return { row, failures: counted, refused, blockedUntil: new Date(now.getTime() + nextWait(counted, key.threshold) * 1000), waitSeconds: 0 };
}

async function writeCount(trx: Transaction<Database>, judgement: Judgement, now: Date): Promise<void> {
  const waitsUntil = judgement.blockedUntil !== null && judgement.blockedUntil > now ? judgement.blockedUntil : now;
  await trx
    .updateTable("credential_failures")
    .set({
      failures: judgement.failures,
      refused: judgement.refused,
      last_failed_at: now,
      blocked_until: judgement.blockedUntil,
      forget_at: new Date(waitsUntil.getTime() + GUESSING_LIMITS.windowSeconds * 1000),
    })
    .where("scope", "=", judgement.row.scope)
    .where("key_hash", "=", judgement.row.key_hash)
    .execute();
}

/**
 * An attempt whose credential was right. Refused (429) when attempts of its keys were refused while it
 * was being checked: it was part of a burst over the limit. Otherwise the account's count starts again,
 * and the address no longer counts it (one good account must not wash an address's guesses at others, nor
 * should a right password count as a guess).
 */
async function confirmRightCredential(throttle: CredentialThrottle, counted: CountedAttempt): Promise<void> {
  const { db, clock, observer } = throttle;
  const now = clock.now();
  const keys = countedKeys(counted.attempt);
  const refusal = await db.transaction().execute(async (trx) => {
    const { rows } = await lockKeys(trx, keys, now);
    const burst = rows.find((row) => row.refused > (counted.refusedWhenCounted.get(row.scope) ?? 0));
    if (burst)
      return {
        scope: burst.scope,
        waitSeconds: burst.blocked_until !== null && burst.blocked_until > now ? secondsUntil(burst.blocked_until, now) : GUESSING_LIMITS.firstWaitSeconds,
      };
    for (const row of rows) {
      if (row.scope === ADDRESS_SCOPE) {
        await trx
          .updateTable("credential_failures")
          .set({ failures: sql`greatest(failures - 1, 0)` })
          .where("scope", "=", row.scope)
          .where("key_hash", "=", row.key_hash)
          .execute();
      } else {
        await trx.deleteFrom("credential_failures").where("scope", "=", row.scope).where("key_hash", "=", row.key_hash).execute();
      }
    }
    return undefined;
  });
  if (refusal) {
    observer?.throttled(refusal.scope as AccountScope | typeof ADDRESS_SCOPE);
    throw tooManyAttempts(refusal.waitSeconds);
  }
}

/** An attempt that could not be judged (the database went away, a bug): it no longer counts against its keys. */
async function uncount(db: Kysely<Database>, counted: CountedAttempt): Promise<void> {
  const keys = countedKeys(counted.attempt);
  await db
    .updateTable("credential_failures")
    .set({ failures: sql`greatest(failures - 1, 0)` })
    .where((eb) => eb.or(keys.map((key) => eb.and([eb("scope", "=", key.scope), eb("key_hash", "=", key.keyHash)]))))
    .execute();
}

/**
 * Runs `check` (the credential's verification) if the attempt may be checked (countAttempt). A credential
 * refusal is thrown again (the attempt stays counted); a right credential is confirmed (refused if the
 * attempt was part of a burst over the limit).
 */
export async function throttledCheck<T>(throttle: CredentialThrottle, attempt: GuessAttempt, check: () => Promise<T>): Promise<T> {
  const who = attempt.account && SIGN_IN_SCOPES[attempt.account.scope];
  const observer = who === undefined ? undefined : throttle.observer;
  try {
    const counted = await countAttempt(throttle, attempt);
    let result: T;
    try {
      result = await check();
    } catch (error) {
      if (!(error instanceof DomainError && CREDENTIAL_REFUSALS.has(error.code))) await uncount(throttle.db, counted).catch(() => undefined);
      throw error;
    }
    await confirmRightCredential(throttle, counted);
    observer?.signIn(who!, "success");
    return result;
  } catch (error) {
    // A sign-in that failed otherwise (the database away) is neither.
    const code = error instanceof DomainError ? error.code : undefined;
    if (code === "TooManyAttemptsError") observer?.signIn(who!, "throttled");
    else if (code !== undefined && CREDENTIAL_REFUSALS.has(code)) observer?.signIn(who!, "refused");
    throw error;
  }
}
