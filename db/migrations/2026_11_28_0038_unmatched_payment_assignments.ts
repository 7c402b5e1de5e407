import { type Kysely, sql } from "kysely";
import type { ReleaseSafety } from "./index.ts";

// Unmatched money assigned by hand to a charge (domain/reconciliation/assign-unmatched.ts): each assignment
// is a payment of the charge made of (part of) an unmatched payment, with its breakdown. A transfer's money
// can now pay two charges (the charge it paid, then its excess assigned to another), so a breakdown is one
// per transfer and charge.
// Release safety (ReleaseSafety, db/migrations/index.ts): a new table, and a wider primary key that the previous release's writes keep.
export const releaseSafety: ReleaseSafety = "expand";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("unmatched_payment_assignments")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    // Insertion order: a payment's assignments of the same instant keep their order.
    .addColumn("seq", "bigint", (c) => c.notNull().generatedAlwaysAsIdentity())
    .addColumn("unmatched_payment_id", "uuid", (c) => c.notNull().references("unmatched_payments.id"))
    .addColumn("charge_id", "uuid", (c) => c.notNull().references("charges.id"))
    .addColumn("amount_cents", "bigint", (c) => c.notNull().check(sql`amount_cents > 0`))
    .addColumn("assigned_at", "timestamptz", (c) => c.notNull())
    // Who assigned it: an integration admin (by id) or the integration's backend through the Integration API.
    .addColumn("actor_kind", "text", (c) => c.notNull().check(sql`actor_kind in ('integration_admin', 'integration_api')`))
    .addColumn("actor_admin_user_id", "uuid")
    .execute();
  await db.schema.createIndex("unmatched_payment_assignments_by_payment").on("unmatched_payment_assignments").column("unmatched_payment_id").execute();
  await db.schema.createIndex("unmatched_payment_assignments_by_charge").on("unmatched_payment_assignments").column("charge_id").execute();
  await sql`alter table payment_breakdowns drop constraint payment_breakdowns_pkey, add primary key (transfer_id, charge_id)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`delete from payment_breakdowns b using unmatched_payment_assignments a join unmatched_payments u on u.id = a.unmatched_payment_id
             where b.transfer_id = u.transfer_id and b.charge_id = a.charge_id`.execute(db);
  await sql`alter table payment_breakdowns drop constraint payment_breakdowns_pkey, add primary key (transfer_id)`.execute(db);
  await db.schema.dropTable("unmatched_payment_assignments").execute();
}
