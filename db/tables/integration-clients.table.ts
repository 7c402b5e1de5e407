import type { ColumnType, Generated, Selectable } from "kysely";
import type { Timestamp, DefaultedTimestamp } from "./column-types.ts";

// Integrations (migration 2026_11_22_0002_identity) and their uploaded logos.

export type IntegrationType = "api_direct" | "widget" | "both" | "multitenant";

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

/** An uploaded integration logo (migration 2026_11_23_0011_integration_logos). */
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

export type IntegrationClient = Selectable<IntegrationClientsTable>;
