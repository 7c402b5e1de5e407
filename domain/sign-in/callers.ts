// Who calls an API, as established by its security handler from the bearer token.

export type AnonymousCaller = { kind: "anonymous" };

export const anonymousCaller: AnonymousCaller = { kind: "anonymous" };

/** A merchant account linked to an integration, by its idToken. */
export interface MerchantCaller {
  kind: "merchant";
  merchantAccountId: string;
  /** The integration (our id) and its OAuth clientId (the token's `aud`). */
  integrationClientId: string;
  providerClientId: string;
  integrationName: string;
  /** The `integrationClientUserId` of the link. */
  linkId: string;
  /** The OAuth grant the token was issued from. */
  grantId: string;
  /** The integration's Sandbox clock: how far its time is ahead of the real one. */
  clockOffsetMs: number;
}

/** A portal admin, by an admin idToken. */
export interface AdminCaller {
  kind: "admin";
  adminUserId: string;
  sessionId: string;
  role: "PLATFORM_ADMIN" | "INTEGRATION_ADMIN";
  /** The admin's integration (integration admins only). */
  integrationClientId: string | null;
  email: string;
  /** The Sandbox clock of the admin's integration (0 for a platform admin). */
  clockOffsetMs: number;
}

/** Another deployment of Cobro, by a platform API key (`X-Cobro-Api-Key`). */
export interface PlatformKeyCaller {
  kind: "platform-key";
  platformApiKeyId: string;
  name: string;
}

/** A merchant idToken checked for signature, expiry and revocation only (the Auth API's client-info). */
export interface MerchantTokenHolder {
  kind: "merchant-token";
  merchantAccountId: string;
  grantId: string;
}

/** An integration, by one of its checkout widget keys (`/v1/payments`). */
export interface WidgetKeyCaller {
  kind: "widget-key";
  /** `secret` creates charges (servers); `publishable` reads them (the widget in a browser). */
  key: "publishable" | "secret";
  integrationClientId: string;
  /** The integration's Sandbox clock: how far its time is ahead of the real one. */
  clockOffsetMs: number;
}

export type IntegrationCaller = AnonymousCaller | MerchantCaller | WidgetKeyCaller;
export type AuthCaller = AnonymousCaller | MerchantTokenHolder | AdminCaller;
export type AdminApiCaller = AnonymousCaller | AdminCaller | PlatformKeyCaller;
