import type { Kysely } from "kysely";

// Throttled guessing (domain/sign-in/credential-throttle.ts): one row per counted key (an account or a
// client address, as its SHA-256) and scope. `forget_at` is when the row stops mattering, so that old
// rows are pruned by one indexed delete.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("credential_failures")
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("key_hash", "text", (c) => c.notNull())
    .addColumn("failures", "integer", (c) => c.notNull())
    .addColumn("last_failed_at", "timestamptz", (c) => c.notNull())
    .addColumn("blocked_until", "timestamptz")
    .addColumn("forget_at", "timestamptz", (c) => c.notNull())
    .addPrimaryKeyConstraint("credential_failures_pkey", ["scope", "key_hash"])
    .execute();
  await db.schema.createIndex("credential_failures_forget_at").on("credential_failures").column("forget_at").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("credential_failures").execute();
}
