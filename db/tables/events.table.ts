import type { ColumnType, Generated, Selectable } from "kysely";
import type { Timestamp } from "./column-types.ts";

// The event log, also the webhooks' outbox (migration 2026_11_22_0004_payments).

export interface EventsTable {
  /** The X-Service-Webhook-Id: identical across every retry of the event. */
  id: Generated<string>;
  integration_client_id: string;
  merchant_account_id: string | null;
  charge_id: string | null;
  type: "payment_request.payment_received" | "payment_request.expired" | "payment.unmatched" | "payment.returned" | "payment.return_failed";
  payload: ColumnType<Record<string, unknown>, string, string>;
  created_at: Timestamp;
  /** The merchant account was unlinked from the integration when the event occurred: never delivered nor listed. */
  occurred_while_unlinked: ColumnType<boolean, boolean | undefined, boolean>;
  /** The event log's order (migration 2026_11_27_0035_event_log_order): a sequence, a bigint as text. */
  log_position: ColumnType<string, never, never>;
  /** The writing transaction's id (xid8, as text): see domain/events/event-stream.ts. */
  log_xid: ColumnType<string, never, never>;
}

export type OutboxEvent = Selectable<EventsTable>;
