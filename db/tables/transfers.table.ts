import type { ColumnType, Generated, Selectable } from "kysely";
import type { Timestamp } from "./column-types.ts";

// Received bank transfers and the charge each paid, if any (migration 2026_11_22_0004_payments), and the
// money of them no charge took (unmatched payments).

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

export type Transfer = Selectable<TransfersTable>;

/** Why money is unmatched: the transfer's own reason, or `overpaid` for the excess of a payment over what its charge owed. */
export type UnmatchedPaymentReason = UnmatchedReason | "overpaid";

export type UnmatchedPaymentState = "unresolved" | "assigned" | "return_requested" | "returned" | "return_failed";

/**
 * Money Cobro received and did not apply to a charge (migration 2026_11_28_0037_unmatched_payments): a
 * whole unmatched transfer or a payment's excess, at most one per transfer, written with the transfer.
 */
export interface UnmatchedPaymentsTable {
  id: Generated<string>;
  transfer_id: string;
  reason: UnmatchedPaymentReason;
  amount_cents: number;
  /** What is still neither assigned nor returned. */
  unresolved_cents: number;
  /** The integration and merchant account told of it; null for a CVU no charge ever held (the platform's). */
  integration_client_id: string | null;
  merchant_account_id: string | null;
  /** The closed charge its CVU held (expired, already_paid, canceled) or the charge it overpaid. */
  charge_id: string | null;
  state: ColumnType<UnmatchedPaymentState, UnmatchedPaymentState | undefined, UnmatchedPaymentState>;
  /** When the payer made the transfer. */
  received_at: Timestamp;
  /** When Cobro recorded it. */
  recorded_at: Timestamp;
  resolved_at: Timestamp | null;
}

/** Unmatched money assigned by hand to a charge (migration 2026_11_28_0038_unmatched_payment_assignments). */
export interface UnmatchedPaymentAssignmentsTable {
  id: Generated<string>;
  seq: ColumnType<number, never, never>;
  unmatched_payment_id: string;
  charge_id: string;
  amount_cents: number;
  assigned_at: Timestamp;
  actor_kind: "integration_admin" | "integration_api";
  actor_admin_user_id: string | null;
}

export type UnmatchedPaymentReturnState = "requested" | "returned" | "failed";

/** Unmatched money sent back to where it came from (migration 2026_11_28_0039_unmatched_payment_returns). */
export interface UnmatchedPaymentReturnsTable {
  id: Generated<string>;
  seq: ColumnType<number, never, never>;
  unmatched_payment_id: string;
  amount_cents: number;
  state: ColumnType<UnmatchedPaymentReturnState, UnmatchedPaymentReturnState | undefined, UnmatchedPaymentReturnState>;
  to_cvu: string | null;
  to_cuil: string | null;
  simulate_failure: ColumnType<boolean, boolean | undefined, boolean>;
  requested_at: Timestamp;
  completed_at: Timestamp | null;
  failure_reason: string | null;
  /** The bank's id of the outgoing transfer, once it took it. */
  bank_transfer_id: string | null;
  attempts: ColumnType<number, number | undefined, number>;
  actor_kind: "integration_admin" | "integration_api" | "platform_admin";
  actor_admin_user_id: string | null;
  /** `integration:<id>` or `platform`: whose key it is. */
  idempotency_owner: string;
  idempotency_key: string;
  /** SHA-256 (hex) of what was asked under the key. */
  request_fingerprint: string;
}

export type UnmatchedPaymentReturn = Selectable<UnmatchedPaymentReturnsTable>;
