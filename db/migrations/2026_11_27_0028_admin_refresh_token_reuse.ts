import { sql, type Kysely } from "kysely";

// An admin's refresh token is used once. The hashes of used ones are kept for their session's life, so that
// one presented again (a copy used by someone else, or the original after a thief refreshed) ends the
// session instead of being merely refused (domain/sign-in/admin-session.ts).
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("admin_session_used_refresh_tokens")
    .addColumn("token_hash", "text", (c) => c.primaryKey())
    .addColumn("session_id", "uuid", (c) => c.notNull().references("admin_sessions.id").onDelete("cascade"))
    .addColumn("used_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex("admin_session_used_refresh_tokens_session").on("admin_session_used_refresh_tokens").column("session_id").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("admin_session_used_refresh_tokens").execute();
}
