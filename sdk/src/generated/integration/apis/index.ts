/* tslint:disable */
/* eslint-disable */
export * from './CheckoutWidgetApi.js';
export * from './HealthApi.js';
export * from './MerchantApi.js';
export * from './PayerLookupApi.js';
export * from './PayerPageApi.js';
export * from './PaymentRequestsApi.js';
export * from './TenantApi.js';
export * from './UnmatchedPaymentsApi.js';
