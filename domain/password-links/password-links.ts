// Links that set an account's password: an admin's or a merchant account's reset link, and a new merchant
// account's invitation. The link carries a random token, kept only as its SHA-256, that works once and
// until it expires; each account has at most one link (a new one replaces the row), so only the newest
// works. What the links are for is decided above: the reset flow in domain/sign-in/password-reset.ts, the
// invitation in domain/merchants/merchant-provisioning.ts.
import type { ExpressionBuilder, Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Executor } from "../../db/transactions.ts";
import { sha256 } from "../secrets/hashing.ts";

/** Whose password a link sets: the column of `password_links` that names the account. */
export type PasswordAccountKind = "admin" | "merchant";

const ACCOUNT_COLUMN = { admin: "admin_user_id", merchant: "merchant_account_id" } as const;

/**
 * Makes `token` the account's one working link until `expiresAt`, replacing any earlier link. Takes an
 * executor, so that an invitation's link is opened in the transaction that creates the account.
 */
export async function openPasswordLink(
  db: Executor,
  account: { kind: PasswordAccountKind; id: string },
  token: string,
  now: Date,
  expiresAt: Date,
): Promise<void> {
  const column = ACCOUNT_COLUMN[account.kind];
  const tokenHash = sha256(token);
  await db
    .insertInto("password_links")
    .values({ [column]: account.id, token_hash: tokenHash, created_at: now, expires_at: expiresAt })
    .onConflict((conflict) => conflict.column(column).doUpdateSet({ token_hash: tokenHash, created_at: now, expires_at: expiresAt, used_at: null }))
    .execute();
}

/**
 * Ends the account's link, if it has one: what a link that must not set the password any more comes to
 * (mailed to an address the account no longer has, or never delivered).
 */
export async function endPasswordLink(db: Executor, account: { kind: PasswordAccountKind; id: string }): Promise<void> {
  await db.deleteFrom("password_links").where(ACCOUNT_COLUMN[account.kind], "=", account.id).execute();
}

/** Whether the account has a link that can still set its password (on its way to it, or in its mailbox). */
export async function hasWorkingPasswordLink(db: Executor, account: { kind: PasswordAccountKind; id: string }, now: Date): Promise<boolean> {
  const link = await db
    .selectFrom("password_links")
    .select("id")
    .where(ACCOUNT_COLUMN[account.kind], "=", account.id)
    .where("used_at", "is", null)
    .where("expires_at", ">", now)
    .executeTakeFirst();
  return link !== undefined;
}

/** The page a link opens, on the Auth API: the admins' or the merchant accounts'. */
export function passwordResetPageUrl(authPublicUrl: string, token: string, kind: PasswordAccountKind = "admin"): string {
  return `${authPublicUrl}/integration/${kind}/password-reset/page?token=${encodeURIComponent(token)}`;
}

/** Whether the token is a link of that kind of account that can still set its password. */
export async function passwordLinkUsable(db: Kysely<Database>, token: string, kind: PasswordAccountKind, now: Date): Promise<boolean> {
  const usable = await db
    .selectFrom("password_links")
    .select("id")
    .where(stillWorks(token, kind, now))
    .executeTakeFirst();
  return usable !== undefined;
}

/**
 * Uses the link up, if it still works: the guarded step of setting a password (a conditional update), so
 * two submissions of one link cannot both succeed. Returns the account it names, or undefined.
 */
export async function useUpPasswordLink(
  trx: Transaction<Database>,
  token: string,
  kind: PasswordAccountKind,
  now: Date,
): Promise<{ admin_user_id: string | null; merchant_account_id: string | null } | undefined> {
  return trx
    .updateTable("password_links")
    .set({ used_at: now })
    .where(stillWorks(token, kind, now))
    .returning(["admin_user_id", "merchant_account_id"])
    .executeTakeFirst();
}

/** The link with this token, of that kind of account, unused and unexpired. */
function stillWorks(token: string, kind: PasswordAccountKind, now: Date) {
  return (eb: ExpressionBuilder<Database, "password_links">) =>
    eb.and([eb("token_hash", "=", sha256(token)), eb(ACCOUNT_COLUMN[kind], "is not", null), eb("used_at", "is", null), eb("expires_at", ">", now)]);
}
