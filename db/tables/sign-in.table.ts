import type { ColumnType, Generated, Selectable } from "kysely";
import type { Timestamp, DefaultedTimestamp } from "./column-types.ts";
import type { Sealed } from "./sealed.ts";

// Accounts, integrations and OAuth state (migration 2026_11_22_0002_identity).

export type IntegrationType = "api_direct" | "widget" | "both" | "multitenant";
export type AdminRole = "PLATFORM_ADMIN" | "INTEGRATION_ADMIN";

export interface IntegrationClientsTable {
  id: Generated<string>;
  /** The OAuth `clientId`. */
  provider_client_id: string;
  /** argon2 of the `clientSecret`, shown once at creation. */
  client_secret_hash: string;
  /** argon2 of the `clientSecret` replaced by the last rotation, accepted until `previous_client_secret_expires_at`. */
  previous_client_secret_hash: string | null;
  previous_client_secret_expires_at: Timestamp | null;
  name: string;
  company_name: string;
  contact_email: string;
  description: string | null;
  logo_url: string | null;
  type: ColumnType<IntegrationType, IntegrationType | undefined, IntegrationType>;
  scopes: ColumnType<string[], string[] | undefined, string[]>;
  redirect_uris: ColumnType<string[], string[] | undefined, string[]>;
  logout_urls: ColumnType<string[], string[] | undefined, string[]>;
  /** numeric: a decimal string. */
  service_commission_percentage: string | null;
  created_at: DefaultedTimestamp;
  /** The Sandbox clock: how far this integration's time is ahead of the real one. */
  clock_offset_ms: ColumnType<number, number | undefined, number>;
  /** The event subscription (`enabledEvents`). */
  enabled_events: ColumnType<string[], string[] | undefined, string[]>;
  /** The offer shown on the authorization screen: a percentage (numeric, a decimal string) and/or a fixed fee. */
  offer_percentage: ColumnType<string | null, string | null | undefined, string | null>;
  offer_fixed_cents: ColumnType<number | null, number | null | undefined, number | null>;
  /** In Production: the Sandbox integration this one was provisioned from when it went live (unique). */
  provisioned_from_sandbox_client_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The platform's suspension (migration 0014): while set, the integration creates no charges. */
  suspended_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  suspension_reason: ColumnType<string | null, string | null | undefined, string | null>;
  suspended_by_admin_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface AdminUsersTable {
  id: Generated<string>;
  email: string;
  password_hash: string;
  name: string | null;
  role: AdminRole;
  integration_client_id: string | null;
  invited_at: DefaultedTimestamp;
  first_login_at: Timestamp | null;
  created_at: DefaultedTimestamp;
  /** A temporary password (the welcome email's) allows only changing it. */
  password_change_required: Generated<boolean>;
  /** When a temporary password stops working; null for a password the admin chose. */
  password_expires_at: Timestamp | null;
  /** When the welcome email was accepted by the mail server (or logged, in the Sandbox without SMTP). */
  welcome_email_sent_at: Timestamp | null;
}

export interface MerchantAccountsTable {
  id: Generated<string>;
  email: string;
  password_hash: string;
  fantasy_name: string;
  account_holder_name: string;
  account_holder_tax_id: string;
  /** Set on the Sandbox test merchant account of an integration (one per integration). */
  test_for_integration_client_id: string | null;
  created_at: DefaultedTimestamp;
  /** The payment provider's id of the account (migration 0030), unique; null for the Sandbox's own merchants. */
  provider_merchant_id: ColumnType<string | null, string | null | undefined, string | null>;
  status: ColumnType<MerchantAccountStatus, MerchantAccountStatus | undefined, MerchantAccountStatus>;
  /** False until the merchant chooses a password through an emailed link (a provisioned account starts without one). */
  password_set: ColumnType<boolean, boolean | undefined, boolean>;
  /** When the invitation email was accepted by the mail server. */
  invitation_sent_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  updated_at: DefaultedTimestamp;
}

export type MerchantAccountStatus = "active" | "suspended" | "closed";

export interface MerchantLinksTable {
  /** The `integrationClientUserId` of the Admin API. */
  id: Generated<string>;
  integration_client_id: string;
  merchant_account_id: string;
  /** The first authorization; unchanged by unlinking and re-authorizing. */
  linked_at: Timestamp;
  unlinked_at: Timestamp | null;
  /** The merchant's tenant (location) in this integration, if any. */
  tenant_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The integration's commission the merchant account accepted (numeric, a decimal string; "0.00" when none). */
  commission_percentage: ColumnType<string, string | undefined, string>;
  /** The fixed fee per payment of the offer the merchant account accepted when linking (bigint cents). */
  commission_fixed_cents: ColumnType<number, number | undefined, number>;
  /** The platform's service commission deal applied to this link (numeric), null when none. */
  service_commission_percentage: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A completed sign-in on the authorization screen (the request itself travels sealed in the form), kept until the request's expiry. */
export interface OAuthAuthorizationRequestsTable {
  /** The sealed request's id: one completion per request. */
  id: string;
  integration_client_id: string;
  redirect_uri: string;
  state: string | null;
  scope: string;
  code_challenge: string | null;
  csrf_hash: string;
  expires_at: Timestamp;
  completed_at: Timestamp | null;
}

export interface OAuthCodesTable {
  code_hash: string;
  integration_client_id: string;
  merchant_account_id: string;
  redirect_uri: string;
  scope: string;
  code_challenge: string | null;
  expires_at: Timestamp;
  consumed_at: Timestamp | null;
  /** The grant the code was exchanged for: revoked if the code is presented again. */
  grant_id: string | null;
}

export interface OAuthGrantsTable {
  id: Generated<string>;
  integration_client_id: string;
  merchant_account_id: string;
  refresh_token_hash: string;
  scope: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
}

export interface AdminSessionsTable {
  id: Generated<string>;
  admin_user_id: string;
  refresh_token_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  revoked_at: Timestamp | null;
}

/** The hash of an admin refresh token already used (migration 2026_11_27_0028): presented again, it ends its session. */
export interface AdminSessionUsedRefreshTokensTable {
  token_hash: string;
  session_id: string;
  used_at: Timestamp;
}

/**
 * A link that sets an account's password (migration 2026_11_23_0013_admin_password_resets, renamed and
 * opened to merchant accounts by 0030): an admin's or a merchant account's, one per account, the newest.
 */
export interface PasswordLinksTable {
  id: Generated<string>;
  admin_user_id: string | null;
  merchant_account_id: string | null;
  /** SHA-256 of the link's token. */
  token_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  used_at: Timestamp | null;
}

export interface SigningKeysTable {
  kid: string;
  algorithm: string;
  /** The private JWK, sealed (domain/secrets; migration 2026_11_23_0021_sealed_secrets made it text). */
  private_jwk: Sealed;
  public_jwk: ColumnType<Record<string, unknown>, string, string>;
  created_at: DefaultedTimestamp;
  retired_at: Timestamp | null;
}

export type IntegrationClient = Selectable<IntegrationClientsTable>;
export type AdminUser = Selectable<AdminUsersTable>;
export type MerchantAccount = Selectable<MerchantAccountsTable>;
export type MerchantLink = Selectable<MerchantLinksTable>;
