import { type Kysely, sql } from "kysely";

// Charges, the merchant's CVU pool, tenants, and the daily counters of the limits.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("integration_tenants")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("integration_client_id", "uuid", (c) => c.notNull().references("integration_clients.id").onDelete("cascade"))
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("webhook_url", "text", (c) => c.notNull())
    .addColumn("validation_token", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("deleted_at", "timestamptz")
    .execute();
  await sql`create unique index integration_tenants_active_key on integration_tenants (integration_client_id, key) where deleted_at is null`.execute(db);
  await db.schema
    .alterTable("merchant_links")
    .addColumn("tenant_id", "uuid", (c) => c.references("integration_tenants.id"))
    .execute();

  // The merchant's pool: up to 100 CVUs shared by all its integrations. `holding` says how open charges
  // use it: one exclusively (cvu mode) or several distinct payers (cuil mode).
  await sql`create sequence cvu_account_number_seq start 1000001`.execute(db);
  await db.schema
    .createTable("cvu_accounts")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("merchant_account_id", "uuid", (c) => c.notNull().references("merchant_accounts.id").onDelete("cascade"))
    .addColumn("cvu", "text", (c) => c.notNull().unique())
    .addColumn("holding", "text", (c) => c.notNull().defaultTo("free").check(sql`holding in ('free', 'exclusive', 'shared')`))
    .addColumn("open_charges", "integer", (c) => c.notNull().defaultTo(0).check(sql`open_charges >= 0`))
    .addColumn("last_charge_id", "uuid")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex("cvu_accounts_merchant").on("cvu_accounts").columns(["merchant_account_id", "holding"]).execute();

  await db.schema
    .createTable("charges")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("integration_client_id", "uuid", (c) => c.notNull().references("integration_clients.id").onDelete("cascade"))
    .addColumn("merchant_account_id", "uuid", (c) => c.notNull().references("merchant_accounts.id").onDelete("cascade"))
    .addColumn("reference_id", "text", (c) => c.notNull())
    .addColumn("type", "text", (c) => c.notNull().check(sql`type in ('standard', 'checkout')`))
    .addColumn("kind", "text", (c) => c.notNull().check(sql`kind in ('standard', 'draft', 'short-lived', 'checkout')`))
    .addColumn("state", "text", (c) =>
      c.notNull().check(sql`state in ('draft', 'pending', 'partial_payment', 'total_payment', 'overdue', 'partial_overdue', 'canceled')`),
    )
    .addColumn("amount_cents", "bigint", (c) => c.check(sql`amount_cents > 0`))
    .addColumn("surcharge_cents", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("paid_cents", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("due_dates", sql`text[]`, (c) => c.notNull())
    .addColumn("first_due_at", "timestamptz", (c) => c.notNull())
    .addColumn("final_due_at", "timestamptz", (c) => c.notNull())
    .addColumn("surcharge", "jsonb")
    .addColumn("send_whatsapp_notification", "boolean", (c) => c.notNull())
    .addColumn("send_email_notification", "boolean", (c) => c.notNull())
    .addColumn("send_whatsapp_payment_confirmation", "boolean")
    .addColumn("reminder_notification_date", "date")
    .addColumn("deferred_initial_notification_date", "date")
    .addColumn("conciliation_type", "text", (c) => c.notNull().check(sql`conciliation_type in ('cvu', 'cuil')`))
    .addColumn("customer_name", "text", (c) => c.notNull())
    .addColumn("customer_tax_document", "text")
    .addColumn("customer_email", "text")
    .addColumn("customer_phone", "jsonb")
    .addColumn("webhook_url", "text")
    .addColumn("metadata", "jsonb")
    .addColumn("expires_in_minutes", "integer")
    .addColumn("cvu_account_id", "uuid", (c) => c.references("cvu_accounts.id"))
    .addColumn("batch_id", "uuid")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .addColumn("closed_at", "timestamptz")
    .addUniqueConstraint("charges_reference_key", ["integration_client_id", "merchant_account_id", "reference_id"])
    .execute();
  await db.schema.createIndex("charges_listing").on("charges").columns(["integration_client_id", "merchant_account_id", "created_at", "id"]).execute();
  await sql`create index charges_open_due on charges (final_due_at) where state in ('pending', 'partial_payment')`.execute(db);
  await sql`create index charges_drafts on charges (created_at) where state = 'draft'`.execute(db);

  // Who an open charge holds its CVU for: the payer's DNI in cuil mode, '*' (the whole CVU) in cvu mode.
  // The unique key is what makes two simultaneous creates for one payer on one CVU collide.
  await db.schema
    .createTable("cvu_holds")
    .addColumn("charge_id", "uuid", (c) => c.primaryKey().references("charges.id").onDelete("cascade"))
    .addColumn("cvu_account_id", "uuid", (c) => c.notNull().references("cvu_accounts.id").onDelete("cascade"))
    .addColumn("payer_key", "text", (c) => c.notNull())
    .addUniqueConstraint("cvu_holds_payer_key", ["cvu_account_id", "payer_key"])
    .execute();

  // Daily counters of the limits, per Argentina day: chat messages per integration and globally, payer lookups.
  await db.schema
    .createTable("daily_message_usage")
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("day", "date", (c) => c.notNull())
    .addColumn("messages", "integer", (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint("daily_message_usage_pkey", ["scope", "day"])
    .execute();
  await db.schema
    .createTable("integration_limits")
    .addColumn("integration_client_id", "uuid", (c) => c.primaryKey().references("integration_clients.id").onDelete("cascade"))
    .addColumn("max_messages_per_day", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("payer_lookup_usage")
    .addColumn("integration_client_id", "uuid", (c) => c.notNull().references("integration_clients.id").onDelete("cascade"))
    .addColumn("merchant_account_id", "uuid", (c) => c.notNull().references("merchant_accounts.id").onDelete("cascade"))
    .addColumn("day", "date", (c) => c.notNull())
    .addColumn("units", "integer", (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint("payer_lookup_usage_pkey", ["integration_client_id", "merchant_account_id", "day"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ["payer_lookup_usage", "integration_limits", "daily_message_usage", "cvu_holds", "charges", "cvu_accounts"]) {
    await db.schema.dropTable(table).execute();
  }
  await sql`drop sequence cvu_account_number_seq`.execute(db);
  await db.schema.alterTable("merchant_links").dropColumn("tenant_id").execute();
  await db.schema.dropTable("integration_tenants").execute();
}
