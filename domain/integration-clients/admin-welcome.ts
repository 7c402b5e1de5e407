// An admin's onboarding: the account is created with a temporary password that lasts 7 days and allows
// only changing it, and the welcome email (in Spanish) carries it with the sign-in address. Creating the
// account and mailing it are separate steps: the mail goes out after the account's transaction commits,
// and whether the mail server accepted it is recorded on the admin (`firstAdminEmailSent`).
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Executor } from "../../db/transactions.ts";
import type { AdminRole } from "../../db/tables/admins.table.ts";
import type { EmailMessage, Sender } from "../outbound/sender.ts";
import type { Clock } from "../clock.ts";
import { DomainError } from "../errors.ts";
import { createAdminUser } from "./admin-accounts.ts";
import { generatePassword, hashSecret } from "../secrets/hashing.ts";
import { accountEmail, portalUrl } from "../outbound/account-email.ts";

export const TEMPORARY_PASSWORD_DAYS = 7;

/** A new admin and the temporary password to mail it (never stored in clear). */
export interface AdminWelcome {
  adminUserId: string;
  email: string;
  name: string | null;
  temporaryPassword: string;
  expiresAt: Date;
}

function temporaryPasswordExpiry(now: Date): Date {
  return new Date(now.getTime() + TEMPORARY_PASSWORD_DAYS * 24 * 3600 * 1000);
}

/** Production without SMTP cannot deliver a temporary password (or another emailed link): refuse before creating anything. */
export function requireAccountMail(mail: Sender<EmailMessage> | undefined, unsentEmail = "the new admin's welcome email"): Sender<EmailMessage> {
  if (!mail)
    throw new DomainError(
      "MailUnavailableError",
      `This deployment has no mail server configured (COBRO_SMTP_URL, COBRO_MAIL_FROM): ${unsentEmail} cannot be sent`,
    );
  return mail;
}

export async function createAdminWithTemporaryPassword(
  db: Executor,
  input: { email: string; name: string | null; role: AdminRole; integrationClientId: string | null },
  now: Date,
): Promise<AdminWelcome> {
  const temporaryPassword = generatePassword();
  const expiresAt = temporaryPasswordExpiry(now);
  const { id } = await createAdminUser(db, { ...input, password: temporaryPassword, temporaryPasswordExpiresAt: expiresAt });
  return { adminUserId: id, email: input.email, name: input.name, temporaryPassword, expiresAt };
}

/**
 * A new temporary password for an existing admin (a welcome sent again): the previous password stops
 * working, the admin's sessions end, and the welcome counts as not sent until this one is.
 */
export async function renewTemporaryPassword(
  db: Kysely<Database>,
  admin: { adminUserId: string; integrationClientId: string },
  now: Date,
): Promise<AdminWelcome> {
  const temporaryPassword = generatePassword();
  const expiresAt = temporaryPasswordExpiry(now);
  const passwordHash = await hashSecret(temporaryPassword);
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .updateTable("admin_users")
      .set({ password_hash: passwordHash, password_change_required: true, password_expires_at: expiresAt, welcome_email_sent_at: null })
      .where("id", "=", admin.adminUserId)
      .where("integration_client_id", "=", admin.integrationClientId)
      .returning(["id", "email", "name"])
      .executeTakeFirst();
    if (!row) throw new DomainError("ClientAdminNotFoundError", "No admin with that id in this integration client");
    await trx.updateTable("admin_sessions").set({ revoked_at: now }).where("admin_user_id", "=", row.id).where("revoked_at", "is", null).execute();
    return { adminUserId: row.id, email: row.email, name: row.name, temporaryPassword, expiresAt };
  });
}

/** The welcome email: where to sign in (the portal), the user and the temporary password, and until when it works. */
export function welcomeEmail(welcome: AdminWelcome, signInUrl: string): EmailMessage {
  const greeting = welcome.name ? `Hola ${welcome.name}:` : "Hola:";
  const expires = welcome.expiresAt.toLocaleString("es-AR", { timeZone: "America/Argentina/Buenos_Aires", dateStyle: "long", timeStyle: "short" });
  const lines = [
    greeting,
    "",
    "Te creamos una cuenta de administración en Cobro.",
    "",
    `Ingresá en: ${signInUrl}`,
    `Usuario: ${welcome.email}`,
    `Contraseña temporal: ${welcome.temporaryPassword}`,
    "",
    `La contraseña temporal vence el ${expires} (hora de Argentina). Al ingresar por primera vez vas a tener que elegir una contraseña nueva.`,
    "",
    "Si no esperabas este correo, podés ignorarlo.",
  ];
  return accountEmail(welcome.email, "Bienvenido a Cobro: tu acceso de administración", lines);
}

/**
 * Mails the welcome and records it as sent when the mail server accepted it (or the Sandbox logged it).
 * Answers whether it went out; a refusal leaves `welcome_email_sent_at` empty, which the summaries show.
 */
export async function sendWelcomeEmail(
  db: Kysely<Database>,
  mail: Sender<EmailMessage>,
  clock: Clock,
  welcome: AdminWelcome,
  adminPublicUrl: string,
): Promise<{ sent: true } | { sent: false; reason: string }> {
  const result = await mail.send(welcomeEmail(welcome, portalUrl(adminPublicUrl)));
  if (result.outcome === "rejected" || result.outcome === "temporary_failure") return { sent: false, reason: result.reason };
  await db.updateTable("admin_users").set({ welcome_email_sent_at: clock.now() }).where("id", "=", welcome.adminUserId).execute();
  return { sent: true };
}
