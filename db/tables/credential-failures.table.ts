// Throttled guessing's counters (migrations 2026_11_23_0020_credential_failures and
// 2026_11_25_0026_credential_attempts_counted_first).
import type { Generated } from "kysely";

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
