import { type Kysely, sql } from "kysely";
import type { ReleaseSafety } from "./index.ts";

// The event log's order, for the event stream's resume (domain/events/event-stream.ts): each event row
// records the transaction that wrote it (`log_xid`, its top-level id as xid8) and a position from a
// sequence (`log_position`). The log is read in (log_xid, log_position) order, only below the oldest
// transaction still running: nothing can later commit in front of what has been read.
// Existing rows were all written before this migration's transaction: its id and their age order them.
// Release safety (ReleaseSafety, db/migrations/index.ts): new columns with defaults: the previous release's inserts fill them.
export const releaseSafety: ReleaseSafety = "expand";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`create sequence events_log_position`.execute(db);
  await sql`alter table events add column log_position bigint, add column log_xid xid8`.execute(db);
  await sql`
    update events e set log_position = ordered.n, log_xid = pg_current_xact_id()
      from (select id, row_number() over (order by created_at, id) as n from events) ordered
     where e.id = ordered.id`.execute(db);
  await sql`select setval('events_log_position', coalesce((select max(log_position) from events), 0) + 1, false)`.execute(db);
  await sql`
    alter table events
      alter column log_position set default nextval('events_log_position'),
      alter column log_position set not null,
      alter column log_xid set default pg_current_xact_id(),
      alter column log_xid set not null`.execute(db);
  await sql`alter sequence events_log_position owned by events.log_position`.execute(db);
  await sql`create index events_log on events (integration_client_id, log_xid, log_position)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index events_log`.execute(db);
  await sql`alter table events drop column log_position, drop column log_xid`.execute(db);
}
