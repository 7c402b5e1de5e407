import type { ColumnType, Generated, Selectable } from "kysely";
import type { Timestamp } from "./column-types.ts";

// Transfers and the event outbox (migration 2026_11_22_0004_payments).

export type UnmatchedReason = "expired" | "already_paid" | "canceled" | "no_cuil_match" | "no_pending" | "ambiguous";

export interface TransfersTable {
  id: Generated<string>;
  /** The bank's transaction id: unique, so the same transfer twice has one effect. */
  transaction_id: string;
  amount_cents: number;
  receiving_cvu: string;
  sender_cuil: string | null;
  sender_cvu: string | null;
  sender_name: string | null;
  operated_at: Timestamp;
  received_at: Timestamp;
  source: "simulation" | "bank-feed";
  /** The charge it paid, or null with the reason it matched none. */
  charge_id: string | null;
  unmatched_reason: UnmatchedReason | null;
}

export interface EventsTable {
  /** The X-Service-Webhook-Id: identical across every retry of the event. */
  id: Generated<string>;
  integration_client_id: string;
  merchant_account_id: string | null;
  charge_id: string | null;
  type: "payment_request.payment_received" | "payment_request.expired" | "payment.unmatched";
  payload: ColumnType<Record<string, unknown>, string, string>;
  created_at: Timestamp;
  /** The merchant account was unlinked from the integration when the event occurred: never delivered nor listed. */
  occurred_while_unlinked: ColumnType<boolean, boolean | undefined, boolean>;
  /** The event log's order (migration 2026_11_27_0035_event_log_order): a sequence, a bigint as text. */
  log_position: ColumnType<string, never, never>;
  /** The writing transaction's id (xid8, as text): see domain/webhooks/event-stream.ts. */
  log_xid: ColumnType<string, never, never>;
}

export type Transfer = Selectable<TransfersTable>;
export type OutboxEvent = Selectable<EventsTable>;

/** The split of one received payment, written once when it is received (migration 2026_11_23_0015_merchant_commissions). */
export interface PaymentBreakdownsTable {
  transfer_id: string;
  charge_id: string;
  integration_client_id: string;
  merchant_account_id: string;
  received_at: Timestamp;
  gross_cents: number;
  integration_commission_cents: number;
  service_commission_cents: number;
  merchant_net_cents: number;
  /** numeric: a decimal string. */
  integration_commission_percentage: string;
  integration_commission_fixed_cents: number;
  /** numeric: a decimal string; null when no service commission deal applied. */
  service_commission_percentage: string | null;
}
