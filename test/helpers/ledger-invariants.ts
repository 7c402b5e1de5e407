// The invariants of money and of the CVU pool that must hold after any load, whatever failed during it
// (a killed worker, a lost PostgreSQL primary): each query returns the rows that break one, so [] is right.
import { type Kysely, sql } from "kysely";
import type { Database } from "../../db/schema.ts";

export async function ledgerViolations(db: Kysely<Database>): Promise<Record<string, unknown[]>> {
  // Money: each transfer is applied to exactly one charge or recorded unmatched; paid = the sum of its transfers
  // and of the unmatched money assigned to it.
  const transfersNeitherOrBoth = await sql`select id from transfers where (charge_id is null) = (unmatched_reason is null)`.execute(db);
  const duplicatedTransactions = await sql`select transaction_id from transfers group by transaction_id having count(*) > 1`.execute(db);
  const paidMismatch = await sql`
    select c.id, c.paid_cents, p.transferred
      from charges c
      cross join lateral (select (select coalesce(sum(t.amount_cents), 0) from transfers t where t.charge_id = c.id)
                               + (select coalesce(sum(a.amount_cents), 0) from unmatched_payment_assignments a where a.charge_id = c.id) as transferred) p
     where c.paid_cents <> p.transferred`.execute(db);
  // Unmatched money: an unmatched transfer is unmatched money whole, a paying one never more than it paid;
  // what is unresolved of it is what was neither assigned nor returned (a return in progress counts as
  // returned; a failed one gave its money back).
  const unmatchedUnrecorded = await sql`
    select t.id from transfers t left join unmatched_payments u on u.transfer_id = t.id
     where (t.unmatched_reason is not null and (u.id is null or u.amount_cents <> t.amount_cents or u.reason <> t.unmatched_reason))
        or (t.charge_id is not null and u.id is not null and (u.reason <> 'overpaid' or u.amount_cents > t.amount_cents))
        or u.unresolved_cents <> u.amount_cents - (select coalesce(sum(a.amount_cents), 0) from unmatched_payment_assignments a
                                                    where a.unmatched_payment_id = u.id)
                                               - (select coalesce(sum(r.amount_cents), 0) from unmatched_payment_returns r
                                                   where r.unmatched_payment_id = u.id and r.state in ('requested', 'returned'))`.execute(db);
  // Earnings: a transfer's breakdowns split exactly the money that paid charges, once: what its charge took
  // on arrival (the transfer less an overpayment's excess) and what was assigned of its unmatched money.
  const breakdownsOff = await sql`
    select t.id, split.gross, applied.cents
      from transfers t
      left join unmatched_payments u on u.transfer_id = t.id
     cross join lateral (select coalesce(sum(b.gross_cents), 0) as gross from payment_breakdowns b where b.transfer_id = t.id) split
     cross join lateral (select case when t.charge_id is null then 0 else t.amount_cents - coalesce(u.amount_cents, 0) end
                              + (select coalesce(sum(a.amount_cents), 0) from unmatched_payment_assignments a where a.unmatched_payment_id = u.id) as cents) applied
     where split.gross <> applied.cents`.execute(db);
  // The CVU pool: a CVU-mode hold is alone on its CVU; a payer at most once on a CVU; the counters agree.
  const sharedCvus = await sql`
    select cvu_account_id from cvu_holds group by cvu_account_id
    having count(*) filter (where payer_key = '*') > 0 and count(*) > 1`.execute(db);
  const payerTwice = await sql`select cvu_account_id, payer_key from cvu_holds group by cvu_account_id, payer_key having count(*) > 1`.execute(db);
  // A CVU is free exactly when it holds nothing; an exclusive one holds one charge and counts it; a shared
  // one does not count its holds (1 while it holds any: db/tables/cvu-pool.table.ts).
  const countersOff = await sql`
    select a.id from cvu_accounts a left join cvu_holds h on h.cvu_account_id = a.id
     group by a.id
    having (a.holding = 'free') <> (count(h.charge_id) = 0)
        or (a.holding = 'exclusive' and (count(h.charge_id) <> 1 or a.open_charges <> 1))
        or (a.holding = 'shared' and a.open_charges <> 1)
        or (a.holding = 'free' and a.open_charges <> 0)`.execute(db);
  const openWithoutHold = await sql`
    select c.id from charges c where c.closed_at is null and c.cvu_account_id is not null
       and not exists (select 1 from cvu_holds h where h.charge_id = c.id)`.execute(db);
  return {
    transfersNeitherOrBoth: transfersNeitherOrBoth.rows,
    duplicatedTransactions: duplicatedTransactions.rows,
    paidMismatch: paidMismatch.rows,
    unmatchedUnrecorded: unmatchedUnrecorded.rows,
    breakdownsOff: breakdownsOff.rows,
    sharedCvus: sharedCvus.rows,
    payerTwice: payerTwice.rows,
    countersOff: countersOff.rows,
    openWithoutHold: openWithoutHold.rows,
  };
}

/** What ledgerViolations returns when every invariant holds. */
export const NO_LEDGER_VIOLATIONS = {
  transfersNeitherOrBoth: [],
  duplicatedTransactions: [],
  paidMismatch: [],
  unmatchedUnrecorded: [],
  breakdownsOff: [],
  sharedCvus: [],
  payerTwice: [],
  countersOff: [],
  openWithoutHold: [],
};
