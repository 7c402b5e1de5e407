import { type Kysely, sql } from "kysely";
import type { ReleaseSafety } from "./index.ts";

// The time sweep finds what is due in `charge_deadlines` instead of in partial indexes of `charges` on
// `state`: a column in an index predicate makes every change of state write a new entry in each of the
// table's indexes. With no index on `state`, `closed_at` or `updated_at`, closing a charge (the sweep, a
// payment, a cancellation) is a HOT update when its page has room: the sweep's update of 50,000 charges
// wrote 7 WAL records a row (heap and 6 index entries), now one.
// A charge's mark is written when it opens (inserted as pending or partial_payment, or completed from a
// draft) or when its last due date moves while open, by a trigger, whatever writes the charge. Closing a
// charge leaves its mark: the sweep deletes marks once due, with or without a charge still open.
// Release safety (ReleaseSafety, db/migrations/index.ts): a new table filled by triggers on whatever writes charges, the previous release included.
export const releaseSafety: ReleaseSafety = "expand";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create table charge_deadlines (
      -- No foreign key: its check would cost every insert of a charge a second lookup. A mark whose charge
      -- or integration is gone is deleted by the sweep once due, like that of a closed charge.
      charge_id uuid primary key,
      integration_client_id uuid not null,
      -- A draft is discarded a few hours after it was made (due_at = created_at); any other mark is the
      -- charge's last due date (final_due_at).
      draft boolean not null,
      due_at timestamptz not null
    )`.execute(db);
  await sql`create index charge_deadlines_due on charge_deadlines (draft, due_at)`.execute(db);
  // A set-based statement trigger on insert: a bulk create of 100 charges writes its marks in one
  // statement, and a row trigger doubled the cost of inserting a charge.
  await sql`
    create function charge_deadlines_of_inserted() returns trigger language plpgsql as $$
    begin
      insert into charge_deadlines (charge_id, integration_client_id, draft, due_at)
      select id, integration_client_id, state = 'draft', case when state = 'draft' then created_at else final_due_at end
        from inserted where state in ('draft', 'pending', 'partial_payment');
      return null;
    end $$`.execute(db);
  await sql`
    create trigger charges_deadline_on_insert after insert on charges referencing new table as inserted
      for each statement execute function charge_deadlines_of_inserted()`.execute(db);
  await sql`
    create function charge_deadline_mark() returns trigger language plpgsql as $$
    begin
      insert into charge_deadlines (charge_id, integration_client_id, draft, due_at)
      values (new.id, new.integration_client_id, new.state = 'draft', case when new.state = 'draft' then new.created_at else new.final_due_at end)
      on conflict (charge_id) do update set draft = excluded.draft, due_at = excluded.due_at;
      return null;
    end $$`.execute(db);
  // Not on closing (the sweep's million updates call nothing), nor from pending to partial_payment.
  await sql`
    create trigger charges_deadline_on_update after update of state, final_due_at on charges for each row
      when ((new.state in ('pending', 'partial_payment') and (old.state not in ('pending', 'partial_payment') or old.final_due_at <> new.final_due_at))
            or (new.state = 'draft' and old.state <> 'draft'))
      execute function charge_deadline_mark()`.execute(db);
  await sql`
    insert into charge_deadlines (charge_id, integration_client_id, draft, due_at)
    select id, integration_client_id, state = 'draft', case when state = 'draft' then created_at else final_due_at end
      from charges where state in ('draft', 'pending', 'partial_payment')`.execute(db);
  await sql`drop index charges_open_due`.execute(db);
  await sql`drop index charges_drafts`.execute(db);
  // Room on each page for the new versions of its rows, so closing them stays on the page (HOT). Applies
  // to pages written from now on.
  await sql`alter table charges set (fillfactor = 50)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table charges reset (fillfactor)`.execute(db);
  await sql`create index charges_drafts on charges (created_at) where state = 'draft'`.execute(db);
  await sql`create index charges_open_due on charges (final_due_at) where state in ('pending', 'partial_payment')`.execute(db);
  await sql`drop trigger charges_deadline_on_update on charges`.execute(db);
  await sql`drop trigger charges_deadline_on_insert on charges`.execute(db);
  await sql`drop function charge_deadline_mark()`.execute(db);
  await sql`drop function charge_deadlines_of_inserted()`.execute(db);
  await sql`drop table charge_deadlines`.execute(db);
}
