import { type Kysely, sql } from "kysely";
import type { ReleaseSafety } from "./index.ts";

// A webhook URL's last passed reachability test (`verified_at`): the integration's events go to the most
// recently verified webhook URL, so a new URL that does not answer 2xx stays pending instead of taking
// the events from a working receiver (domain/webhooks/destinations.ts, rule 3). The URLs registered before
// this migration received the events as they were: they count as verified when last changed.
// Release safety (ReleaseSafety, db/migrations/index.ts): a nullable column.
export const releaseSafety: ReleaseSafety = "expand";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table client_urls add column verified_at timestamptz`.execute(db);
  await sql`update client_urls set verified_at = updated_at where url_type = 'webhook'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table client_urls drop column verified_at`.execute(db);
}
