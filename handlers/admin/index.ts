// The Admin API's handler map: one entry per operation of generated/openapi/admin.yaml.
import type { operations } from "../../generated/types/admin.ts";
import type { AdminApiCaller } from "../../domain/sign-in/callers.ts";
import type { HandlerMap } from "../handler-types.ts";
import { getHealth, getReadiness } from "../health.ts";
import { createTestTokens, listIntegrationUsers, unlinkMerchant } from "./merchants.ts";
import { advanceSandboxClock, createTestCharge, getSandboxClock, resetSandboxClock, simulatePayment } from "./sandbox.ts";
import {
  getWebhookSigningSecret,
  getWebhookSubscriptions,
  listWebhookEvents,
  replaceWebhookSubscriptions,
  rotateWebhookSigningSecret,
  sendTestWebhook,
} from "./webhooks.ts";
import { createTenant, deleteTenant, deleteTenantValidationToken, listTenants, setTenantValidationToken, updateTenant } from "./tenants.ts";
import { createClientUrl, deleteClientUrl, listClientUrls, testClientUrl, updateClientUrl } from "./client-urls.ts";
import { listEvents, resendEvent, streamEvents } from "./events.ts";
import { ingestBankTransfer, ingestBankTransferPage } from "./bank-feed.ts";
import { getOffer, replaceOffer } from "./offer.ts";
import { createIntegrationClient, getIntegrationClient, listIntegrationClients, updateIntegrationClient } from "./integration-clients.ts";
import { createClientAdmin, listClientAdmins, listMyIntegrationAdmins, resendClientAdminWelcome } from "./client-admins.ts";
import { getMyIntegration, rotateClientSecret, updateMyIntegration, uploadLogo } from "./my-integration.ts";
import { getIntegrationPaymentRequest, listIntegrationPaymentRequests } from "./integration-payment-requests.ts";
import { listNotifications } from "./notifications.ts";
import {
  assignUnmatchedPayment,
  getPlatformUnmatchedPayment,
  getUnmatchedPayment,
  listPlatformUnmatchedPayments,
  listUnmatchedPayments,
  returnPlatformUnmatchedPayment,
  returnUnmatchedPayment,
} from "./unmatched-payments.ts";
import { getDailyStatement, getPlatformDailyStatement } from "./statements.ts";
import { exportEarningsCsv, getEarnings, getPlatformEarnings } from "./earnings.ts";
import { createApiKeys, getApiKeys, replaceAllowedOrigins, rotateApiSecretKey } from "./api-keys.ts";
import { listMerchantAccounts, provisionMerchantAccount } from "./merchant-accounts.ts";
import {
  approveGoLiveRequest,
  getGoLiveRequest,
  listGoLiveRequests,
  listMyGoLiveRequests,
  provisionProductionClient,
  rejectGoLiveRequest,
  requestGoLive,
} from "./go-live.ts";
import {
  approveMessageCapRequest,
  createMessageCapRequest,
  listMessageCapRequests,
  listMyMessageCapRequests,
  rejectMessageCapRequest,
} from "./message-cap-requests.ts";
import { listAuditLog, listMyAuditLog } from "./audit-log.ts";
import { reinstateIntegrationClient, suspendIntegrationClient } from "./client-suspension.ts";
import { getPayoutLink, invitePayoutLink, resendPayoutLinkInvite } from "./payout-link.ts";
import { proposeCommissionChange, withdrawCommissionChange } from "./commission-proposals.ts";

export const adminHandlers: HandlerMap<operations, AdminApiCaller> = {
  listAuditLog,
  listMyAuditLog,
  ingestBankTransfer,
  ingestBankTransferPage,
  getHealth,
  getReadiness,
  createIntegrationClient,
  listIntegrationClients,
  getIntegrationClient,
  updateIntegrationClient,
  suspendIntegrationClient,
  reinstateIntegrationClient,
  createMessageCapRequest,
  listMyMessageCapRequests,
  listMessageCapRequests,
  approveMessageCapRequest,
  rejectMessageCapRequest,
  createClientAdmin,
  resendClientAdminWelcome,
  listClientAdmins,
  updateMyIntegration,
  listMyIntegrationAdmins,
  listNotifications,
  getEarnings,
  exportEarningsCsv,
  getPlatformEarnings,
  getApiKeys,
  createApiKeys,
  replaceAllowedOrigins,
  rotateApiSecretKey,
  listEvents,
  resendEvent,
  streamEvents,
  requestGoLive,
  getGoLiveRequest,
  listMyGoLiveRequests,
  listGoLiveRequests,
  approveGoLiveRequest,
  rejectGoLiveRequest,
  provisionProductionClient,
  provisionMerchantAccount,
  listMerchantAccounts,
  uploadLogo,
  rotateClientSecret,
  getMyIntegration,
  getOffer,
  replaceOffer,
  listIntegrationPaymentRequests,
  listUnmatchedPayments,
  getUnmatchedPayment,
  listPlatformUnmatchedPayments,
  getPlatformUnmatchedPayment,
  assignUnmatchedPayment,
  returnUnmatchedPayment,
  returnPlatformUnmatchedPayment,
  getDailyStatement,
  getPlatformDailyStatement,
  getIntegrationPaymentRequest,
  getPayoutLink,
  invitePayoutLink,
  resendPayoutLinkInvite,
  getSandboxClock,
  advanceSandboxClock,
  resetSandboxClock,
  simulatePayment,
  createTestCharge,
  listTenants,
  createTenant,
  updateTenant,
  deleteTenant,
  setTenantValidationToken,
  deleteTenantValidationToken,
  createTestTokens,
  sendTestWebhook,
  listClientUrls,
  createClientUrl,
  updateClientUrl,
  deleteClientUrl,
  testClientUrl,
  listIntegrationUsers,
  unlinkMerchant,
  proposeCommissionChange,
  withdrawCommissionChange,
  listWebhookEvents,
  getWebhookSigningSecret,
  rotateWebhookSigningSecret,
  getWebhookSubscriptions,
  replaceWebhookSubscriptions,
};
