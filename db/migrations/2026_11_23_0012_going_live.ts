import { sql, type Kysely } from "kysely";

// Going live. In the Sandbox: each integration's go-live requests, their review and the integration's
// creation in Production. In Production: the platform API keys the Sandbox calls it with, and which
// Sandbox integration each provisioned integration came from (the key that makes provisioning happen once).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("go_live_requests")
    .addColumn("id", "uuid", (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("integration_client_id", "uuid", (col) => col.notNull().references("integration_clients.id"))
    .addColumn("requested_by_admin_id", "uuid", (col) => col.notNull().references("admin_users.id"))
    .addColumn("status", "text", (col) => col.notNull().check(sql`status in ('in_review', 'approved', 'rejected')`))
    .addColumn("reasons", "jsonb", (col) => col.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("requested_at", "timestamptz", (col) => col.notNull())
    .addColumn("decided_at", "timestamptz")
    // null with a decision: the automatic check decided.
    .addColumn("decided_by_admin_id", "uuid", (col) => col.references("admin_users.id"))
    .addColumn("rejection_reason", "text")
    .addColumn("provisioning_status", "text", (col) =>
      col.notNull().defaultTo("not_started").check(sql`provisioning_status in ('not_started', 'in_progress', 'provisioned', 'failed', 'manual')`),
    )
    .addColumn("production_integration_client_id", "uuid")
    .addColumn("production_client_id", "text")
    .addColumn("provisioned_at", "timestamptz")
    .addColumn("provisioning_error", "text")
    .execute();
  // At most one request in review per integration: asking again repeats the check on it.
  await sql`create unique index go_live_requests_one_in_review on go_live_requests (integration_client_id) where status = 'in_review'`.execute(db);
  await sql`create index go_live_requests_queue on go_live_requests (status, requested_at desc)`.execute(db);
  await sql`create index go_live_requests_by_integration on go_live_requests (integration_client_id, requested_at desc)`.execute(db);

  await db.schema
    .createTable("platform_api_keys")
    .addColumn("id", "uuid", (col) => col.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("name", "text", (col) => col.notNull())
    .addColumn("key_hash", "text", (col) => col.notNull().unique())
    .addColumn("created_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .addColumn("last_used_at", "timestamptz")
    .addColumn("revoked_at", "timestamptz")
    .execute();

  await db.schema
    .alterTable("integration_clients")
    .addColumn("provisioned_from_sandbox_client_id", "uuid", (col) => col.unique())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("integration_clients").dropColumn("provisioned_from_sandbox_client_id").execute();
  await db.schema.dropTable("platform_api_keys").execute();
  await db.schema.dropTable("go_live_requests").execute();
}
