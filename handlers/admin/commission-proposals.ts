// Commission proposals to a linked merchant account (/my-integration/users/{id}/commission-proposals):
// proposing mails the merchant account a link to answer; withdrawing ends a pending one.
import { requireAccountMail } from "../../domain/integration-clients/admin-welcome.ts";
import { proposeCommissionChange as propose, sendCommissionProposal, withdrawCommissionProposal } from "../../domain/commissions/commission-proposals.ts";
import { requireIntegrationAdmin } from "./caller.ts";
import type { Handler } from "./handler.ts";

export const proposeCommissionChange: Handler<"proposeCommissionChange"> = async ({ caller, params, body, services, log }) => {
  const admin = requireIntegrationAdmin(caller);
  const mail = requireAccountMail(services.accountMail, "the commission proposal email");
  const proposal = await propose(services.db, services.clock, {
    integrationClientId: admin.integrationClientId,
    linkId: params.integrationClientUserId,
    percentage: body.percentage,
  });
  // Mailed once the proposal is committed; a refusal by the mail server is logged (a new proposal mails again).
  const result = await sendCommissionProposal(mail, proposal, services.config.publicUrls.auth);
  if (result.outcome === "rejected" || result.outcome === "temporary_failure") {
    log.warn({ invitationId: proposal.invitationId, reason: result.reason }, "the commission proposal email was not accepted by the mail server");
  }
  return {
    status: 201,
    body: {
      invitationId: proposal.invitationId,
      status: "pending",
      percentage: proposal.percentage,
      ...(proposal.supersededInvitationId ? { supersededInvitationId: proposal.supersededInvitationId } : {}),
    },
  };
};

export const withdrawCommissionChange: Handler<"withdrawCommissionChange"> = async ({ caller, params, services }) => {
  const admin = requireIntegrationAdmin(caller);
  // The contract's `format: uuid` refused other path ids with 400 before this runs.
  await withdrawCommissionProposal(services.db, services.clock, {
    integrationClientId: admin.integrationClientId,
    linkId: params.integrationClientUserId,
    invitationId: params.invitationId,
  });
  return { status: 200, body: { invitationId: params.invitationId } };
};
