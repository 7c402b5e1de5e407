// The commission proposal's page on the Auth API: the proposal email's link opens it, and the merchant
// account signs in (the linked account only) and accepts or rejects.
import { answerCommissionProposal as answer, usableCommissionProposal } from "../../domain/commissions/commission-proposals.ts";
import { emailedLinkPageHeaders, pageNonce } from "../pages/emailed-link-page.ts";
import { consentRefusalStatus, renderCommissionProposalAnswered, renderCommissionProposalForm, renderCommissionProposalInvalid } from "../pages/merchant-consent-pages.ts";
import { MERCHANT_SIGN_IN_REFUSAL_TEXT } from "../pages/sign-in-page.ts";
import { retryAfterHeader, tooManyAttemptsText, tooManyAttemptsWait } from "../pages/too-many-attempts.ts";
import type { Handler } from "./handler.ts";


export const showCommissionProposalPage: Handler<"showCommissionProposalPage", 410> = async ({ query, services }) => {
  const nonce = pageNonce();
  try {
    const proposal = await usableCommissionProposal(services.db, services.clock, query.token);
    return { status: 200, body: renderCommissionProposalForm({ token: query.token, nonce, ...proposal }), headers: emailedLinkPageHeaders(nonce) };
  } catch (error) {
    if (consentRefusalStatus(error)?.status !== 410) throw error;
    return { status: 410, body: renderCommissionProposalInvalid(nonce), headers: emailedLinkPageHeaders(nonce) };
  }
};

export const answerCommissionProposal: Handler<"answerCommissionProposal", 401 | 403 | 410 | 429> = async ({ body, services, clientAddress }) => {
  const nonce = pageNonce();
  try {
    const answered = await answer(services.db, services.clock, { ...body, clientAddress });
    return { status: 200, body: renderCommissionProposalAnswered(nonce, answered), headers: emailedLinkPageHeaders(nonce) };
  } catch (error) {
    const wait = tooManyAttemptsWait(error);
    if (wait !== undefined) {
      const proposal = await usableCommissionProposal(services.db, services.clock, body.token);
      const page = renderCommissionProposalForm({ token: body.token, nonce, ...proposal, email: body.email, refusal: { code: "TooManyAttemptsError", text: tooManyAttemptsText(wait) } });
      return { status: 429, body: page, headers: { ...emailedLinkPageHeaders(nonce), ...retryAfterHeader(wait) } };
    }
    const refusal = consentRefusalStatus(error);
    if (!refusal) throw error;
    if (refusal.status === 410) return { status: 410, body: renderCommissionProposalInvalid(nonce), headers: emailedLinkPageHeaders(nonce) };
    // The form again with the refusal; the proposal still stands.
    const proposal = await usableCommissionProposal(services.db, services.clock, body.token);
    const text = refusal.status === 403 ? `Esta propuesta es para la cuenta de comercio de ${proposal.merchantEmail}: ingresá con esa cuenta.` : MERCHANT_SIGN_IN_REFUSAL_TEXT[refusal.code]!;
    const page = renderCommissionProposalForm({ token: body.token, nonce, ...proposal, email: body.email, refusal: { code: refusal.code, text } });
    return { status: refusal.status, body: page, headers: emailedLinkPageHeaders(nonce) };
  }
};
