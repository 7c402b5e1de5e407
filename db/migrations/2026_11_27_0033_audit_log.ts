import { type Kysely, sql } from "kysely";
import type { ReleaseSafety } from "./index.ts";

// The append-only record of admin actions (domain/audit/). The database itself refuses to change or
// remove an entry: a trigger refuses UPDATE and DELETE of any row and TRUNCATE of the table, whoever
// connects, so that no code path (and no slip in one) can rewrite history. No foreign keys: an entry
// outlives the admin, key or integration it names.
// Release safety (ReleaseSafety, db/migrations/index.ts): a new table.
export const releaseSafety: ReleaseSafety = "expand";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("audit_log")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    // Insertion order: entries of the same instant keep their order in listings.
    .addColumn("seq", "bigint", (c) => c.notNull().generatedAlwaysAsIdentity())
    .addColumn("occurred_at", "timestamptz", (c) => c.notNull())
    .addColumn("api", "text", (c) => c.notNull().check(sql`api in ('admin', 'auth')`))
    .addColumn("operation", "text", (c) => c.notNull())
    .addColumn("method", "text", (c) => c.notNull())
    .addColumn("route", "text", (c) => c.notNull())
    .addColumn("actor_kind", "text", (c) => c.notNull().check(sql`actor_kind in ('platform_admin', 'integration_admin', 'platform_api_key', 'anonymous')`))
    .addColumn("actor_admin_user_id", "uuid")
    .addColumn("actor_platform_api_key_id", "uuid")
    .addColumn("integration_client_id", "uuid")
    .addColumn("targets", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("fields", "jsonb", (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn("changes", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn("client_address", "text", (c) => c.notNull())
    .addColumn("outcome", "text", (c) => c.notNull().check(sql`outcome in ('succeeded', 'refused')`))
    .addColumn("status", "integer", (c) => c.notNull())
    .addColumn("error_code", "text")
    .addColumn("request_id", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("audit_log_by_time").on("audit_log").columns(["occurred_at desc", "seq desc"]).execute();
  await db.schema.createIndex("audit_log_by_integration").on("audit_log").columns(["integration_client_id", "occurred_at desc", "seq desc"]).execute();
  await sql`create function cobro_audit_log_append_only() returns trigger language plpgsql as $$
            begin
              raise exception 'audit_log is append-only: % is refused', tg_op using errcode = 'insufficient_privilege';
            end $$`.execute(db);
  await sql`create trigger audit_log_no_update_or_delete before update or delete on audit_log
            for each row execute function cobro_audit_log_append_only()`.execute(db);
  await sql`create trigger audit_log_no_truncate before truncate on audit_log
            for each statement execute function cobro_audit_log_append_only()`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("audit_log").execute();
  await sql`drop function cobro_audit_log_append_only()`.execute(db);
}
