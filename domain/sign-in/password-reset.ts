// The password reset ("forgot password") of an admin or a merchant account: the request that opens a
// reset link (domain/password-links/, one hour) and mails it, the page's check, and setting the new
// password with it. Setting the new password uses the link up, in one transaction with the password (and,
// for an admin, with ending every session and clearing a pending temporary password). Whether an email
// belongs to an account is never told to the one who asks.
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { EmailMessage, Sender, SendResult } from "../outbound/sender.ts";
import type { Clock } from "../clock.ts";
import { DomainError, ValidationError } from "../errors.ts";
import { hashSecret, randomToken } from "../secrets/hashing.ts";
import { openPasswordLink, passwordLinkUsable, passwordResetPageUrl, useUpPasswordLink, type PasswordAccountKind } from "../password-links/password-links.ts";
import { accountEmail, portalUrl } from "../outbound/account-email.ts";
import { countAttempt, throttledCheck, type CredentialThrottle } from "./credential-throttle.ts";
import type { AdminFound } from "./admin-session.ts";

export const PASSWORD_RESET_MINUTES = 60;

/** The rule of a password an account chooses: the contract's `AdminPasswordChange.newPassword` (12 to 200 characters). */
export const CHOSEN_PASSWORD_LENGTH = { min: 12, max: 200 } as const;

/** A link to mail: the token is in clear here only, on its way to the email. */
export interface PasswordResetLink {
  account: { kind: PasswordAccountKind; id: string };
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
 * Opens a reset link for the account of that kind with that email, replacing any earlier one; `null`
 * when none has it (a merchant account that is not `active` gets none either). Both paths draw a token
 * and neither runs argon2, and the caller mails after answering, so the answer takes the same time either way (an extra
 * argon2 on unknown emails only would make them the slower ones). Every request counts as an attempt
 * (per email and per address), so that asking cannot flood a mailbox.
 */
export async function createPasswordResetLink(
  db: Kysely<Database>,
  clock: Clock,
  throttle: CredentialThrottle,
  input: { email: string; clientAddress: string },
  kind: PasswordAccountKind = "admin",
  accountFound?: (account: { kind: PasswordAccountKind; id: string }) => void,
): Promise<PasswordResetLink | null> {
  const { email } = input;
  const attempt = { account: { scope: "password-reset-email" as const, id: email }, clientAddress: input.clientAddress };
  await countAttempt(throttle, attempt);
  const token = randomToken("pr_");
  const account = kind === "admin" ? await adminWithEmail(db, email) : await activeMerchantWithEmail(db, email);
  if (!account) return null;
  accountFound?.({ kind, id: account.id });
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + PASSWORD_RESET_MINUTES * 60_000);
  await openPasswordLink(db, { kind, id: account.id }, token, now, expiresAt);
  return { account: { kind, id: account.id }, email: account.email, name: account.name, token, expiresAt };
}

async function adminWithEmail(db: Kysely<Database>, email: string) {
  return db.selectFrom("admin_users").select(["id", "email", "name"]).where(sql`lower(email)`, "=", email.trim().toLowerCase()).executeTakeFirst();
}

async function activeMerchantWithEmail(db: Kysely<Database>, email: string) {
  return db
    .selectFrom("merchant_accounts")
    .select(["id", "email", "fantasy_name as name"])
    .where(sql`lower(email)`, "=", email.trim().toLowerCase())
    .where("status", "=", "active")
    .executeTakeFirst();
}

/** The admin's reset email (Spanish): the link, and that it lasts one hour and works once. */
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

/** The merchant account's reset email (Spanish): it signs in where an integration sends it, so no portal. */
export function merchantPasswordResetEmail(link: PasswordResetLink, pageUrl: string): EmailMessage {
  const lines = [
    link.name ? `Hola ${link.name}:` : "Hola:",
    "",
    "Recibimos un pedido para restablecer la contraseña de tu cuenta de comercio en Cobro.",
    "",
    `Elegí una contraseña nueva en: ${pageUrl}`,
    "",
    "El enlace vence en una hora y sirve una sola vez. Después, ingresá con tu email y la contraseña nueva en la pantalla de autorización de la integración que uses.",
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
  const pageUrl = passwordResetPageUrl(publicUrls.auth, link.token, link.account.kind);
  return mail.send(link.account.kind === "admin" ? passwordResetEmail(link, pageUrl, portalUrl(publicUrls.admin)) : merchantPasswordResetEmail(link, pageUrl));
}

/** Refuses a link that can no longer set a password of that kind of account (the page checks before showing its form). */
export async function requireUsablePasswordResetLink(db: Kysely<Database>, clock: Clock, token: string, kind: PasswordAccountKind = "admin"): Promise<void> {
  if (!(await passwordLinkUsable(db, token, kind, clock.now()))) throw linkInvalid();
}

function checkNewPassword(newPassword: string): void {
  if (newPassword.length < CHOSEN_PASSWORD_LENGTH.min)
    throw ValidationError.of("newPassword", "minLength", `newPassword must have at least ${CHOSEN_PASSWORD_LENGTH.min} characters`, {
      limit: CHOSEN_PASSWORD_LENGTH.min,
    });
  if (newPassword.length > CHOSEN_PASSWORD_LENGTH.max)
    throw ValidationError.of("newPassword", "maxLength", `newPassword must have at most ${CHOSEN_PASSWORD_LENGTH.max} characters`, {
      limit: CHOSEN_PASSWORD_LENGTH.max,
    });
}

/**
 * Sets the new password with a link's token. Using the link up is the guarded step (a conditional
 * update), so two submissions of one link cannot both succeed. Guessing tokens is throttled per client
 * address: a refused token counts as a failure. A link of the other kind of account is refused as unknown.
 */
export async function resetPassword(
  db: Kysely<Database>,
  clock: Clock,
  throttle: CredentialThrottle,
  input: { token: string; newPassword: string; clientAddress: string },
  kind: PasswordAccountKind = "admin",
  adminFound?: AdminFound,
): Promise<void> {
  checkNewPassword(input.newPassword);
  await throttledCheck(throttle, { clientAddress: input.clientAddress }, () => setPasswordWithLink(db, clock, input, kind, adminFound));
}

async function setPasswordWithLink(
  db: Kysely<Database>,
  clock: Clock,
  input: { token: string; newPassword: string },
  kind: PasswordAccountKind,
  adminFound: AdminFound | undefined,
): Promise<void> {
  const passwordHash = await hashSecret(input.newPassword);
  const now = clock.now();
  await db.transaction().execute(async (trx) => {
    const used = await useUpPasswordLink(trx, input.token, kind, now);
    if (!used) throw linkInvalid();
    if (used.merchant_account_id !== null) {
      // A merchant account has no session of its own: the authorizations it gave integrations stand.
      await trx
        .updateTable("merchant_accounts")
        .set({ password_hash: passwordHash, password_set: true, updated_at: now })
        .where("id", "=", used.merchant_account_id)
        .execute();
      return;
    }
    const adminUserId = used.admin_user_id!;
    const admin = await trx.selectFrom("admin_users").select(["id", "role", "integration_client_id"]).where("id", "=", adminUserId).executeTakeFirstOrThrow();
    adminFound?.(admin);
    await trx
      .updateTable("admin_users")
      .set({ password_hash: passwordHash, password_change_required: false, password_expires_at: null })
      .where("id", "=", adminUserId)
      .execute();
    await trx.updateTable("admin_sessions").set({ revoked_at: now }).where("admin_user_id", "=", adminUserId).where("revoked_at", "is", null).execute();
  });
}
