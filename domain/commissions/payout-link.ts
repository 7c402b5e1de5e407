// The payout link: the Cobro merchant account that receives an integration's commissions. The integration
// admin invites an email; the email carries a link (a random token, kept only as its SHA-256) to a page
// where the person signs in with the merchant account of that very email and accepts. The link works for
// 7 days and once; a new invitation or a resend rewrites the token, so only the newest link works. Once
// accepted the recipient is final for the Admin API (inviting again is refused).
import { randomUUID } from "node:crypto";
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { EmailMessage, Sender, SendResult } from "../outbound/sender.ts";
import { argentinaDisplayInstant } from "../argentina-time.ts";
import type { Clock } from "../clock.ts";
import { DomainError } from "../errors.ts";
import { accountEmail } from "../outbound/account-email.ts";
import { signInMerchantAccount } from "../sign-in/merchant-credentials.ts";
import type { CredentialThrottle } from "../sign-in/credential-throttle.ts";
import { randomToken, sha256 } from "../secrets/hashing.ts";

export const PAYOUT_INVITATION_DAYS = 7;

export type PayoutLinkState =
  | { status: "none" }
  | { status: "pending"; invitedEmail: string }
  | {
      status: "accepted";
      invitedEmail: string;
      recipient: { userId: string; email: string; fantasyName: string; legalName: string; taxId: string };
    };

/** An invitation to mail: the token is in clear here only, on its way to the email. */
export interface PayoutInvitation {
  invitationId: string;
  email: string;
  integrationName: string;
  token: string;
  expiresAt: Date;
}

const linkInvalid = () =>
  new DomainError(
    "MerchantInvitationLinkInvalidError",
    "This payout link invitation does not work: it is unknown, already accepted, older than 7 days, or replaced by a newer invitation",
  );

function linkExpiry(now: Date): Date {
  return new Date(now.getTime() + PAYOUT_INVITATION_DAYS * 24 * 3600 * 1000);
}

export async function readPayoutLink(db: Kysely<Database>, integrationClientId: string): Promise<PayoutLinkState> {
  const row = await db
    .selectFrom("payout_links as p")
    .leftJoin("merchant_accounts as m", "m.id", "p.recipient_merchant_account_id")
    .select(["p.invited_email", "p.accepted_at", "m.id as merchantId", "m.email", "m.fantasy_name", "m.account_holder_name", "m.account_holder_tax_id"])
    .where("p.integration_client_id", "=", integrationClientId)
    .executeTakeFirst();
  if (!row) return { status: "none" };
  if (row.accepted_at === null || row.merchantId === null) return { status: "pending", invitedEmail: row.invited_email };
  return {
    status: "accepted",
    invitedEmail: row.invited_email,
    recipient: {
      userId: row.merchantId,
      email: row.email!,
      fantasyName: row.fantasy_name!,
      legalName: row.account_holder_name!,
      taxId: row.account_holder_tax_id!,
    },
  };
}

async function integrationName(db: Kysely<Database>, integrationClientId: string): Promise<string> {
  return (await db.selectFrom("integration_clients").select("name").where("id", "=", integrationClientId).executeTakeFirstOrThrow()).name;
}

/**
 * Invites `email` (a new invitation id and link; a pending one is replaced). One statement decides, so
 * an acceptance racing with it either lands first (then this is refused) or finds its link replaced.
 */
export async function invitePayoutRecipient(db: Kysely<Database>, clock: Clock, integrationClientId: string, email: string): Promise<PayoutInvitation> {
  const token = randomToken("pl_");
  const now = clock.now();
  const invitation = { invitation_id: randomUUID(), invited_email: email.trim(), token_hash: sha256(token), invited_at: now, link_expires_at: linkExpiry(now) };
  const written = await db
    .insertInto("payout_links")
    .values({ integration_client_id: integrationClientId, ...invitation })
    .onConflict((conflict) => conflict.column("integration_client_id").doUpdateSet(invitation).where("payout_links.accepted_at", "is", null))
    .returning(["invitation_id", "invited_email", "link_expires_at"])
    .executeTakeFirst();
  if (!written) throw new DomainError("PayoutLinkAlreadyAcceptedError", "A payout recipient has already accepted the payout link; it cannot be invited again");
  return {
    invitationId: written.invitation_id,
    email: written.invited_email,
    integrationName: await integrationName(db, integrationClientId),
    token,
    expiresAt: written.link_expires_at,
  };
}

/** A new link for the pending invitation (same id and email); the earlier link stops working. */
export async function renewPayoutInvitation(db: Kysely<Database>, clock: Clock, integrationClientId: string): Promise<PayoutInvitation> {
  const token = randomToken("pl_");
  const now = clock.now();
  const renewed = await db
    .updateTable("payout_links")
    .set({ token_hash: sha256(token), link_expires_at: linkExpiry(now) })
    .where("integration_client_id", "=", integrationClientId)
    .where("accepted_at", "is", null)
    .returning(["invitation_id", "invited_email", "link_expires_at"])
    .executeTakeFirst();
  if (!renewed)
    throw new DomainError(
      "PayoutLinkNotPendingError",
      "There is no pending payout link invitation to resend (nobody was invited, or the invitation was accepted)",
    );
  return {
    invitationId: renewed.invitation_id,
    email: renewed.invited_email,
    integrationName: await integrationName(db, integrationClientId),
    token,
    expiresAt: renewed.link_expires_at,
  };
}

/** The page an invitation opens, on the Auth API. */
export function payoutLinkPageUrl(authPublicUrl: string, token: string): string {
  return `${authPublicUrl}/integration/payout-link/accept?token=${encodeURIComponent(token)}`;
}

/** The invitation email (Spanish): who invites, what accepting means, the link and how long it lasts. */
export function payoutInvitationEmail(invitation: PayoutInvitation, pageUrl: string): EmailMessage {
  const expires = argentinaDisplayInstant(invitation.expiresAt);
  return accountEmail(invitation.email, `Cobro: ${invitation.integrationName} te invita a recibir sus comisiones`, [
    "Hola:",
    "",
    `${invitation.integrationName} te invita a recibir en tu cuenta de comercio de Cobro las comisiones que cobra sobre los pagos de sus comercios.`,
    "",
    `Aceptá la invitación en: ${pageUrl}`,
    "",
    `Vas a ingresar con tu cuenta de comercio de Cobro de este email (${invitation.email}). El enlace vence el ${expires} (hora de Argentina) y sirve una sola vez.`,
    "",
    "Si no esperabas este correo, podés ignorarlo.",
  ]);
}

export async function sendPayoutInvitation(mail: Sender<EmailMessage>, invitation: PayoutInvitation, authPublicUrl: string): Promise<SendResult> {
  return mail.send(payoutInvitationEmail(invitation, payoutLinkPageUrl(authPublicUrl, invitation.token)));
}

/** What the page shows for a link that still works; refuses one that does not. */
export async function usablePayoutInvitation(db: Kysely<Database>, clock: Clock, token: string): Promise<{ integrationName: string; invitedEmail: string }> {
  const row = await db
    .selectFrom("payout_links as p")
    .innerJoin("integration_clients as c", "c.id", "p.integration_client_id")
    .select(["c.name", "p.invited_email"])
    .where("p.token_hash", "=", sha256(token))
    .where("p.accepted_at", "is", null)
    .where("p.link_expires_at", ">", clock.now())
    .executeTakeFirst();
  if (!row) throw linkInvalid();
  return { integrationName: row.name, invitedEmail: row.invited_email };
}

/**
 * The invited person signs in and accepts. Only the merchant account of the invited email may accept.
 * Using the link up is one conditional update (on this very token and email), so a replaced link or a
 * second submission cannot also succeed.
 */
export async function acceptPayoutLink(
  db: Kysely<Database>,
  clock: Clock,
  throttle: CredentialThrottle,
  input: { token: string; email: string; password: string; clientAddress: string },
): Promise<{ integrationName: string }> {
  const invitation = await usablePayoutInvitation(db, clock, input.token);
  const merchant = await signInMerchantAccount(db, throttle, input);
  if (merchant.email.toLowerCase() !== invitation.invitedEmail.toLowerCase()) {
    throw new DomainError("MerchantAccountNotInvitedError", "Only the merchant account of the invited email can accept this payout link");
  }
  const now = clock.now();
  const accepted = await db
    .updateTable("payout_links")
    .set({ accepted_at: now, recipient_merchant_account_id: merchant.id, token_hash: null })
    .where("token_hash", "=", sha256(input.token))
    .where("accepted_at", "is", null)
    .where("link_expires_at", ">", now)
    .where(sql`lower(invited_email)`, "=", merchant.email.toLowerCase())
    .executeTakeFirst();
  if (accepted.numUpdatedRows === 0n) throw linkInvalid();
  return { integrationName: invitation.integrationName };
}
