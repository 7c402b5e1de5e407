// The Admin API, through the generated SDK, on this same origin with the session's idToken. An answer of
// 401 means the session is over (signed out elsewhere, expired, or the password changed): back to sign-in.
import {
  APIKeysApi,
  AuditLogApi,
  PlatformAuditLogApi,
  ClientURLsApi,
  Configuration,
  TenantsApi,
  WebhooksApi,
  EventsApi,
  EarningsApi,
  GoLiveApi,
  MerchantsApi,
  MyIntegrationApi,
  OfferApi,
  PayoutLinkApi,
  PlatformEarningsApi,
  PlatformMessageCapRequestsApi,
  NotificationsApi,
  PaymentRequestsApi,
  PlatformGoLiveReviewApi,
  PlatformIntegrationClientsApi,
  PlatformMerchantAccountsApi,
  SandboxApi,
  StatementsApi,
  UnmatchedPaymentsApi,
  type Middleware,
} from "@cobro/sdk/admin";
import { session } from "./session.ts";

const endSessionOnUnauthorized: Middleware = {
  post: async ({ response }) => {
    if (response.status === 401) void session.signOut();
    return response;
  },
};

const configuration = new Configuration({
  basePath: "", // the Admin API is this page's own origin
  accessToken: () => session.idToken(),
  middleware: [endSessionOnUnauthorized],
});

/** One client per tag of the Admin API; pages add the ones they need. */
export const adminApi = {
  paymentRequests: new PaymentRequestsApi(configuration),
  unmatchedPayments: new UnmatchedPaymentsApi(configuration),
  statements: new StatementsApi(configuration),
  events: new EventsApi(configuration),
  earnings: new EarningsApi(configuration),
  notifications: new NotificationsApi(configuration),
  sandbox: new SandboxApi(configuration),
  goLive: new GoLiveApi(configuration),
  platformClients: new PlatformIntegrationClientsApi(configuration),
  platformGoLiveReview: new PlatformGoLiveReviewApi(configuration),
  platformMerchantAccounts: new PlatformMerchantAccountsApi(configuration),
  // The integration's merchants, offer, payout link and chat cap; the platform's earnings and chat-cap queue;
  // the integration's own settings (profile and logo, URLs, webhooks, tenants, widget keys).
  merchants: new MerchantsApi(configuration),
  myIntegration: new MyIntegrationApi(configuration),
  offer: new OfferApi(configuration),
  payoutLink: new PayoutLinkApi(configuration),
  platformEarnings: new PlatformEarningsApi(configuration),
  platformMessageCapRequests: new PlatformMessageCapRequestsApi(configuration),
  clientUrls: new ClientURLsApi(configuration),
  webhooks: new WebhooksApi(configuration),
  tenants: new TenantsApi(configuration),
  apiKeys: new APIKeysApi(configuration),
  // The audit logs: the integration's own, and the platform's.
  auditLog: new AuditLogApi(configuration),
  platformAuditLog: new PlatformAuditLogApi(configuration),
};
