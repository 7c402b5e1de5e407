// The Auth API's handler map: one entry per operation of generated/openapi/auth.yaml.
import type { operations } from "../../generated/types/auth.ts";
import type { AuthCaller } from "../../domain/sign-in/callers.ts";
import type { HandlerMap } from "../handler-types.ts";
import { getHealth, getReadiness } from "../health.ts";
import { adminChangePassword, adminLogin, adminLogout, adminRefresh } from "./admin-session.ts";
import {
  showMerchantForgotPasswordPage,
  showMerchantPasswordResetPage,
  submitMerchantForgotPasswordPage,
  submitMerchantPasswordResetPage,
} from "./merchant-password.ts";
import { completeAdminPasswordReset, requestAdminPasswordReset, showAdminPasswordResetPage, submitAdminPasswordResetPage } from "./admin-password-reset.ts";
import { getJwks, getOpenIdConfiguration } from "./discovery.ts";
import { getIntegrationLogo } from "./logos.ts";
import { acceptPayoutLink, showPayoutLinkAcceptPage } from "./payout-link.ts";
import { answerCommissionProposal, showCommissionProposalPage } from "./commission-proposals.ts";
import { authorize, completeLogin, exchangeToken, getClientInfo, logout, refreshToken, revokeToken } from "./oauth.ts";

export const authHandlers: HandlerMap<operations, AuthCaller> = {
  getHealth,
  getReadiness,
  getJwks,
  getOpenIdConfiguration,
  adminChangePassword,
  adminLogin,
  adminRefresh,
  adminLogout,
  requestAdminPasswordReset,
  completeAdminPasswordReset,
  showAdminPasswordResetPage,
  submitAdminPasswordResetPage,
  showMerchantForgotPasswordPage,
  submitMerchantForgotPasswordPage,
  showMerchantPasswordResetPage,
  submitMerchantPasswordResetPage,
  authorize,
  getClientInfo,
  completeLogin,
  logout,
  refreshToken,
  revokeToken,
  exchangeToken,
  getIntegrationLogo,
  showPayoutLinkAcceptPage,
  acceptPayoutLink,
  showCommissionProposalPage,
  answerCommissionProposal,
};
