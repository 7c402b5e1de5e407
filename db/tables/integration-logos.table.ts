import type { Generated } from "kysely";
import type { DefaultedTimestamp } from "./column-types.ts";

// Uploaded integration logos (migration 2026_11_23_0011_integration_logos).

export interface IntegrationLogosTable {
  /** Part of the logo's public address: a new upload gets a new id. */
  id: Generated<string>;
  integration_client_id: string;
  media_type: string;
  /** The re-encoded image (bytea). */
  content: Buffer;
  width: number;
  height: number;
  created_at: DefaultedTimestamp;
}
