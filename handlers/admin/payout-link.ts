// The integration's payout link (/my-integration/payout-link): its state, and the invitation mailed to the
// account that is to receive the integration's commissions.
import type { components } from "../../generated/types/admin.ts";
import { requireAccountMail } from "../../domain/integration-clients/admin-welcome.ts";
import {
  invitePayoutRecipient,
  readPayoutLink,
  renewPayoutInvitation,
  sendPayoutInvitation,
  type PayoutInvitation,
  type PayoutLinkState,
} from "../../domain/commissions/payout-link.ts";
import type { EmailMessage, Sender } from "../../domain/outbound/sender.ts";
import type { Services } from "../handler-types.ts";
import type { Logger } from "../../runtime/logger.ts";
import { requireIntegrationAdmin } from "./caller.ts";
import type { Handler } from "./handler.ts";

const UNSENT_INVITATION = "the payout link invitation";

function payoutLinkView(state: PayoutLinkState): components["schemas"]["PayoutLinkView"] {
  if (state.status === "none") return { status: "none" };
  if (state.status === "pending") return { status: "pending", invitedEmail: state.invitedEmail };
  return { status: "accepted", invitedEmail: state.invitedEmail, acceptedUserId: state.recipient.userId, recipient: state.recipient };
}

/** Mails the invitation once its change is committed; a refusal by the mail server is logged (a resend mails it again). */
async function mailInvitation(services: Services, mail: Sender<EmailMessage>, invitation: PayoutInvitation, log: Logger): Promise<void> {
  const result = await sendPayoutInvitation(mail, invitation, services.config.publicUrls.auth);
  if (result.outcome === "rejected" || result.outcome === "temporary_failure") {
    log.warn({ invitationId: invitation.invitationId, reason: result.reason }, "the payout link invitation was not accepted by the mail server");
  }
}

export const getPayoutLink: Handler<"getPayoutLink"> = async ({ caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  return { status: 200, body: payoutLinkView(await readPayoutLink(services.db, admin.integrationClientId)) };
};

export const invitePayoutLink: Handler<"invitePayoutLink"> = async ({ caller, body, services, log }) => {
  const admin = requireIntegrationAdmin(caller);
  const mail = requireAccountMail(services.accountMail, UNSENT_INVITATION);
  const invitation = await invitePayoutRecipient(services.db, services.clock, admin.integrationClientId, body.email);
  await mailInvitation(services, mail, invitation, log);
  return { status: 201, body: { invitationId: invitation.invitationId } };
};

export const resendPayoutLinkInvite: Handler<"resendPayoutLinkInvite"> = async ({ caller, services, log }) => {
  const admin = requireIntegrationAdmin(caller);
  const mail = requireAccountMail(services.accountMail, UNSENT_INVITATION);
  const invitation = await renewPayoutInvitation(services.db, services.clock, admin.integrationClientId);
  await mailInvitation(services, mail, invitation, log);
  return { status: 200, body: { invitationId: invitation.invitationId } };
};
