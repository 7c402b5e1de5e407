import type { ColumnType, Generated, Selectable } from "kysely";
import type { Timestamp, Json } from "./column-types.ts";

// Charges (migration 2026_11_22_0003_charges) and when the time sweep next looks at each.

export type ChargeState = "draft" | "pending" | "partial_payment" | "total_payment" | "overdue" | "partial_overdue" | "canceled";

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

/**
 * When the time sweep next looks at a charge (migration 2026_11_27_0034_charge_deadlines): written by a
 * trigger on `charges`, deleted by the sweep.
 */
export interface ChargeDeadlinesTable {
  charge_id: string;
  integration_client_id: string;
  /** A draft's mark is its creation (discarded a few hours after); any other, its last due date. */
  draft: boolean;
  due_at: Date;
}

export type Charge = Selectable<ChargesTable>;
