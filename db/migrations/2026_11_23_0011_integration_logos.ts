import { type Kysely, sql } from "kysely";

// Uploaded integration logos, kept in the database so that every process serves them. One per
// integration; an upload replaces the row, and its new id gives the logo a new address.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("integration_logos")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("integration_client_id", "uuid", (c) => c.notNull().unique().references("integration_clients.id").onDelete("cascade"))
    .addColumn("media_type", "text", (c) => c.notNull())
    .addColumn("content", "bytea", (c) => c.notNull())
    .addColumn("width", "integer", (c) => c.notNull())
    .addColumn("height", "integer", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("integration_logos").execute();
}
