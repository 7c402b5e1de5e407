import { type Kysely, sql } from "kysely";

// Admins' password reset links. One row per admin (the unique admin_user_id): a new request replaces the
// row, so only the newest link can work. The token is kept as its SHA-256 only.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("admin_password_resets")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("admin_user_id", "uuid", (c) => c.notNull().unique().references("admin_users.id").onDelete("cascade"))
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("used_at", "timestamptz")
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("admin_password_resets").execute();
}
