import type { Generated, Selectable } from "kysely";
import type { Timestamp } from "./column-types.ts";

// Received bank transfers and the charge each paid, if any (migration 2026_11_22_0004_payments).

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
