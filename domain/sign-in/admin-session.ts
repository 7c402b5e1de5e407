// The portal admins' session: sign-in with email and password (an idToken and a 30-day refresh token), its
// refresh (each refresh token used once), sign-out, and the password change that ends the other sessions.
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { AdminUser } from "../../db/tables/admins.table.ts";
import type { Clock } from "../clock.ts";
import { DomainError } from "../errors.ts";
import { burnVerification, hashSecret, randomToken, sha256, verifySecret } from "../secrets/hashing.ts";
import { ID_TOKEN_SECONDS, type TokenService } from "./tokens.ts";
import { throttledCheck, type CredentialThrottle } from "./credential-throttle.ts";

const SESSION_DAYS = 30;

/** An admin as a request that acts for them knows them. */
export type AdminIdentity = Pick<AdminUser, "id" | "role" | "integration_client_id">;

/**
 * Told which admin a request turns out to act as, as soon as the use case knows: a sign-in knows once the
 * email is found, before the password is checked.
 */
export type AdminFound = (admin: AdminIdentity) => void;

export interface AdminSession {
  idToken: string;
  refreshToken: string;
  tokenType: "Bearer";
  expiresIn: number;
  /** Signed in with a temporary password: only the password change is allowed until it is done. */
  passwordChangeRequired: boolean;
}

/** A temporary password past its 7 days no longer signs in. */
function temporaryPasswordExpired(admin: { password_change_required: boolean; password_expires_at: Date | null }, now: Date): boolean {
  return admin.password_change_required && admin.password_expires_at !== null && admin.password_expires_at.getTime() <= now.getTime();
}

/** Guessing is throttled per email and per client address (domain/sign-in/credential-throttle.ts). */
export async function adminSignIn(
  db: Kysely<Database>,
  clock: Clock,
  throttle: CredentialThrottle,
  tokens: TokenService,
  input: { email: string; password: string; clientAddress: string },
  adminFound?: AdminFound,
): Promise<AdminSession> {
  const admin = await throttledCheck(throttle, { account: { scope: "admin-email", id: input.email }, clientAddress: input.clientAddress }, async () => {
    const found = await db.selectFrom("admin_users").selectAll().where(sql`lower(email)`, "=", input.email.trim().toLowerCase()).executeTakeFirst();
    if (!found) {
      await burnVerification(input.password);
      throw new DomainError("InvalidCredentialsError", "Wrong email or password");
    }
    adminFound?.(found);
    if (!(await verifySecret(found.password_hash, input.password))) throw new DomainError("InvalidCredentialsError", "Wrong email or password");
    return found;
  });
  const now = clock.now();
  if (temporaryPasswordExpired(admin, now))
    throw new DomainError("InvalidCredentialsError", "The temporary password has expired: ask a platform admin for a new welcome email");
  const refreshToken = randomToken("rt_");
  const session = await db.transaction().execute(async (trx) => {
    await trx.updateTable("admin_users").set({ first_login_at: now }).where("id", "=", admin.id).where("first_login_at", "is", null).execute();
    return trx
      .insertInto("admin_sessions")
      .values({
        admin_user_id: admin.id,
        refresh_token_hash: sha256(refreshToken),
        created_at: now,
        expires_at: new Date(now.getTime() + SESSION_DAYS * 24 * 3600 * 1000),
      })
      .returning("id")
      .executeTakeFirstOrThrow();
  });
  const idToken = await tokens.issueAdminToken({
    adminUserId: admin.id,
    sessionId: session.id,
    role: admin.role,
    integrationClientId: admin.integration_client_id,
    email: admin.email,
  });
  return { idToken, refreshToken, tokenType: "Bearer", expiresIn: ID_TOKEN_SECONDS, passwordChangeRequired: admin.password_change_required };
}

/** Changes the signed-in admin's password (a temporary one included, while it lasts) and ends the admin's other sessions. */
export async function changeAdminPassword(
  db: Kysely<Database>,
  clock: Clock,
  input: { adminUserId: string; sessionId: string; currentPassword: string; newPassword: string },
): Promise<void> {
  const admin = await db.selectFrom("admin_users").selectAll().where("id", "=", input.adminUserId).executeTakeFirst();
  if (!admin || !(await verifySecret(admin.password_hash, input.currentPassword)))
    throw new DomainError("InvalidCredentialsError", "The current password is wrong");
  if (temporaryPasswordExpired(admin, clock.now()))
    throw new DomainError("InvalidCredentialsError", "The temporary password has expired: ask a platform admin for a new welcome email");
  const newHash = await hashSecret(input.newPassword);
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable("admin_users")
      .set({ password_hash: newHash, password_change_required: false, password_expires_at: null })
      .where("id", "=", admin.id)
      .execute();
    await trx
      .updateTable("admin_sessions")
      .set({ revoked_at: clock.now() })
      .where("admin_user_id", "=", admin.id)
      .where("id", "!=", input.sessionId)
      .where("revoked_at", "is", null)
      .execute();
  });
}

/**
 * A new idToken and refresh token for a live session. The refresh token is used once: it is swapped in
 * the same statement that checks it, so two refreshes with one token give one session, not two. A used
 * token presented again means that two parties hold it (a copy taken, or a thief who refreshed first):
 * the session ends for both, and with it its idTokens, as a reused OAuth code revokes its tokens.
 */
export async function refreshAdminSession(
  db: Kysely<Database>,
  clock: Clock,
  tokens: TokenService,
  refreshToken: string,
  adminFound?: AdminFound,
): Promise<AdminSession> {
  const now = clock.now();
  const next = randomToken("rt_");
  const presented = sha256(refreshToken);
  const session = await db.transaction().execute(async (trx) => {
    const swapped = await trx
      .updateTable("admin_sessions as s")
      .from("admin_users as a")
      .set({ refresh_token_hash: sha256(next) })
      .whereRef("a.id", "=", "s.admin_user_id")
      .where("s.refresh_token_hash", "=", presented)
      .where("s.revoked_at", "is", null)
      .where("s.expires_at", ">", now)
      .returning(["s.id", "a.id as adminUserId", "a.role", "a.integration_client_id", "a.email", "a.password_change_required", "a.password_expires_at"])
      .executeTakeFirst();
    if (swapped) {
      adminFound?.({ id: swapped.adminUserId, role: swapped.role, integration_client_id: swapped.integration_client_id });
      await trx.insertInto("admin_session_used_refresh_tokens").values({ token_hash: presented, session_id: swapped.id, used_at: now }).execute();
      return swapped;
    }
    const reused = await trx
      .updateTable("admin_sessions")
      .set({ revoked_at: now })
      .where("id", "=", (eb) => eb.selectFrom("admin_session_used_refresh_tokens").select("session_id").where("token_hash", "=", presented))
      .where("revoked_at", "is", null)
      .returning("id")
      .executeTakeFirst();
    return reused ? "reused" : undefined;
  });
  if (session === "reused")
    throw new DomainError("AdminSessionEndedError", "This refresh token was already used, so the session has ended for safety: sign in again");
  if (!session) throw new DomainError("AdminSessionEndedError", "The session has ended (or this refresh token was already used): sign in again");
  if (temporaryPasswordExpired(session, now))
    throw new DomainError("AdminSessionEndedError", "The temporary password has expired: ask a platform admin for a new welcome email");
  const idToken = await tokens.issueAdminToken({
    adminUserId: session.adminUserId,
    sessionId: session.id,
    role: session.role,
    integrationClientId: session.integration_client_id,
    email: session.email,
  });
  return { idToken, refreshToken: next, tokenType: "Bearer", expiresIn: ID_TOKEN_SECONDS, passwordChangeRequired: session.password_change_required };
}

/** Signs out: the refresh token's session ends, and with it its idTokens. Unknown or ended tokens change nothing. */
export async function endAdminSession(db: Kysely<Database>, clock: Clock, refreshToken: string, adminFound?: AdminFound): Promise<void> {
  const ended = await db
    .updateTable("admin_sessions as s")
    .from("admin_users as a")
    .set({ revoked_at: clock.now() })
    .whereRef("a.id", "=", "s.admin_user_id")
    .where("s.refresh_token_hash", "=", sha256(refreshToken))
    .where("s.revoked_at", "is", null)
    .returning(["a.id", "a.role", "a.integration_client_id"])
    .executeTakeFirst();
  if (ended) adminFound?.(ended);
}
