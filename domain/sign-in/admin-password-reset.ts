// An admin (integration or platform) who forgot the password asks for a reset link by email. The link
// carries a random token, kept only as its SHA-256, that works once and for one hour; each admin has at
// most one link (a new request replaces the row), so only the newest works. Setting the new password
// uses the link up, ends every session of the admin, and clears a pending temporary password, in one
// transaction. Whether an email belongs to an admin is never told to the one who asks.
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { EmailMessage, Sender, SendResult } from "../outbound/sender.ts";
import type { Clock } from "../clock.ts";
import { DomainError, ValidationError } from "../errors.ts";
import { hashSecret, randomToken, sha256 } from "../secrets/hashing.ts";
import { accountEmail, portalUrl } from "../outbound/account-email.ts";
import { countAttempt, throttledCheck } from "./credential-throttle.ts";

export const PASSWORD_RESET_MINUTES = 60;

/** The rule of a password an admin chooses: the contract's `AdminPasswordChange.newPassword` (12 to 200 characters). */
export const ADMIN_PASSWORD_LENGTH = { min: 12, max: 200 } as const;

/** A link to mail: the token is in clear here only, on its way to the email. */
export interface PasswordResetLink {
  adminUserId: string;
  email: string;
  name: string | null;
  token: string;
  expiresAt: Date;
}

const linkInvalid = () =>
  new DomainError(
    "PasswordResetLinkInvalidError",
    "This password reset link does not work: it is unknown, already used, older than one hour, or replaced by a newer one",
  );

/**
 * Opens a reset link for the admin with that email, replacing any earlier one; `null` when no admin has
 * it. Both paths draw and hash a token, and the caller mails after answering, so the answer takes the
 * same time either way (an extra argon2 on unknown emails only would make them the slower ones). Every
 * request counts as an attempt (per email and per address), so that asking cannot flood a mailbox.
 */
export async function createPasswordResetLink(
  db: Kysely<Database>,
  clock: Clock,
  input: { email: string; clientAddress: string },
): Promise<PasswordResetLink | null> {
  const { email } = input;
  const attempt = { account: { scope: "password-reset-email" as const, id: email }, clientAddress: input.clientAddress };
  await countAttempt(db, clock, attempt);
  const token = randomToken("pr_");
  const tokenHash = sha256(token);
  const admin = await db.selectFrom("admin_users").select(["id", "email", "name"]).where(sql`lower(email)`, "=", email.trim().toLowerCase()).executeTakeFirst();
  if (!admin) return null;
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + PASSWORD_RESET_MINUTES * 60_000);
  await db
    .insertInto("admin_password_resets")
    .values({ admin_user_id: admin.id, token_hash: tokenHash, created_at: now, expires_at: expiresAt })
    .onConflict((conflict) => conflict.column("admin_user_id").doUpdateSet({ token_hash: tokenHash, created_at: now, expires_at: expiresAt, used_at: null }))
    .execute();
  return { adminUserId: admin.id, email: admin.email, name: admin.name, token, expiresAt };
}

/** The page a reset link opens, on the Auth API. */
export function passwordResetPageUrl(authPublicUrl: string, token: string): string {
  return `${authPublicUrl}/integration/admin/password-reset/page?token=${encodeURIComponent(token)}`;
}

/** The reset email (Spanish): the link, and that it lasts one hour and works once. */
export function passwordResetEmail(link: PasswordResetLink, pageUrl: string, signInUrl: string): EmailMessage {
  const greeting = link.name ? `Hola ${link.name}:` : "Hola:";
  const lines = [
    greeting,
    "",
    "Recibimos un pedido para restablecer la contraseña de tu cuenta de administración en Cobro.",
    "",
    `Elegí una contraseña nueva en: ${pageUrl}`,
    "",
    "El enlace vence en una hora y sirve una sola vez. Al cambiar la contraseña se cierran todas tus sesiones abiertas.",
    `Después, ingresá en el portal: ${signInUrl}`,
    "",
    "Si no lo pediste, ignorá este correo: tu contraseña actual sigue funcionando.",
  ];
  return accountEmail(link.email, "Cobro: restablecé tu contraseña", lines);
}

export async function sendPasswordResetEmail(
  mail: Sender<EmailMessage>,
  link: PasswordResetLink,
  publicUrls: { auth: string; admin: string },
): Promise<SendResult> {
  return mail.send(passwordResetEmail(link, passwordResetPageUrl(publicUrls.auth, link.token), portalUrl(publicUrls.admin)));
}

/** Refuses a link that can no longer set a password (the page checks before showing its form). */
export async function requireUsablePasswordResetLink(db: Kysely<Database>, clock: Clock, token: string): Promise<void> {
  const usable = await db
    .selectFrom("admin_password_resets")
    .select("id")
    .where("token_hash", "=", sha256(token))
    .where("used_at", "is", null)
    .where("expires_at", ">", clock.now())
    .executeTakeFirst();
  if (!usable) throw linkInvalid();
}

function checkNewPassword(newPassword: string): void {
  if (newPassword.length < ADMIN_PASSWORD_LENGTH.min)
    throw ValidationError.of("newPassword", "minLength", `newPassword must have at least ${ADMIN_PASSWORD_LENGTH.min} characters`, {
      limit: ADMIN_PASSWORD_LENGTH.min,
    });
  if (newPassword.length > ADMIN_PASSWORD_LENGTH.max)
    throw ValidationError.of("newPassword", "maxLength", `newPassword must have at most ${ADMIN_PASSWORD_LENGTH.max} characters`, {
      limit: ADMIN_PASSWORD_LENGTH.max,
    });
}

/**
 * Sets the new password with a reset link's token. Using the link up is the guarded step (a conditional
 * update), so two submissions of one link cannot both succeed. Guessing tokens is throttled per client
 * address: a refused token counts as a failure.
 */
export async function resetAdminPassword(
  db: Kysely<Database>,
  clock: Clock,
  input: { token: string; newPassword: string; clientAddress: string },
): Promise<void> {
  checkNewPassword(input.newPassword);
  await throttledCheck(db, clock, { clientAddress: input.clientAddress }, () => setPasswordWithLink(db, clock, input));
}

async function setPasswordWithLink(db: Kysely<Database>, clock: Clock, input: { token: string; newPassword: string }): Promise<void> {
  const passwordHash = await hashSecret(input.newPassword);
  const now = clock.now();
  await db.transaction().execute(async (trx) => {
    const used = await trx
      .updateTable("admin_password_resets")
      .set({ used_at: now })
      .where("token_hash", "=", sha256(input.token))
      .where("used_at", "is", null)
      .where("expires_at", ">", now)
      .returning("admin_user_id")
      .executeTakeFirst();
    if (!used) throw linkInvalid();
    await trx
      .updateTable("admin_users")
      .set({ password_hash: passwordHash, password_change_required: false, password_expires_at: null })
      .where("id", "=", used.admin_user_id)
      .execute();
    await trx.updateTable("admin_sessions").set({ revoked_at: now }).where("admin_user_id", "=", used.admin_user_id).where("revoked_at", "is", null).execute();
  });
}
