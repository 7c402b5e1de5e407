// The payout link's page on the Auth API: the invitation's link opens it, and the invited person signs in
// with the merchant account of the invited email and accepts.
import { acceptPayoutLink as accept, usablePayoutInvitation } from "../../domain/commissions/payout-link.ts";
import { emailedLinkPageHeaders, pageNonce } from "../pages/emailed-link-page.ts";
import { consentRefusalStatus, renderPayoutLinkAccepted, renderPayoutLinkForm, renderPayoutLinkInvalid } from "../pages/merchant-consent-pages.ts";
import { MERCHANT_SIGN_IN_REFUSAL_TEXT } from "../pages/sign-in-page.ts";
import { retryAfterHeader, tooManyAttemptsText, tooManyAttemptsWait } from "../pages/too-many-attempts.ts";
import type { Handler } from "./handler.ts";


export const showPayoutLinkAcceptPage: Handler<"showPayoutLinkAcceptPage", 410> = async ({ query, services }) => {
  const nonce = pageNonce();
  try {
    const invitation = await usablePayoutInvitation(services.db, services.clock, query.token);
    return { status: 200, body: renderPayoutLinkForm({ token: query.token, nonce, ...invitation }), headers: emailedLinkPageHeaders(nonce) };
  } catch (error) {
    if (consentRefusalStatus(error)?.status !== 410) throw error;
    return { status: 410, body: renderPayoutLinkInvalid(nonce), headers: emailedLinkPageHeaders(nonce) };
  }
};

export const acceptPayoutLink: Handler<"acceptPayoutLink", 401 | 403 | 410 | 429> = async ({ body, services, clientAddress }) => {
  const nonce = pageNonce();
  try {
    const { integrationName } = await accept(services.db, services.clock, { ...body, clientAddress });
    return { status: 200, body: renderPayoutLinkAccepted(nonce, integrationName), headers: emailedLinkPageHeaders(nonce) };
  } catch (error) {
    const wait = tooManyAttemptsWait(error);
    if (wait !== undefined) {
      const invitation = await usablePayoutInvitation(services.db, services.clock, body.token);
      const page = renderPayoutLinkForm({ token: body.token, nonce, ...invitation, email: body.email, refusal: { code: "TooManyAttemptsError", text: tooManyAttemptsText(wait) } });
      return { status: 429, body: page, headers: { ...emailedLinkPageHeaders(nonce), ...retryAfterHeader(wait) } };
    }
    const refusal = consentRefusalStatus(error);
    if (!refusal) throw error;
    if (refusal.status === 410) return { status: 410, body: renderPayoutLinkInvalid(nonce), headers: emailedLinkPageHeaders(nonce) };
    // The form again with the refusal; the link still works.
    const invitation = await usablePayoutInvitation(services.db, services.clock, body.token);
    const text = refusal.status === 403 ? `Esta invitación es para la cuenta de comercio de ${invitation.invitedEmail}: ingresá con esa cuenta.` : MERCHANT_SIGN_IN_REFUSAL_TEXT[refusal.code]!;
    const page = renderPayoutLinkForm({ token: body.token, nonce, ...invitation, email: body.email, refusal: { code: refusal.code, text } });
    return { status: refusal.status, body: page, headers: emailedLinkPageHeaders(nonce) };
  }
};
