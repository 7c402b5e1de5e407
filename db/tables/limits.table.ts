import type { ColumnType, Generated, Selectable } from "kysely";
import type { Timestamp } from "./column-types.ts";

// The limits on chat messages: each integration's daily cap and the day's counts (migration
// 2026_11_22_0003_charges), and requests to raise a cap (migration 2026_11_23_0014_message_cap_requests_and_suspension).

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

export type MessageCapRequestStatus = "pending" | "approved" | "rejected";

export interface MessageCapRequestsTable {
  id: Generated<string>;
  integration_client_id: string;
  /** The integration admin who asked; the outcome is mailed to this admin. */
  requested_by_admin_id: string | null;
  requested_per_day: number;
  /** The integration's cap when the request was made. */
  current_per_day: number;
  reason: string;
  status: ColumnType<MessageCapRequestStatus, MessageCapRequestStatus | undefined, MessageCapRequestStatus>;
  approved_per_day: ColumnType<number | null, number | null | undefined, number | null>;
  rejection_reason: ColumnType<string | null, string | null | undefined, string | null>;
  decided_by_admin_id: ColumnType<string | null, string | null | undefined, string | null>;
  decided_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Timestamp;
}

export type MessageCapRequestRow = Selectable<MessageCapRequestsTable>;
