import { type Kysely, sql } from "kysely";

// An unlinked merchant account is hidden from the integration: its charges and events leave the Admin
// lists and its events are not delivered while it is unlinked. An event that occurs while it is unlinked
// is marked so that it stays hidden (never listed, never delivered) after the merchant authorizes again.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("events")
    .addColumn("occurred_while_unlinked", "boolean", (c) => c.notNull().defaultTo(false))
    .execute();
  await sql`alter table event_deliveries drop constraint event_deliveries_not_sent_reason_check`.execute(db);
  await sql`alter table event_deliveries add constraint event_deliveries_not_sent_reason_check check (not_sent_reason in ('not_subscribed', 'no_target', 'merchant_unlinked'))`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`update event_deliveries set not_sent_reason = 'no_target' where not_sent_reason = 'merchant_unlinked'`.execute(db);
  await sql`alter table event_deliveries drop constraint event_deliveries_not_sent_reason_check`.execute(db);
  await sql`alter table event_deliveries add constraint event_deliveries_not_sent_reason_check check (not_sent_reason in ('not_subscribed', 'no_target'))`.execute(
    db,
  );
  await db.schema.alterTable("events").dropColumn("occurred_while_unlinked").execute();
}
