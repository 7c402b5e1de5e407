import { type Kysely, sql } from "kysely";
import type { ReleaseSafety } from "./index.ts";

// A CVU's newest charge is read as `order by created_at desc, id desc limit 1` (the cvu_account_settle
// trigger at every release of a shared CVU's hold, reconciliation's unmatched reasons). The index on
// (cvu_account_id, created_at) left the id to sort, over every charge of the newest instant: the charges of
// one bulk share their created_at, and a cuil-mode merchant's CVU gathers all its charges. With 3,001
// charges of one instant on a CVU, PostgreSQL read and sorted them all (1.5 ms) at each release of a hold
// (3.6 ms an update of the CVU, 1.6 ms with this index). With the id in the index the newest is its last
// entry for the CVU, whatever the ties.
// Release safety (ReleaseSafety, db/migrations/index.ts): the new index serves every query the one it
// replaces did (the same leading columns); the previous release reads and writes as before.
export const releaseSafety: ReleaseSafety = "expand";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index charges_cvu_account_newest on charges (cvu_account_id, created_at, id)`.execute(db);
  await sql`drop index charges_cvu_account`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`create index charges_cvu_account on charges (cvu_account_id, created_at)`.execute(db);
  await sql`drop index charges_cvu_account_newest`.execute(db);
}
