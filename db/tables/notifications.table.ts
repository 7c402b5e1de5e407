import type { ColumnType, Generated, Selectable } from "kysely";
import type { DefaultedTimestamp, Timestamp } from "./column-types.ts";

// Payer notifications (migration 2026_11_23_0007_notifications); the payer page's token is a column of
// `charges`.

export const NOTIFICATION_CHANNELS = ["email", "whatsapp"] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];

export const NOTIFICATION_KINDS = ["initial", "advance_reminder", "due_date", "first_due_date_passed", "second_due_date", "payment_confirmation"] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

/**
 * `queued`: its time came and a job will send it; `sending`: a worker has it at the provider (the outbox
 * shows both as `scheduled`).
 */
export type NotificationStatus = "scheduled" | "queued" | "sending" | "sent" | "simulated" | "failed" | "canceled";

export interface NotificationsTable {
  id: Generated<string>;
  charge_id: string;
  integration_client_id: string;
  /** Only for a payment confirmation: the transfer it confirms. */
  transfer_id: string | null;
  channel: NotificationChannel;
  kind: NotificationKind;
  /** The Argentina day (`YYYY-MM-DD`) the message belongs to. */
  day: string;
  /** The email address, or the chat number as digits (country code and number). */
  recipient: string;
  status: ColumnType<NotificationStatus, NotificationStatus | undefined, NotificationStatus>;
  /** In the integration's time (the Sandbox clock's, in the Sandbox). */
  scheduled_for: Timestamp;
  queued_at: Timestamp | null;
  /** When a worker took it to the provider (service time); a `sending` claim older than the lease is taken again. */
  claimed_at: Timestamp | null;
  sent_at: Timestamp | null;
  attempts: ColumnType<number, number | undefined, number>;
  failure_reason: string | null;
  provider_message_id: string | null;
  created_at: DefaultedTimestamp;
}

export type Notification = Selectable<NotificationsTable>;
