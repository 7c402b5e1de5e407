import { type Kysely, sql } from "kysely";

// The checkout widget's keys, one row per integration. The publishable key is public and kept in clear
// (the portal shows it); the secret key is kept as its SHA-256 (256 random bits need no slow hash, and the
// hash is looked up by value). A row may hold only allowed origins: they can be set before the keys exist.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("widget_keys")
    .addColumn("integration_client_id", "uuid", (c) => c.primaryKey().references("integration_clients.id").onDelete("cascade"))
    .addColumn("publishable_key", "text", (c) => c.unique())
    .addColumn("secret_key_hash", "text", (c) => c.unique())
    .addColumn("secret_key_last4", "text")
    .addColumn("allowed_origins", sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'::text[]`))
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint("widget_keys_secret_needs_publishable", sql`secret_key_hash is null or publishable_key is not null`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("widget_keys").execute();
}
