// The commission proposal's page on the Auth API: the proposal email's link opens it, and the merchant
// account signs in (the linked account only) and accepts or rejects.
import { answerCommissionProposal as answer, type CommissionProposalDetails, usableCommissionProposal } from "../../domain/commissions/commission-proposals.ts";
import { renderCommissionProposalAnswered, renderCommissionProposalForm, renderCommissionProposalInvalid } from "../pages/merchant-consent-pages.ts";
import type { Handler } from "./handler.ts";
import { type MerchantConsentPages, showConsentPage, submitConsent } from "./merchant-consent-flow.ts";

const COMMISSION_PROPOSAL_PAGES: MerchantConsentPages<CommissionProposalDetails, Awaited<ReturnType<typeof answer>>> = {
  usable: (services, token) => usableCommissionProposal(services.db, services.clock, token),
  form: renderCommissionProposalForm,
  invalid: renderCommissionProposalInvalid,
  done: renderCommissionProposalAnswered,
  notInvitedText: (proposal) => `Esta propuesta es para la cuenta de comercio de ${proposal.merchantEmail}: ingresá con esa cuenta.`,
};

export const showCommissionProposalPage: Handler<"showCommissionProposalPage", 410> = ({ query, services }) =>
  showConsentPage(COMMISSION_PROPOSAL_PAGES, services, query.token);

export const answerCommissionProposal: Handler<"answerCommissionProposal", 401 | 403 | 410 | 429> = ({ body, services, clientAddress }) =>
  submitConsent(COMMISSION_PROPOSAL_PAGES, services, body, () => answer(services.db, services.clock, services.credentialThrottle, { ...body, clientAddress }));
