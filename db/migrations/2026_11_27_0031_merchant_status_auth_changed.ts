import { type Kysely, sql } from "kysely";
import type { ReleaseSafety } from "./index.ts";

// A merchant account's status is read by the token checks (a suspended or closed account's tokens are
// refused): its changes notify `cobro_auth_changed` like the other tables those checks read
// (2026_11_23_0023_auth_changed_notify), so that every API process forgets what it remembered at once.
// Release safety (ReleaseSafety, db/migrations/index.ts): a trigger that notifies; the previous release writes as before.
export const releaseSafety: ReleaseSafety = "expand";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create trigger merchant_accounts_auth_changed after update of status or delete or truncate on merchant_accounts
            for each statement execute function cobro_notify_auth_changed()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger merchant_accounts_auth_changed on merchant_accounts`.execute(db);
}
