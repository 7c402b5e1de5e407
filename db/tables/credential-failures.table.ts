// Throttled guessing's counters (migration 2026_11_23_0020_credential_failures).

export interface CredentialFailuresTable {
  /** What is counted: `merchant-email`, `admin-email`, `password-reset-email`, `client-id`, `address`. */
  scope: string;
  /** SHA-256 (hex) of the lower-cased email, the client_id or the client address. */
  key_hash: string;
  /** Failures since the count last started again. */
  failures: number;
  last_failed_at: Date;
  /** No attempt is checked before this instant; null while under the threshold. */
  blocked_until: Date | null;
  /** When the row no longer matters (the count would start again): pruned after it. */
  forget_at: Date;
}
