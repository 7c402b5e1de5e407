// The Kysely view of Cobro's database: one `<name>.table.ts` per table under db/tables/, one line per table
// here. Column names are the SQL names (snake_case), with no renaming plugin, so raw SQL and typed queries
// read alike. Keep it in step with db/migrations/.
import type { InstallationTable } from "./tables/installation.table.ts";

export interface Database {
  installation: InstallationTable;
}
