import { type Kysely, sql } from "kysely";

// Migrations take Kysely<any>: they describe the schema at their own point in time, not today's Database.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("installation")
    .addColumn("singleton", "boolean", (col) => col.primaryKey().defaultTo(true).check(sql`singleton`))
    .addColumn("installation_id", "uuid", (col) => col.notNull().defaultTo(sql`gen_random_uuid()`))
    .addColumn("created_at", "timestamptz", (col) => col.notNull().defaultTo(sql`now()`))
    .execute();
  await db.insertInto("installation").defaultValues().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("installation").execute();
}
