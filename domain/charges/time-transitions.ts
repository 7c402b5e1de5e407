// Transitions caused by time, each one set-based statement (a million due charges move in one statement,
// not one by one), idempotent, and safe with several processes sweeping at once (row locks: a charge
// another sweeper already moved no longer matches). Each integration's time is its Sandbox clock.
//   pending → overdue, partial_payment → partial_overdue once the last due date has passed (a date-only
//   date at 00:00 Argentina time after it; a date with a time, or a checkout's expiry, at that minute,
//   with the `payment_request.expired` event); the CVU returns to the pool, and payer notifications
//   scheduled from then on are withdrawn. Drafts are discarded after a few hours.
import { ofUnlinkedMerchant } from "../merchants/unlinked-merchants.ts";
import { sql, type RawBuilder } from "kysely";
import { addJobsPerRow, DELIVER_EVENT_KEY_PREFIX, DELIVER_EVENT_TASK } from "../../db/job-queue.ts";

import { inTransaction, type Executor } from "../../db/transactions.ts";

export interface TransitionOptions {
  /** The real time; each integration adds its Sandbox clock offset. */
  now: Date;
  livemode: boolean;
  draftLifetimeHours: number;
  /** Only this integration's charges (the Sandbox clock runs them on advance); all by default. */
  integrationClientId?: string;
}

export interface TransitionCounts {
  closed: number;
  expiredEvents: number;
  draftsDiscarded: number;
}

/** The kinds of charge that expire with a `payment_request.expired` event. */
const EXPIRING_KINDS = sql`('short-lived', 'checkout')`;
/** A column of a closed charge that only its expired event needs (null for the others). */
const expiring = (column: RawBuilder<unknown>) => sql`case when c.kind in ${EXPIRING_KINDS} then ${column} end`;

export async function runTimeTransitions(db: Executor, options: TransitionOptions): Promise<TransitionCounts> {
  const onlyIntegration = options.integrationClientId ? sql`and d.integration_client_id = ${options.integrationClientId}` : sql``;
  // A mark of an integration deleted since is judged by the real time, and deleted.
  const integrationNow = sql`(${options.now}::timestamptz + coalesce(i.clock_offset_ms, 0) * interval '1 millisecond')`;
  return inTransaction(db, async (trx) => {
    const closed = await sql<{ closed: string; expired: string; jobs: string; discarded: string }>`
      with marked as (
        -- What is due, from the charges' marks (db/migrations/2026_11_27_0034_charge_deadlines.ts); a mark
        -- of a charge closed since is only deleted.
        select d.charge_id, d.draft, d.due_at, ${integrationNow} as now
          from charge_deadlines d left join integration_clients i on i.id = d.integration_client_id
         where ((not d.draft and d.due_at <= ${integrationNow})
            or (d.draft and d.due_at <= ${integrationNow} - ${options.draftLifetimeHours} * interval '1 hour')) ${onlyIntegration}
      ), due as (
        update charges c
           set state = case when c.paid_cents > 0 then 'partial_overdue' else 'overdue' end,
               closed_at = ${options.now}, updated_at = ${options.now}
          from marked m
         where c.id = m.charge_id and not m.draft
           and c.state in ('pending', 'partial_payment')
           and c.final_due_at <= m.now
        -- Only what the steps below use, and what the expired event needs only for the charges that expire
        -- with one (a tenth or so): whole rows of a million charges would spill to disk.
        returning c.id, c.state, c.kind, c.final_due_at, c.paid_cents,
                  ${expiring(sql`c.integration_client_id`)} as integration_client_id, ${expiring(sql`c.merchant_account_id`)} as merchant_account_id,
                  ${expiring(sql`c.reference_id`)} as reference_id, ${expiring(sql`c.amount_cents`)} as amount_cents,
                  ${expiring(sql`c.surcharge_cents`)} as surcharge_cents, ${expiring(sql`c.due_dates`)} as due_dates,
                  ${expiring(sql`c.metadata`)} as metadata
      ), released as (
        delete from cvu_holds h using due where h.charge_id = due.id returning h.cvu_account_id, h.payer_key
      ), freed as (
        -- A cvu-mode hold is its CVU's only one (domain/cvu-pool/cvu-pool.ts): its CVU is free. A shared CVU is
        -- settled by its row's trigger: free when no hold is left.
        update cvu_accounts a set open_charges = 0, holding = 'free'
          from released r where a.id = r.cvu_account_id and r.payer_key = '*'
      ), per_shared_cvu as (
        select distinct cvu_account_id from released where payer_key <> '*'
      ), settled as (
        -- Written so that its trigger settles it (it keeps no count of its holds to subtract from).
        update cvu_accounts a set holding = a.holding from per_shared_cvu p where a.id = p.cvu_account_id
      ), withdrawn as (
        -- A closed charge sends nothing more: what it had scheduled from its closing instant on is withdrawn
        -- (domain/notifications/charge-notifications.ts). What came due before it closed stays, so a
        -- Sandbox clock jump over the due date still sends what those days would have.
        update notifications n set status = 'canceled'
          from due
         where n.charge_id = due.id and n.status in ('scheduled', 'queued') and n.kind <> 'payment_confirmation'
           and n.scheduled_for >= due.final_due_at
      ), expired as (
        insert into events (integration_client_id, merchant_account_id, charge_id, type, payload, created_at, occurred_while_unlinked)
        select due.integration_client_id, due.merchant_account_id, due.id, 'payment_request.expired',
               jsonb_build_object(
                 'event', 'payment_request.expired',
                 'stateType', due.state,
                 'livemode', ${options.livemode}::boolean,
                 'referenceId', due.reference_id,
                 'paymentRequestId', due.id,
                 -- Past its last due date, a charge owes the amount plus the surcharge (domain/amount-owed.ts).
                 'requestedAmount', round((due.amount_cents + due.surcharge_cents) / 100.0, 2),
                 'paidAmount', round(due.paid_cents / 100.0, 2),
                 'remainingAmount', round(greatest(due.amount_cents + due.surcharge_cents - due.paid_cents, 0) / 100.0, 2),
                 'dueDate', due.due_dates[array_length(due.due_dates, 1)],
                 'expiredAt', to_char(due.final_due_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
               ) || case when due.metadata is null then '{}'::jsonb else jsonb_build_object('metadata', due.metadata) end,
               ${options.now},
               -- Withheld from the integration for good when its merchant is unlinked now (domain/merchants/unlinked-merchants.ts).
               ${ofUnlinkedMerchant("due")}
          from due where due.kind in ${EXPIRING_KINDS}
        returning id
      ), delivery_jobs as (
        -- Each event's delivery job, in this same statement and in one batch (domain/webhooks/delivery.ts:
        -- one job per event, keyed by it).
        ${addJobsPerRow("expired", DELIVER_EVENT_TASK, "eventId", DELIVER_EVENT_KEY_PREFIX)}
      ), discarded as (
        delete from charges c using marked m
         where c.id = m.charge_id and m.draft and c.state = 'draft' and c.created_at = m.due_at
        returning c.id
      ), unmarked as (
        -- Charges lock before their marks, as the trigger that writes a mark does. A mark moved meanwhile (a
        -- due date changed while the sweep waited for the charge) no longer equals and stays.
        delete from charge_deadlines d using marked m where d.charge_id = m.charge_id and d.draft = m.draft and d.due_at = m.due_at
      )
      select (select count(*) from due) as closed, (select count(*) from expired) as expired, (select count(*) from delivery_jobs) as jobs,
             (select count(*) from discarded) as discarded`.execute(trx);

    const row = closed.rows[0]!;
    return { closed: Number(row.closed), expiredEvents: Number(row.expired), draftsDiscarded: Number(row.discarded) };
  });
}
