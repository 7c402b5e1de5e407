// Commission proposals: the integration offers a linked merchant account a new commission percentage. The
// merchant account is emailed a link (a random token, kept only as its SHA-256) to a page where it signs
// in (the linked account only) and accepts or rejects. A proposal lapses 7 days after it was made: a
// pending row past `expires_at` counts as lapsed wherever it is read, so no sweep is needed. At most one
// proposal per link is pending (a partial unique index): a new one supersedes it. Accepting sets the
// link's `commission_percentage` in the transaction that marks the proposal accepted.
import { sql, type Kysely, type Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Executor } from "../../db/transactions.ts";
import type { EmailMessage, Sender, SendResult } from "../outbound/sender.ts";
import { argentinaDisplayInstant } from "../argentina-time.ts";
import type { Clock } from "../clock.ts";
import { DomainError } from "../errors.ts";
import { requireCents } from "../money.ts";
import { accountEmail } from "../outbound/account-email.ts";
import { signInMerchantAccount } from "../sign-in/merchant-credentials.ts";
import type { CredentialThrottle } from "../sign-in/credential-throttle.ts";
import { formatPercentage } from "./offer.ts";
import { randomToken, sha256 } from "../secrets/hashing.ts";

export const COMMISSION_PROPOSAL_DAYS = 7;

/** A new proposal to mail: the token is in clear here only, on its way to the email. */
export interface NewCommissionProposal {
  invitationId: string;
  supersededInvitationId: string | undefined;
  percentage: number;
  currentPercentage: number;
  merchantEmail: string;
  integrationName: string;
  token: string;
  expiresAt: Date;
}

/** What the proposal's page shows. */
export interface CommissionProposalDetails {
  integrationName: string;
  merchantEmail: string;
  currentPercentage: number;
  proposedPercentage: number;
  expiresAt: Date;
}

const userNotFound = () =>
  new DomainError("IntegrationClientUserNotFoundError", "No linked merchant account with that integrationClientUserId in this integration");

const linkInvalid = () =>
  new DomainError(
    "MerchantInvitationLinkInvalidError",
    "This commission proposal link does not work: the proposal is unknown, already answered, withdrawn, replaced by a newer one, lapsed after 7 days, or its merchant account was unlinked",
  );

/** The active link of the integration, locked for the change (every change to a link's proposals locks it first). */
async function lockActiveLink(trx: Transaction<Database>, integrationClientId: string, linkId: string) {
  const link = await trx
    .selectFrom("merchant_links as l")
    .innerJoin("merchant_accounts as m", "m.id", "l.merchant_account_id")
    .innerJoin("integration_clients as c", "c.id", "l.integration_client_id")
    .select(["l.id", "l.commission_percentage", "m.email", "c.name"])
    .where("l.id", "=", linkId)
    .where("l.integration_client_id", "=", integrationClientId)
    .where("l.unlinked_at", "is", null)
    .forUpdate("l")
    .executeTakeFirst();
  if (!link) throw userNotFound();
  return link;
}

/** Proposes `percentage` (0 to 100, at most 2 decimals) to the linked merchant account, superseding a pending proposal. */
export async function proposeCommissionChange(
  db: Kysely<Database>,
  clock: Clock,
  input: { integrationClientId: string; linkId: string; percentage: number },
): Promise<NewCommissionProposal> {
  requireCents("percentage", input.percentage);
  const token = randomToken("cp_");
  const now = clock.now();
  const expiresAt = new Date(now.getTime() + COMMISSION_PROPOSAL_DAYS * 24 * 3600 * 1000);
  return db.transaction().execute(async (trx) => {
    const link = await lockActiveLink(trx, input.integrationClientId, input.linkId);
    // The open row makes way: superseded while it stood, expired when it had lapsed already.
    const ended = await trx
      .updateTable("commission_proposals")
      .set({ status: sql`case when expires_at > ${now} then 'superseded' else 'expired' end`, ended_at: now })
      .where("merchant_link_id", "=", link.id)
      .where("status", "=", "pending")
      .returning(["id", "status"])
      .executeTakeFirst();
    const created = await trx
      .insertInto("commission_proposals")
      .values({ merchant_link_id: link.id, percentage: String(input.percentage), token_hash: sha256(token), created_at: now, expires_at: expiresAt })
      .returning("id")
      .executeTakeFirstOrThrow();
    return {
      invitationId: created.id,
      supersededInvitationId: ended?.status === "superseded" ? ended.id : undefined,
      percentage: input.percentage,
      currentPercentage: Number(link.commission_percentage),
      merchantEmail: link.email,
      integrationName: link.name,
      token,
      expiresAt,
    };
  });
}

/** Withdraws a pending proposal of the linked merchant account; its link stops working. */
export async function withdrawCommissionProposal(
  db: Kysely<Database>,
  clock: Clock,
  input: { integrationClientId: string; linkId: string; invitationId: string },
): Promise<void> {
  const now = clock.now();
  await db.transaction().execute(async (trx) => {
    const link = await lockActiveLink(trx, input.integrationClientId, input.linkId);
    const proposal = await trx
      .selectFrom("commission_proposals")
      .select(["status", "expires_at"])
      .where("id", "=", input.invitationId)
      .where("merchant_link_id", "=", link.id)
      .executeTakeFirst();
    if (!proposal) throw new DomainError("CommissionProposalNotFoundError", "No commission proposal with that invitationId for this merchant account");
    if (proposal.status !== "pending" || proposal.expires_at <= now) {
      throw new DomainError(
        "CommissionProposalNotPendingError",
        "The commission proposal is no longer pending: it was accepted, rejected, superseded, withdrawn or has lapsed",
      );
    }
    await trx.updateTable("commission_proposals").set({ status: "withdrawn", ended_at: now }).where("id", "=", input.invitationId).execute();
  });
}

/** The page a proposal's email opens, on the Auth API. */
export function commissionProposalPageUrl(authPublicUrl: string, token: string): string {
  return `${authPublicUrl}/integration/commission-proposals/answer?token=${encodeURIComponent(token)}`;
}

/** The proposal email (Spanish): from what to what, the link, until when, and that nothing changes without an answer. */
export function commissionProposalEmail(proposal: NewCommissionProposal, pageUrl: string): EmailMessage {
  return accountEmail(proposal.merchantEmail, `Cobro: ${proposal.integrationName} te propone un cambio de comisión`, [
    "Hola:",
    "",
    `${proposal.integrationName} te propone cambiar su comisión sobre tus cobros de ${formatPercentage(proposal.currentPercentage)} a ${formatPercentage(proposal.percentage)}.`,
    "",
    `Aceptala o rechazala en: ${pageUrl}`,
    "",
    `La propuesta vence el ${argentinaDisplayInstant(proposal.expiresAt)} (hora de Argentina) y el enlace sirve una sola vez. Si no respondés, la comisión sigue como está.`,
  ]);
}

export async function sendCommissionProposal(mail: Sender<EmailMessage>, proposal: NewCommissionProposal, authPublicUrl: string): Promise<SendResult> {
  return mail.send(commissionProposalEmail(proposal, commissionProposalPageUrl(authPublicUrl, proposal.token)));
}

/** The open proposal of a token: pending, not lapsed, its link still active. */
function openProposalByToken(db: Executor, token: string, now: Date) {
  return db
    .selectFrom("commission_proposals as p")
    .innerJoin("merchant_links as l", "l.id", "p.merchant_link_id")
    .innerJoin("merchant_accounts as m", "m.id", "l.merchant_account_id")
    .innerJoin("integration_clients as c", "c.id", "l.integration_client_id")
    .select(["p.id", "p.percentage", "p.expires_at", "l.id as linkId", "l.commission_percentage", "l.merchant_account_id", "m.email", "c.name"])
    .where("p.token_hash", "=", sha256(token))
    .where("p.status", "=", "pending")
    .where("p.expires_at", ">", now)
    .where("l.unlinked_at", "is", null);
}

export async function usableCommissionProposal(db: Kysely<Database>, clock: Clock, token: string): Promise<CommissionProposalDetails> {
  const row = await openProposalByToken(db, token, clock.now()).executeTakeFirst();
  if (!row) throw linkInvalid();
  return {
    integrationName: row.name,
    merchantEmail: row.email,
    currentPercentage: Number(row.commission_percentage),
    proposedPercentage: Number(row.percentage),
    expiresAt: row.expires_at,
  };
}

/**
 * The merchant account signs in and answers. Only the linked account may. The link row is locked first
 * (as a new proposal does), then the proposal is checked open again and answered; accepting writes the
 * percentage to the link in the same transaction.
 */
export async function answerCommissionProposal(
  db: Kysely<Database>,
  clock: Clock,
  throttle: CredentialThrottle,
  input: { token: string; email: string; password: string; decision: "accept" | "reject"; clientAddress: string },
): Promise<CommissionProposalDetails & { decision: "accept" | "reject" }> {
  const details = await openProposalByToken(db, input.token, clock.now()).executeTakeFirst();
  if (!details) throw linkInvalid();
  const merchant = await signInMerchantAccount(db, throttle, input);
  if (merchant.id !== details.merchant_account_id) {
    throw new DomainError("MerchantAccountNotInvitedError", "Only the merchant account the proposal was made to can answer it");
  }
  const now = clock.now();
  await db.transaction().execute(async (trx) => {
    await trx.selectFrom("merchant_links").select("id").where("id", "=", details.linkId).forUpdate().execute();
    const open = await openProposalByToken(trx, input.token, now).executeTakeFirst();
    if (!open) throw linkInvalid();
    await trx
      .updateTable("commission_proposals")
      .set({ status: input.decision === "accept" ? "accepted" : "rejected", ended_at: now })
      .where("id", "=", open.id)
      .execute();
    if (input.decision === "accept")
      await trx.updateTable("merchant_links").set({ commission_percentage: open.percentage }).where("id", "=", open.linkId).execute();
  });
  return {
    decision: input.decision,
    integrationName: details.name,
    merchantEmail: details.email,
    currentPercentage: Number(details.commission_percentage),
    proposedPercentage: Number(details.percentage),
    expiresAt: details.expires_at,
  };
}
