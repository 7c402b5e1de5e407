import type { Generated, Selectable } from "kysely";

/**
 * One row, written by the first migration: which database this is and since when. It lets an operator (and
 * the restart test) tell a kept database from a fresh one.
 */
export interface InstallationTable {
  /** Always true: the primary key that keeps the table to a single row. */
  singleton: Generated<boolean>;
  installation_id: Generated<string>;
  created_at: Generated<Date>;
}

export type Installation = Selectable<InstallationTable>;
