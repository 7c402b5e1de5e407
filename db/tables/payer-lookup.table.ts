import type { ColumnType } from "kysely";

// The payer-lookup quota's units taken each day by an integration and merchant account (migration
// 2026_11_22_0003_charges).

export interface PayerLookupUsageTable {
  integration_client_id: string;
  merchant_account_id: string;
  day: string;
  units: ColumnType<number, number | undefined, number>;
}
