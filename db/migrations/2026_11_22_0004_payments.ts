import { type Kysely, sql } from "kysely";

// Money in (transfers and their reconciliation), the event outbox, and the Sandbox clock.
export async function up(db: Kysely<any>): Promise<void> {
  // The Sandbox clock: how far an integration's time is ahead of the real one (it only moves forward).
  await db.schema
    .alterTable("integration_clients")
    .addColumn("clock_offset_ms", "bigint", (c) => c.notNull().defaultTo(0).check(sql`clock_offset_ms >= 0`))
    .execute();

  // The event subscription: payment.unmatched is off by default; an empty list delivers nothing.
  await db.schema
    .alterTable("integration_clients")
    .addColumn("enabled_events", sql`text[]`, (c) => c.notNull().defaultTo(sql`'{payment_request.payment_received,payment_request.expired}'`))
    .execute();

  // One row per bank transfer: the bank's transaction id makes a repeated transfer have one effect.
  await db.schema
    .createTable("transfers")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("transaction_id", "text", (c) => c.notNull().unique())
    .addColumn("amount_cents", "bigint", (c) => c.notNull().check(sql`amount_cents > 0`))
    .addColumn("receiving_cvu", "text", (c) => c.notNull())
    .addColumn("sender_cuil", "text")
    .addColumn("sender_cvu", "text")
    .addColumn("sender_name", "text")
    .addColumn("operated_at", "timestamptz", (c) => c.notNull())
    .addColumn("received_at", "timestamptz", (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull().check(sql`source in ('simulation', 'bank-feed')`))
    .addColumn("charge_id", "uuid", (c) => c.references("charges.id").onDelete("set null"))
    .addColumn("unmatched_reason", "text", (c) =>
      c.check(sql`unmatched_reason in ('expired', 'already_paid', 'canceled', 'no_cuil_match', 'no_pending', 'ambiguous')`),
    )
    .addCheckConstraint("transfers_matched_or_not", sql`(charge_id is null) <> (unmatched_reason is null)`)
    .execute();
  await db.schema.createIndex("transfers_charge").on("transfers").column("charge_id").execute();

  // The outbox: every event is written in the transaction of the change that causes it, then delivered
  // by the job queue. Its id is the X-Service-Webhook-Id, identical across retries.
  await db.schema
    .createTable("events")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("integration_client_id", "uuid", (c) => c.notNull().references("integration_clients.id").onDelete("cascade"))
    .addColumn("merchant_account_id", "uuid", (c) => c.references("merchant_accounts.id").onDelete("cascade"))
    .addColumn("charge_id", "uuid", (c) => c.references("charges.id").onDelete("set null"))
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("payload", "jsonb", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("events_integration").on("events").columns(["integration_client_id", "created_at"]).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("events").execute();
  await db.schema.dropTable("transfers").execute();
  await db.schema.alterTable("integration_clients").dropColumn("clock_offset_ms").dropColumn("enabled_events").execute();
}
