/* tslint:disable */
/* eslint-disable */
export * from './APIKeysApi.js';
export * from './AuditLogApi.js';
export * from './BankFeedApi.js';
export * from './ClientURLsApi.js';
export * from './EarningsApi.js';
export * from './EventsApi.js';
export * from './GoLiveApi.js';
export * from './HealthApi.js';
export * from './MerchantsApi.js';
export * from './MyIntegrationApi.js';
export * from './NotificationsApi.js';
export * from './OfferApi.js';
export * from './PaymentRequestsApi.js';
export * from './PayoutLinkApi.js';
export * from './PlatformAuditLogApi.js';
export * from './PlatformEarningsApi.js';
export * from './PlatformGoLiveReviewApi.js';
export * from './PlatformIntegrationClientsApi.js';
export * from './PlatformMerchantAccountsApi.js';
export * from './PlatformMessageCapRequestsApi.js';
export * from './PlatformProductionProvisioningApi.js';
export * from './PlatformUnmatchedPaymentsApi.js';
export * from './SandboxApi.js';
export * from './TenantsApi.js';
export * from './UnmatchedPaymentsApi.js';
export * from './WebhooksApi.js';
