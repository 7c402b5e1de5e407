import { type Kysely, sql } from "kysely";

// Requests to raise an integration's daily chat-message cap, decided by a platform admin, and the
// platform's suspension of an integration client.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("message_cap_requests")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("integration_client_id", "uuid", (c) => c.notNull().references("integration_clients.id").onDelete("cascade"))
    .addColumn("requested_by_admin_id", "uuid", (c) => c.references("admin_users.id").onDelete("set null"))
    .addColumn("requested_per_day", "integer", (c) => c.notNull().check(sql`requested_per_day > 0`))
    .addColumn("current_per_day", "integer", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull().defaultTo("pending").check(sql`status in ('pending', 'approved', 'rejected')`))
    .addColumn("approved_per_day", "integer")
    .addColumn("rejection_reason", "text")
    .addColumn("decided_by_admin_id", "uuid", (c) => c.references("admin_users.id").onDelete("set null"))
    .addColumn("decided_at", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .execute();
  // One pending request per integration, guarded by the database rather than by a check before the insert.
  await db.schema
    .createIndex("message_cap_requests_one_pending")
    .on("message_cap_requests")
    .column("integration_client_id")
    .unique()
    .where(sql.ref("status"), "=", "pending")
    .execute();
  await db.schema.createIndex("message_cap_requests_by_integration").on("message_cap_requests").columns(["integration_client_id", "created_at"]).execute();
  await db.schema.createIndex("message_cap_requests_by_status").on("message_cap_requests").columns(["status", "created_at"]).execute();

  await db.schema
    .alterTable("integration_clients")
    .addColumn("suspended_at", "timestamptz")
    .addColumn("suspension_reason", "text")
    .addColumn("suspended_by_admin_id", "uuid", (c) => c.references("admin_users.id").onDelete("set null"))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("integration_clients").dropColumn("suspended_by_admin_id").dropColumn("suspension_reason").dropColumn("suspended_at").execute();
  await db.schema.dropTable("message_cap_requests").execute();
}
