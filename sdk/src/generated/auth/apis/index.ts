/* tslint:disable */
/* eslint-disable */
export * from './AdminSessionApi.js';
export * from './CommissionProposalPageApi.js';
export * from './DiscoveryApi.js';
export * from './HealthApi.js';
export * from './LogosApi.js';
export * from './MerchantPasswordPagesApi.js';
export * from './OAuthApi.js';
export * from './PayoutLinkPageApi.js';
