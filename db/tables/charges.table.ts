import type { ColumnType, Generated, Selectable } from "kysely";
import type { Timestamp, DefaultedTimestamp, Json } from "./column-types.ts";
import type { Sealed } from "./sealed.ts";

// Charges, the CVU pool, tenants and the limits' counters (migration 2026_11_22_0003_charges).

export type ChargeState = "draft" | "pending" | "partial_payment" | "total_payment" | "overdue" | "partial_overdue" | "canceled";

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

export interface CvuAccountsTable {
  id: Generated<string>;
  merchant_account_id: string;
  cvu: string;
  holding: ColumnType<"free" | "exclusive" | "shared", "free" | "exclusive" | "shared" | undefined, "free" | "exclusive" | "shared">;
  /** Its holds, counted whenever the row is written (a trigger): a charge joining a shared CVU does not write it. */
  open_charges: ColumnType<number, number | undefined, number>;
  /** The newest charge the CVU was given (settled with `open_charges`): what decides the reason of an unmatched transfer. */
  last_charge_id: string | null;
  created_at: DefaultedTimestamp;
}

export interface ChargesTable {
  /** The `paymentRequestId`. */
  id: Generated<string>;
  integration_client_id: string;
  merchant_account_id: string;
  reference_id: string;
  type: "standard" | "checkout";
  kind: "standard" | "draft" | "short-lived" | "checkout";
  state: ChargeState;
  amount_cents: number | null;
  surcharge_cents: ColumnType<number, number | undefined, number>;
  paid_cents: ColumnType<number, number | undefined, number>;
  description: string;
  /** As the client sent them. */
  due_dates: string[];
  /** The instant the first due date passes (the surcharge applies from then). */
  first_due_at: Timestamp;
  /** The instant the last due date passes (the charge falls overdue or expires then). */
  final_due_at: Timestamp;
  /** `{type, value}` as sent, only with two due dates. */
  surcharge: Json<{ type: "percentage" | "fixed" | "none"; value: number }> | null;
  send_whatsapp_notification: boolean;
  send_email_notification: boolean;
  send_whatsapp_payment_confirmation: boolean | null;
  reminder_notification_date: string | null;
  deferred_initial_notification_date: string | null;
  conciliation_type: "cvu" | "cuil";
  customer_name: string;
  /** Only in cuil mode. */
  customer_tax_document: string | null;
  customer_email: string | null;
  customer_phone: Json<{ countryCode: string; number: string }> | null;
  webhook_url: string | null;
  metadata: Json<Record<string, string>> | null;
  expires_in_minutes: number | null;
  cvu_account_id: string | null;
  batch_id: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  closed_at: Timestamp | null;
  /** The unguessable token of the charge's payer page (`/p/{token}`), drawn by the database. */
  payer_page_token: Generated<string>;
}

export interface CvuHoldsTable {
  charge_id: string;
  cvu_account_id: string;
  /** The payer's DNI (cuil mode) or `*` (cvu mode: the whole CVU). */
  payer_key: string;
}

export interface DailyMessageUsageTable {
  /** `integration:<id>` or `global`. */
  scope: string;
  day: string;
  messages: ColumnType<number, number | undefined, number>;
}

export interface IntegrationLimitsTable {
  integration_client_id: string;
  max_messages_per_day: number;
}

export interface PayerLookupUsageTable {
  integration_client_id: string;
  merchant_account_id: string;
  day: string;
  units: ColumnType<number, number | undefined, number>;
}

export type Charge = Selectable<ChargesTable>;
export type CvuAccount = Selectable<CvuAccountsTable>;
export type IntegrationTenant = Selectable<IntegrationTenantsTable>;
