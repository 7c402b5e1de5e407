import { type Kysely, sql } from "kysely";
import type { ReleaseSafety } from "./index.ts";

// Money that does not match, as a resource: every transfer recorded without being applied to a charge
// (its whole amount, reason as its `unmatched_reason`) and every overpayment's excess (reason
// `overpaid`), one row per transfer, `unresolved` until someone assigns or returns it. Reconciliation
// writes the row in the statement that records the transfer (domain/reconciliation/reconcile-batch.ts).
//
// The money received before this migration is rebuilt from what was recorded then:
// - an unmatched transfer is its `transfers` row; its integration and merchant account are those its
//   `payment.unmatched` event was written for (none when the CVU never held a charge: the platform's);
// - an overpayment's excess is what the `payment_request.payment_received` event of the payment that
//   paid a charge in full carries: `paidAmount` − `requestedAmount` (never more than that transfer), the
//   transfer being the charge's one of that `thisPaymentAmount` and `paidAt` (should two of the charge's
//   transfers have both, they cannot be told apart afterwards: the excess goes to the one of the greater
//   transaction id; its amount and owner are the same either way).
// Release safety (ReleaseSafety, db/migrations/index.ts): new tables.
export const releaseSafety: ReleaseSafety = "expand";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("unmatched_payments")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    // A transfer is unmatched whole or paid a charge with an excess: never both, so one row at most.
    .addColumn("transfer_id", "uuid", (c) => c.notNull().unique().references("transfers.id"))
    .addColumn("reason", "text", (c) =>
      c.notNull().check(sql`reason in ('expired', 'already_paid', 'canceled', 'no_cuil_match', 'no_pending', 'ambiguous', 'overpaid')`),
    )
    .addColumn("amount_cents", "bigint", (c) => c.notNull().check(sql`amount_cents > 0`))
    .addColumn("unresolved_cents", "bigint", (c) => c.notNull())
    // Whose money it is: the integration and merchant account told of it (null: the platform's, a CVU no charge held).
    .addColumn("integration_client_id", "uuid", (c) => c.references("integration_clients.id"))
    .addColumn("merchant_account_id", "uuid", (c) => c.references("merchant_accounts.id"))
    // The charge it concerns: the closed charge its CVU held (expired, already_paid, canceled) or the one it overpaid.
    .addColumn("charge_id", "uuid", (c) => c.references("charges.id"))
    .addColumn("state", "text", (c) =>
      c.notNull().defaultTo("unresolved").check(sql`state in ('unresolved', 'assigned', 'return_requested', 'returned', 'return_failed')`),
    )
    // When the payer made the transfer (the `receivedAt` of `payment.unmatched`), and when Cobro recorded it.
    .addColumn("received_at", "timestamptz", (c) => c.notNull())
    .addColumn("recorded_at", "timestamptz", (c) => c.notNull())
    .addColumn("resolved_at", "timestamptz")
    .addCheckConstraint("unmatched_payments_unresolved_in_amount", sql`unresolved_cents >= 0 and unresolved_cents <= amount_cents`)
    .addCheckConstraint("unmatched_payments_owner_whole", sql`(integration_client_id is null) = (merchant_account_id is null)`)
    .execute();
  await sql`create index unmatched_payments_by_integration on unmatched_payments (integration_client_id, received_at desc, id)`.execute(db);
  await sql`create index unmatched_payments_by_merchant on unmatched_payments (merchant_account_id, received_at desc, id)`.execute(db);
  await sql`create index unmatched_payments_by_time on unmatched_payments (received_at desc, id)`.execute(db);

  await sql`
    with told as (
      select distinct on (e.payload->>'transactionId') e.payload->>'transactionId' as transaction_id, e.integration_client_id, e.merchant_account_id, e.charge_id
        from events e
       where e.type = 'payment.unmatched' and e.merchant_account_id is not null
       order by e.payload->>'transactionId', e.created_at, e.log_position
    )
    insert into unmatched_payments (transfer_id, reason, amount_cents, unresolved_cents, integration_client_id, merchant_account_id, charge_id, received_at, recorded_at)
    select t.id, t.unmatched_reason, t.amount_cents, t.amount_cents, told.integration_client_id, told.merchant_account_id, told.charge_id, t.operated_at, t.received_at
      from transfers t left join told on told.transaction_id = t.transaction_id
     where t.unmatched_reason is not null`.execute(db);

  await sql`
    with paid_in_full as (
      select distinct on (e.charge_id) e.charge_id, e.integration_client_id, e.merchant_account_id,
             round(((e.payload->>'paidAmount')::numeric - (e.payload->>'requestedAmount')::numeric) * 100)::bigint as excess_cents,
             round((e.payload->>'thisPaymentAmount')::numeric * 100)::bigint as payment_cents,
             (e.payload->>'paidAt')::timestamptz as paid_at
        from events e
       where e.type = 'payment_request.payment_received' and e.payload->>'stateType' = 'total_payment' and e.charge_id is not null
       order by e.charge_id, e.created_at, e.log_position
    ), excesses as (
      select distinct on (p.charge_id) t.id as transfer_id, least(p.excess_cents, t.amount_cents) as excess_cents, p.integration_client_id, p.merchant_account_id,
             p.charge_id, t.operated_at, t.received_at
        from paid_in_full p join transfers t on t.charge_id = p.charge_id and t.amount_cents = p.payment_cents and t.operated_at = p.paid_at
       where p.excess_cents > 0
       order by p.charge_id, t.transaction_id desc
    )
    insert into unmatched_payments (transfer_id, reason, amount_cents, unresolved_cents, integration_client_id, merchant_account_id, charge_id, received_at, recorded_at)
    select transfer_id, 'overpaid', excess_cents, excess_cents, integration_client_id, merchant_account_id, charge_id, operated_at, received_at from excesses`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("unmatched_payments").execute();
}
