// The payout link's page on the Auth API: the invitation's link opens it, and the invited person signs in
// with the merchant account of the invited email and accepts.
import { acceptPayoutLink as accept, usablePayoutInvitation } from "../../domain/commissions/payout-link.ts";
import { renderPayoutLinkAccepted, renderPayoutLinkForm, renderPayoutLinkInvalid } from "../pages/merchant-consent-pages.ts";
import type { Handler } from "./handler.ts";
import { type MerchantConsentPages, showConsentPage, submitConsent } from "./merchant-consent-flow.ts";

const PAYOUT_LINK_PAGES: MerchantConsentPages<{ integrationName: string; invitedEmail: string }, { integrationName: string }> = {
  usable: (services, token) => usablePayoutInvitation(services.db, services.clock, token),
  form: renderPayoutLinkForm,
  invalid: renderPayoutLinkInvalid,
  done: (nonce, accepted) => renderPayoutLinkAccepted(nonce, accepted.integrationName),
  notInvitedText: (invitation) => `Esta invitación es para la cuenta de comercio de ${invitation.invitedEmail}: ingresá con esa cuenta.`,
};

export const showPayoutLinkAcceptPage: Handler<"showPayoutLinkAcceptPage", 410> = ({ query, services }) =>
  showConsentPage(PAYOUT_LINK_PAGES, services, query.token);

export const acceptPayoutLink: Handler<"acceptPayoutLink", 401 | 403 | 410 | 429> = ({ body, services, clientAddress }) =>
  submitConsent(PAYOUT_LINK_PAGES, services, body, () => accept(services.db, services.clock, services.credentialThrottle, { ...body, clientAddress }));
