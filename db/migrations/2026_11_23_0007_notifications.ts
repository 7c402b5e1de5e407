import { type Kysely, sql } from "kysely";

// Payer notifications: the messages Cobro sends to a charge's payer by email and chat, as an outbox, and
// the unguessable token of each charge's payer page.
export async function up(db: Kysely<any>): Promise<void> {
  // 64 hex characters from two random UUIDs (PostgreSQL draws them from its strong random source): 244
  // random bits. Existing charges get one too.
  await db.schema
    .alterTable("charges")
    .addColumn("payer_page_token", "text", (c) => c.notNull().unique().defaultTo(sql`replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '')`))
    .execute();

  // One row per message. Scheduled messages are written when the charge is created (or a payment asks for
  // a confirmation), in that transaction; a sweep queues those whose time came (in the integration's
  // time: the Sandbox clock), and a job sends each one. `day` is the Argentina day a scheduled message
  // belongs to: one message per charge, kind, channel and day; a payment confirmation is one per transfer
  // and channel.
  await db.schema
    .createTable("notifications")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("charge_id", "uuid", (c) => c.notNull().references("charges.id").onDelete("cascade"))
    .addColumn("integration_client_id", "uuid", (c) => c.notNull().references("integration_clients.id").onDelete("cascade"))
    .addColumn("transfer_id", "uuid", (c) => c.references("transfers.id").onDelete("cascade"))
    .addColumn("channel", "text", (c) => c.notNull().check(sql`channel in ('email', 'whatsapp')`))
    .addColumn("kind", "text", (c) =>
      c.notNull().check(sql`kind in ('initial', 'advance_reminder', 'due_date', 'first_due_date_passed', 'second_due_date', 'payment_confirmation')`),
    )
    .addColumn("day", "date", (c) => c.notNull())
    .addColumn("recipient", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) =>
      c.notNull().defaultTo("scheduled").check(sql`status in ('scheduled', 'queued', 'sending', 'sent', 'simulated', 'failed', 'canceled')`),
    )
    .addColumn("scheduled_for", "timestamptz", (c) => c.notNull())
    .addColumn("queued_at", "timestamptz")
    // When a worker took it to the provider (status `sending`); a claim older than the lease is taken again.
    .addColumn("claimed_at", "timestamptz")
    .addColumn("sent_at", "timestamptz")
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("failure_reason", "text")
    .addColumn("provider_message_id", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint("notifications_confirmation_has_transfer", sql`(kind = 'payment_confirmation') = (transfer_id is not null)`)
    .execute();
  await sql`create unique index notifications_one_per_day on notifications (charge_id, kind, channel, day) where transfer_id is null`.execute(db);
  await sql`create unique index notifications_one_per_transfer on notifications (transfer_id, channel) where transfer_id is not null`.execute(db);
  // The sweep reads only what is still scheduled, by time; the outbox lists an integration's newest first by scheduled_for.
  await sql`create index notifications_due on notifications (scheduled_for) where status = 'scheduled'`.execute(db);
  await db.schema.createIndex("notifications_by_integration").on("notifications").columns(["integration_client_id", "scheduled_for desc"]).execute();
  await db.schema.createIndex("notifications_by_charge").on("notifications").column("charge_id").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("notifications").execute();
  await db.schema.alterTable("charges").dropColumn("payer_page_token").execute();
}
