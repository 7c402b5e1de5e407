/* tslint:disable */
/* eslint-disable */
export * from './AdminLogin.js';
export * from './AdminPasswordChange.js';
export * from './AdminPasswordReset.js';
export * from './AdminPasswordResetForm.js';
export * from './AdminPasswordResetRequest.js';
export * from './AdminSession.js';
export * from './Authorize400Response.js';
export * from './ClientInfo.js';
export * from './CodeExchange.js';
export * from './CompleteLoginForm.js';
export * from './ErrorBody.js';
export * from './ExchangeToken200Response.js';
export * from './HealthStatus.js';
export * from './Jwk.js';
export * from './JwkSet.js';
export * from './OpenIdConfiguration.js';
export * from './ReadinessStatus.js';
export * from './RefreshRequest.js';
export * from './RefreshedToken.js';
export * from './RevokeRequest.js';
export * from './StandardRevokeRequest.js';
export * from './StandardTokenRequest.js';
export * from './StandardTokenResponse.js';
export * from './TokenSet.js';
export * from './ValidationDetail.js';
export * from './ValidationErrorBody.js';
