import type { ColumnType, Generated } from "kysely";
import type { Timestamp, DefaultedTimestamp } from "./column-types.ts";
import type { Sealed } from "./sealed.ts";

// Signing in: the OAuth authorization's state, admin sessions, password links and the keys tokens are
// signed with (migration 2026_11_22_0002_identity), platform API keys and the counters that throttle
// guessing credentials.

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

/** A key another deployment (the Sandbox) calls the Admin API with, instead of a session (migration 2026_11_23_0012_going_live). */
export interface PlatformApiKeysTable {
  id: Generated<string>;
  name: string;
  /** sha256 of the key: it is shown once, at creation. */
  key_hash: string;
  created_at: DefaultedTimestamp;
  last_used_at: Timestamp | null;
  revoked_at: Timestamp | null;
}

/**
 * Throttled guessing's counters (migrations 2026_11_23_0020_credential_failures and
 * 2026_11_25_0026_credential_attempts_counted_first).
 */
export interface CredentialFailuresTable {
  /** What is counted: `merchant-email`, `admin-email`, `password-reset-email`, `client-id`, `address`. */
  scope: string;
  /** SHA-256 (hex) of the lower-cased email, the client_id or the client address. */
  key_hash: string;
  /** Attempts counted since the count last started again (each counted before its check; a right credential is taken back off the address). */
  failures: number;
  /** Attempts refused (waiting, or over the threshold) since the count last started again. */
  refused: Generated<number>;
  last_failed_at: Date;
  /** No attempt is checked before this instant; null while under the threshold. */
  blocked_until: Date | null;
  /** When the row no longer matters (the count would start again): pruned after it. */
  forget_at: Date;
}
