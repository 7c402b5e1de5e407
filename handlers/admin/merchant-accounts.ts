// The merchant accounts that the payment provider's systems (with a platform API key) and platform admins
// keep: provisioning by the provider's id, and the invitation (or the notice of a new email) mailed once the
// account's change committed.
import type { MerchantAccount } from "../../db/tables/merchants.table.ts";
import {
  provisionMerchantAccount as provision,
  sendEmailChangeNotice,
  sendInvitation,
  type ProvisionResult,
} from "../../domain/merchants/merchant-provisioning.ts";
import { listMerchantAccounts as listAccounts } from "../../domain/merchants/merchant-accounts.ts";
import type { components } from "../../generated/types/admin.ts";
import { requirePlatformAdmin } from "./caller.ts";
import { pageOf } from "./page-query.ts";
import type { Handler } from "./handler.ts";

function merchantAccountView(account: MerchantAccount): components["schemas"]["MerchantAccount"] {
  return {
    merchantAccountId: account.id,
    ...(account.provider_merchant_id !== null ? { providerMerchantId: account.provider_merchant_id } : {}),
    email: account.email,
    legalName: account.account_holder_name,
    cuit: account.account_holder_tax_id,
    tradeName: account.fantasy_name,
    status: account.status,
    passwordSet: account.password_set,
    ...(account.invitation_sent_at ? { invitationSentAt: account.invitation_sent_at.toISOString() } : {}),
    createdAt: account.created_at.toISOString(),
    updatedAt: account.updated_at.toISOString(),
  };
}

/** 201 for a new account, 200 for one found (changed or not). */
const statusOf = (result: ProvisionResult) => (result === "created" ? 201 : 200);

export const provisionMerchantAccount: Handler<"provisionMerchantAccount"> = async ({ caller, params, body, services, audit, log }) => {
  if (caller.kind !== "platform-key") requirePlatformAdmin(caller);
  // The audit entry commits with the change, before the answer: it is told the status the answer will have.
  const outcome = await provision(services.db, services.accountMail, params.providerMerchantId, body, services.clock.now(), (result) =>
    audit?.answersWith(statusOf(result)),
  );
  let account = outcome.account;
  if (outcome.invitation) {
    // The account stands whatever the mail server says; a refused invitation is sent again by the next call.
    const mailed = await sendInvitation(services.db, services.accountMail!, services.clock, outcome.invitation, services.config.publicUrls.auth);
    if (mailed.sent) account = { ...account, invitation_sent_at: mailed.at };
    else log.warn({ merchantAccountId: account.id, reason: mailed.reason }, "the merchant account's invitation was not accepted by the mail server");
  }
  if (outcome.emailChangeNotice) {
    const mailed = await sendEmailChangeNotice(services.accountMail!, outcome.emailChangeNotice);
    if (!mailed.sent)
      log.warn({ merchantAccountId: account.id, reason: mailed.reason }, "the notice of the merchant account's new email was not accepted by the mail server");
  }
  const answer = { result: outcome.result, merchantAccount: merchantAccountView(account) };
  return statusOf(outcome.result) === 201 ? { status: 201, body: answer } : { status: 200, body: answer };
};

export const listMerchantAccounts: Handler<"listMerchantAccounts"> = async ({ caller, query, services }) => {
  requirePlatformAdmin(caller);
  const page = pageOf(query);
  const { items, total } = await listAccounts(services.db, { search: query.search, status: query.status }, page);
  return { status: 200, body: { items: items.map(merchantAccountView), total, ...page } };
};
