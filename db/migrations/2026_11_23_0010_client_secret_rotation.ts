import type { Kysely } from "kysely";

// Client secret rotation: the secret being replaced may keep working for a grace period, so the
// integration keeps its hash and when that grace ends.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("integration_clients")
    .addColumn("previous_client_secret_hash", "text")
    .addColumn("previous_client_secret_expires_at", "timestamptz")
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("integration_clients").dropColumn("previous_client_secret_hash").dropColumn("previous_client_secret_expires_at").execute();
}
