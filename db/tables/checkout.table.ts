import type { ColumnType } from "kysely";
import type { DefaultedTimestamp } from "./column-types.ts";

// The checkout widget's keys (migration 2026_11_23_0016_widget_keys).

export interface WidgetKeysTable {
  integration_client_id: string;
  /** `pk_test_…` / `pk_live_…`, public, in clear; null until created. */
  publishable_key: ColumnType<string | null, string | null | undefined, string | null>;
  /** SHA-256 (hex) of the secret key; null until the first rotation. */
  secret_key_hash: ColumnType<string | null, string | null | undefined, string | null>;
  secret_key_last4: ColumnType<string | null, string | null | undefined, string | null>;
  /** Origins allowed to use the publishable key; empty means any. */
  allowed_origins: ColumnType<string[], string[] | undefined, string[]>;
  created_at: DefaultedTimestamp;
  updated_at: DefaultedTimestamp;
}
