import type { ColumnType, Generated, Selectable } from "kysely";
import type { DefaultedTimestamp } from "./column-types.ts";

// The CVU pool: each merchant account's CVUs and the charges that hold them (migration 2026_11_22_0003_charges).

export interface CvuAccountsTable {
  id: Generated<string>;
  merchant_account_id: string;
  cvu: string;
  holding: ColumnType<"free" | "exclusive" | "shared", "free" | "exclusive" | "shared" | undefined, "free" | "exclusive" | "shared">;
  /**
   * Its holds: 0 when free, 1 when exclusive. A shared CVU's are not counted (1 while it holds any): a charge
   * joining it does not write the row, and counting them at each release read every hold of the CVU (a
   * cuil-mode merchant's open charges). Count cvu_holds for the number.
   */
  open_charges: ColumnType<number, number | undefined, number>;
  /** The newest charge the CVU was given (settled whenever the row is written): what decides the reason of an unmatched transfer. */
  last_charge_id: string | null;
  created_at: DefaultedTimestamp;
}

export interface CvuHoldsTable {
  charge_id: string;
  cvu_account_id: string;
  /** The payer's DNI (cuil mode) or `*` (cvu mode: the whole CVU). */
  payer_key: string;
}

export type CvuAccount = Selectable<CvuAccountsTable>;
