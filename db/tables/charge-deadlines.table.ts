// Tables of migration 2026_11_27_0034_charge_deadlines.

/** When the time sweep next looks at a charge: written by a trigger on `charges`, deleted by the sweep. */
export interface ChargeDeadlinesTable {
  charge_id: string;
  integration_client_id: string;
  /** A draft's mark is its creation (discarded a few hours after); any other, its last due date. */
  draft: boolean;
  due_at: Date;
}
