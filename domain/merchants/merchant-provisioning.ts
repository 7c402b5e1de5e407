// Merchant accounts kept by the payment provider's systems. Each call states a whole account keyed by the
// provider's own id (`provider_merchant_id`, unique), so repeating it is harmless: the first creates, the
// next ones find the account and change only what differs. A new active account has no password: it is
// invited by email to choose one through a password link (domain/password-links/). A new email ends the
// account's link: the account is invited again at the new address, or told there, when it has a password.
import type { Kysely, Transaction } from "kysely";
import { isUniqueViolation } from "../../db/errors.ts";
import type { Database } from "../../db/schema.ts";
import type { MerchantAccount, MerchantAccountStatus } from "../../db/tables/merchants.table.ts";
import type { EmailMessage, Sender } from "../outbound/sender.ts";
import type { Clock } from "../clock.ts";
import { DomainError, ValidationError } from "../errors.ts";
import { isValidCuil } from "../tax-id.ts";
import { generatePassword, hashSecret, randomToken } from "../secrets/hashing.ts";
import { requireAccountMail } from "../integration-clients/admin-welcome.ts";
import { endPasswordLink, hasWorkingPasswordLink, openPasswordLink, passwordResetPageUrl } from "../password-links/password-links.ts";
import { accountEmail } from "../outbound/account-email.ts";

/** How long an invitation's link works: as long as an admin's temporary password. */
export const INVITATION_DAYS = 7;

/** A merchant account as the provider states it. */
export interface ProvidedMerchantAccount {
  email: string;
  legalName: string;
  cuit: string;
  tradeName: string;
  status: MerchantAccountStatus;
}

export type ProvisionResult = "created" | "updated" | "unchanged";

/** An invitation to mail: the token is in clear here only, on its way to the email. */
export interface MerchantInvitation {
  merchantAccountId: string;
  email: string;
  tradeName: string;
  token: string;
  expiresAt: Date;
}

/** The account's new sign-in email, to tell at that address (an account that has a password). */
export interface EmailChangeNotice {
  email: string;
  tradeName: string;
}

export interface ProvisionOutcome {
  result: ProvisionResult;
  account: MerchantAccount;
  /** Present when this call opened the account's invitation: mail it. */
  invitation?: MerchantInvitation;
  /** Present when this call changed the email of an account that has a password: mail it. */
  emailChangeNotice?: EmailChangeNotice;
}

/** The fields of a provided account as the table names them. */
function columnsOf(input: ProvidedMerchantAccount) {
  return {
    email: input.email,
    account_holder_name: input.legalName,
    account_holder_tax_id: input.cuit,
    fantasy_name: input.tradeName,
    status: input.status,
  };
}

/** Refuses what the contract's schema cannot: a CUIT whose prefix or check digit is wrong. */
export function checkProvidedMerchantAccount(input: ProvidedMerchantAccount): void {
  if (!isValidCuil(input.cuit))
    throw ValidationError.of(
      "cuit",
      "taxDocument",
      "cuit must be a valid CUIT: 11 digits, a known prefix (20, 23, 24, 27, 30, 33, 34) and the right check digit",
    );
}

/**
 * Creates or updates the account with this provider id, in one transaction with its invitation's link.
 * `mail` is the deployment's mail sender: an account that must be invited is refused (nothing changes)
 * when there is none. Two calls at once for a new id: the loser of a unique key runs again as an update; an
 * email still taken then is another account's.
 */
export async function provisionMerchantAccount(
  db: Kysely<Database>,
  mail: Sender<EmailMessage> | undefined,
  providerMerchantId: string,
  input: ProvidedMerchantAccount,
  now: Date,
  /** Told the result inside the transaction, before its COMMIT: what the change is recorded with (the audit log's status). */
  decided?: (result: ProvisionResult) => void,
): Promise<ProvisionOutcome> {
  checkProvidedMerchantAccount(input);
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute(async (trx) => {
        const outcome = await upsert(trx, mail, providerMerchantId, input, now);
        decided?.(outcome.result);
        return outcome;
      });
    } catch (error) {
      // The loser of a race for a new id may hit either unique key first (the email's is checked before
      // the provider id's): once the winner committed, the next attempt finds its account and updates it.
      const raced = isUniqueViolation(error, "merchant_accounts_provider_merchant_id_key") || isUniqueViolation(error, "merchant_accounts_email_key");
      if (attempt === 1 && raced) continue;
      if (isUniqueViolation(error, "merchant_accounts_email_key"))
        throw new DomainError("MerchantEmailAlreadyExistsError", `Another merchant account already has the email ${input.email}`);
      throw error;
    }
  }
}

async function upsert(
  trx: Transaction<Database>,
  mail: Sender<EmailMessage> | undefined,
  providerMerchantId: string,
  input: ProvidedMerchantAccount,
  now: Date,
): Promise<ProvisionOutcome> {
  const existing = await trx.selectFrom("merchant_accounts").selectAll().where("provider_merchant_id", "=", providerMerchantId).forUpdate().executeTakeFirst();
  const wanted = columnsOf(input);
  let account: MerchantAccount;
  let result: ProvisionResult;
  let emailChangeNotice: EmailChangeNotice | undefined;
  if (!existing) {
    if (invitationDue({ ...wanted, password_set: false, invitation_sent_at: null })) requireAccountMail(mail, "the new merchant account's invitation");
    account = await trx
      .insertInto("merchant_accounts")
      .values({
        ...wanted,
        provider_merchant_id: providerMerchantId,
        // Nobody knows this password: the account signs in once the merchant has chosen one.
        password_hash: await hashSecret(generatePassword()),
        password_set: false,
        created_at: now,
        updated_at: now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    result = "created";
  } else {
    const changed = (Object.keys(wanted) as Array<keyof typeof wanted>).filter((column) => existing[column] !== wanted[column]);
    if (changed.length === 0) {
      account = existing;
      result = "unchanged";
    } else {
      if (existing.status === "closed")
        throw new DomainError("MerchantAccountClosedError", "This merchant account is closed: a closed account accepts no change");
      // A new address (not the same one in another case): a link mailed to the old one must not set the
      // password of what now signs in as the new one. Without a password the account is invited anew there;
      // with one, the new address is told.
      const emailChanged = existing.email.toLowerCase() !== wanted.email.toLowerCase();
      const invitation = emailChanged && !existing.password_set ? { invitation_sent_at: null } : {};
      if (invitationDue({ ...existing, ...wanted, ...invitation })) requireAccountMail(mail, "the merchant account's invitation");
      if (emailChanged && existing.password_set) requireAccountMail(mail, "the notice of the merchant account's new email");
      if (emailChanged) await endPasswordLink(trx, { kind: "merchant", id: existing.id });
      account = await trx
        .updateTable("merchant_accounts")
        .set({ ...wanted, ...invitation, updated_at: now })
        .where("id", "=", existing.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      result = "updated";
      if (emailChanged && account.password_set) emailChangeNotice = { email: account.email, tradeName: account.fantasy_name };
    }
  }
  if (!invitationDue(account)) return { result, account, ...(emailChangeNotice ? { emailChangeNotice } : {}) };
  // Also when unchanged: an earlier invitation the mail server did not accept (its link ended) is sent
  // again; one still on its way (a call just before, its link open) is not sent twice.
  if (existing && (await hasWorkingPasswordLink(trx, { kind: "merchant", id: account.id }, now))) return { result, account };
  requireAccountMail(mail, "the merchant account's invitation");
  const token = randomToken("pr_");
  const expiresAt = new Date(now.getTime() + INVITATION_DAYS * 24 * 3600 * 1000);
  await openPasswordLink(trx, { kind: "merchant", id: account.id }, token, now, expiresAt);
  return { result, account, invitation: { merchantAccountId: account.id, email: account.email, tradeName: account.fantasy_name, token, expiresAt } };
}

/** An active account without a password, never invited (or whose invitation the mail server refused). */
function invitationDue(account: Pick<MerchantAccount, "status" | "password_set" | "invitation_sent_at">): boolean {
  return account.status === "active" && !account.password_set && account.invitation_sent_at === null;
}

/** The invitation (Spanish): where to choose the password, the user, and until when the link works. */
export function invitationEmail(invitation: MerchantInvitation, pageUrl: string): EmailMessage {
  const expires = invitation.expiresAt.toLocaleString("es-AR", { timeZone: "America/Argentina/Buenos_Aires", dateStyle: "long", timeStyle: "short" });
  const lines = [
    `Hola ${invitation.tradeName}:`,
    "",
    "Tu cuenta de comercio ya está en Cobro: con ella autorizás a las integraciones que cobran por transferencia para vos.",
    "",
    `Elegí tu contraseña en: ${pageUrl}`,
    `Usuario: ${invitation.email}`,
    "",
    `El enlace vence el ${expires} (hora de Argentina) y sirve una sola vez. Si vence, pedí otro con "¿Olvidaste tu contraseña?" en la pantalla de ingreso.`,
    "",
    "Si no esperabas este correo, podés ignorarlo.",
  ];
  return accountEmail(invitation.email, "Bienvenido a Cobro: elegí la contraseña de tu cuenta de comercio", lines);
}

/** The notice that the account's sign-in email changed (Spanish), sent to the new address: no link, the password stays. */
export function emailChangeNoticeEmail(notice: EmailChangeNotice): EmailMessage {
  const lines = [
    `Hola ${notice.tradeName}:`,
    "",
    "El email con el que ingresás a tu cuenta de comercio en Cobro cambió: desde ahora es esta dirección.",
    `Usuario: ${notice.email}`,
    "",
    "Tu contraseña no cambió. Los enlaces para elegir contraseña enviados a la dirección anterior ya no sirven.",
    "",
    "Si no esperabas este cambio, avisale a tu proveedor de pagos.",
  ];
  return accountEmail(notice.email, "Cobro: cambió el email de tu cuenta de comercio", lines);
}

/** Mails the notice of a new sign-in email; the change stands whatever the mail server says. */
export async function sendEmailChangeNotice(mail: Sender<EmailMessage>, notice: EmailChangeNotice): Promise<{ sent: true } | { sent: false; reason: string }> {
  const result = await mail.send(emailChangeNoticeEmail(notice));
  return result.outcome === "rejected" || result.outcome === "temporary_failure" ? { sent: false, reason: result.reason } : { sent: true };
}

/**
 * Mails the invitation and records it as sent when the mail server accepted it (or the Sandbox logged
 * it). A refusal leaves `invitation_sent_at` empty and ends the link: the next provisioning call for the
 * account invites again.
 */
export async function sendInvitation(
  db: Kysely<Database>,
  mail: Sender<EmailMessage>,
  clock: Clock,
  invitation: MerchantInvitation,
  authPublicUrl: string,
): Promise<{ sent: true; at: Date } | { sent: false; reason: string }> {
  const result = await mail.send(invitationEmail(invitation, passwordResetPageUrl(authPublicUrl, invitation.token, "merchant")));
  if (result.outcome === "rejected" || result.outcome === "temporary_failure") {
    // Never delivered: its link ends, so that the next provisioning call invites again.
    await endPasswordLink(db, { kind: "merchant", id: invitation.merchantAccountId });
    return { sent: false, reason: result.reason };
  }
  const at = clock.now();
  // Only while the account still has that address: an email changed meanwhile is invited at the new one.
  await db
    .updateTable("merchant_accounts")
    .set({ invitation_sent_at: at })
    .where("id", "=", invitation.merchantAccountId)
    .where("email", "=", invitation.email)
    .execute();
  return { sent: true, at };
}
