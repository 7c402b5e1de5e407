import { type Kysely, sql } from "kysely";
import type { ReleaseSafety } from "./index.ts";

// The daily statement (domain/reconciliation/daily-statement.ts) reads the transfers Cobro recorded on one
// Argentina day: by the time it recorded them, which nothing indexed, so each statement read every transfer.
// Release safety (ReleaseSafety, db/migrations/index.ts): a new index; the previous release reads and writes as before.
export const releaseSafety: ReleaseSafety = "expand";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index transfers_by_recorded_time on transfers (received_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index transfers_by_recorded_time`.execute(db);
}
