import { type Kysely, sql } from "kysely";

// The integration's offer: the fee shown on the authorization screen to merchant accounts that link.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("integration_clients").addColumn("offer_percentage", sql`numeric(5,2)`).addColumn("offer_fixed_cents", "bigint").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("integration_clients").dropColumn("offer_percentage").dropColumn("offer_fixed_cents").execute();
}
