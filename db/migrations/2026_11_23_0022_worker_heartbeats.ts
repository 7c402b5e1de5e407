import { type Kysely, sql } from "kysely";

// Each job worker's last sign of life. graphile-worker leaves the jobs of a worker that died (SIGKILL, a
// lost machine) locked for 4 hours; the live workers release them once the dead one's heartbeat is stale
// (db/job-queue.ts), so they run again within minutes.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("worker_heartbeats")
    .addColumn("worker_id", "text", (c) => c.primaryKey())
    .addColumn("last_seen_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("worker_heartbeats").execute();
}
