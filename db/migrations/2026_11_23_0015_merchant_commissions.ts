import { sql, type Kysely } from "kysely";

// The money between the parties. Each link carries what its merchant account accepted (the integration's
// commission: the offer when linking, later a commission proposal) and the platform's service commission
// deal applied to it (written by the backfill when the platform changes the deal). Each payment received
// records its breakdown once, in integer cents.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("merchant_links")
    .addColumn("commission_percentage", sql`numeric(5,2)`, (col) => col.notNull().defaultTo(0))
    .addColumn("commission_fixed_cents", "bigint", (col) => col.notNull().defaultTo(0))
    .addColumn("service_commission_percentage", sql`numeric(5,2)`)
    .execute();

  await db.schema
    .createTable("payment_breakdowns")
    .addColumn("transfer_id", "uuid", (col) => col.primaryKey().references("transfers.id"))
    .addColumn("charge_id", "uuid", (col) => col.notNull().references("charges.id"))
    .addColumn("integration_client_id", "uuid", (col) => col.notNull().references("integration_clients.id"))
    .addColumn("merchant_account_id", "uuid", (col) => col.notNull().references("merchant_accounts.id"))
    .addColumn("received_at", "timestamptz", (col) => col.notNull())
    .addColumn("gross_cents", "bigint", (col) => col.notNull())
    .addColumn("integration_commission_cents", "bigint", (col) => col.notNull())
    .addColumn("service_commission_cents", "bigint", (col) => col.notNull())
    .addColumn("merchant_net_cents", "bigint", (col) => col.notNull())
    // The terms in force when the payment arrived.
    .addColumn("integration_commission_percentage", sql`numeric(5,2)`, (col) => col.notNull())
    .addColumn("integration_commission_fixed_cents", "bigint", (col) => col.notNull())
    .addColumn("service_commission_percentage", sql`numeric(5,2)`)
    .addCheckConstraint(
      "payment_breakdowns_parts_sum_to_gross",
      sql`integration_commission_cents + service_commission_cents + merchant_net_cents = gross_cents`,
    )
    .addCheckConstraint(
      "payment_breakdowns_parts_not_negative",
      sql`integration_commission_cents >= 0 and service_commission_cents >= 0 and merchant_net_cents >= 0`,
    )
    .execute();
  await sql`create index payment_breakdowns_by_integration on payment_breakdowns (integration_client_id, received_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("payment_breakdowns").execute();
  await db.schema
    .alterTable("merchant_links")
    .dropColumn("commission_percentage")
    .dropColumn("commission_fixed_cents")
    .dropColumn("service_commission_percentage")
    .execute();
}
