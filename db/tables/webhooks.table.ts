import type { ColumnType, Generated, Selectable } from "kysely";
import type { Timestamp } from "./column-types.ts";
import type { Sealed } from "./sealed.ts";

// Signing secrets, client URLs and event deliveries (migration 2026_11_22_0005_webhooks).

/** `standard`: `whsec_` + base64 of the key bytes; `legacy`: `whsec_` + base64url, keyed with its UTF-8 bytes. */
export type SigningSecretScheme = "standard" | "legacy";

export interface WebhookSigningSecretsTable {
  integration_client_id: string;
  /** Sealed (domain/secrets): it keys the HMAC and GET returns it, so it is encrypted, not hashed. Never logged. */
  secret: Sealed;
  /** How `webhook-signature` is keyed (migration 2026_11_27_0029): `legacy` rows predate Standard Webhooks keying. */
  scheme: SigningSecretScheme;
  created_at: Timestamp;
  rotated_at: Timestamp | null;
}

export type ClientUrlType = "webhook" | "redirect_uri";

export interface ClientUrlsTable {
  id: Generated<string>;
  integration_client_id: string;
  url_type: ClientUrlType;
  url: string;
  /** Sealed (domain/secrets): sent as `validation-token` (webhook URLs only); never returned by the API. */
  validation_token: Sealed | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** When a webhook URL last passed its reachability test since it was set (migration 2026_11_28_0036); null: pending. */
  verified_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export type DeliveryStatus = "pending" | "delivered" | "failed" | "not_sent";
export type NotSentReason = "not_subscribed" | "no_target" | "merchant_unlinked";
/** `interrupted`: the worker stopped during the attempt (a crash); the outcome is unknown. */
export type AttemptError = "non_2xx" | "timeout" | "connection_error" | "redirect" | "blocked_address" | "interrupted";

export interface EventDeliveriesTable {
  event_id: string;
  status: DeliveryStatus;
  not_sent_reason: NotSentReason | null;
  target_url: string | null;
  attempts_made: ColumnType<number, number | undefined, number>;
  cycle_start: ColumnType<number, number | undefined, number>;
  next_attempt_at: Timestamp | null;
  delivered_at: Timestamp | null;
  updated_at: Timestamp;
}

export interface DeliveryAttemptsTable {
  event_id: string;
  attempt: number;
  attempted_at: Timestamp;
  target_url: string;
  /** The graphile-worker job that made the attempt. */
  job_id: string | null;
  response_status: number | null;
  duration_ms: number | null;
  error: AttemptError | null;
  finished_at: Timestamp | null;
}

export type ClientUrlRow = Selectable<ClientUrlsTable>;
export type EventDelivery = Selectable<EventDeliveriesTable>;
export type DeliveryAttemptRow = Selectable<DeliveryAttemptsTable>;
