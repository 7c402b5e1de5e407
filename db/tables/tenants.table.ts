import type { Generated, Selectable } from "kysely";
import type { Timestamp, DefaultedTimestamp } from "./column-types.ts";
import type { Sealed } from "./sealed.ts";

// An integration's tenants (locations), each with its own webhook URL (migration 2026_11_22_0003_charges).

export interface IntegrationTenantsTable {
  id: Generated<string>;
  integration_client_id: string;
  key: string;
  name: string;
  webhook_url: string;
  /** Sealed (domain/secrets): sent to the receiver in the `validation-token` header; never returned by the API. */
  validation_token: Sealed | null;
  created_at: DefaultedTimestamp;
  deleted_at: Timestamp | null;
}

export type IntegrationTenant = Selectable<IntegrationTenantsTable>;
