import { type Kysely, sql } from "kysely";
import type { ReleaseSafety } from "./index.ts";

// What the metrics read at every scrape, kept proportional to what they report rather than to history:
// the deliveries still pending (the webhook backlog, by integration) and today's chat-message counters.
// The pending index holds only pending rows; an attempt's bookkeeping (attempts, next attempt, target)
// leaves status alone, so those updates stay HOT, and only the final status change writes an entry.
// Release safety (ReleaseSafety, db/migrations/index.ts): indexes only.
export const releaseSafety: ReleaseSafety = "expand";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create index event_deliveries_pending on event_deliveries (event_id) where status = 'pending'`.execute(db);
  await sql`create index daily_message_usage_day on daily_message_usage (day)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index daily_message_usage_day`.execute(db);
  await sql`drop index event_deliveries_pending`.execute(db);
}
