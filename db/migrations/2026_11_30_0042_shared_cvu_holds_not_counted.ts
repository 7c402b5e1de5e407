import { type Kysely, sql } from "kysely";
import type { ReleaseSafety } from "./index.ts";

// A shared CVU's holds are no longer counted whenever its row is written. The settle trigger counted every
// hold of the CVU (count(*) over cvu_holds) at each release: a cuil-mode merchant's CVU gathers all its
// open charges, so each batch of payments that closed some of them read all of them, with the CVU's row
// locked and the merchant's other batches waiting on it (20,000 holds: about 2.5 ms of PostgreSQL's CPU a
// batch, `node bench/reconcile-batch.ts`), a cost that grew with the merchant's open charges. What frees the
// CVU, whether any hold remains, is one probe of cvu_holds_payer_key's index. `open_charges` of a shared
// CVU is 1 while it holds any charge: joins never kept its count (they do not write the row), nothing
// reads it, and the holds are cvu_holds' rows for whoever needs the number. An exclusive CVU's (1) and a
// free one's (0) are as before.
// Release safety (ReleaseSafety, db/migrations/index.ts): the previous release writes a shared CVU's row as
// before and the trigger settles it the new way; it reads no shared CVU's count.
export const releaseSafety: ReleaseSafety = "expand";

export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create or replace function cvu_account_settle() returns trigger language plpgsql as $$
    begin
      if not exists (select from cvu_holds where cvu_account_id = new.id) then
        new.holding := 'free';
        new.open_charges := 0;
      else
        if new.holding = 'free' then
          new.holding := old.holding;
        end if;
        new.open_charges := 1;
      end if;
      new.last_charge_id := coalesce(
        (select c.id from charges c where c.cvu_account_id = new.id order by c.created_at desc, c.id desc limit 1),
        new.last_charge_id);
      return new;
    end $$`.execute(db);
  await sql`update cvu_accounts set open_charges = 1 where holding = 'shared' and open_charges <> 1`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`
    create or replace function cvu_account_settle() returns trigger language plpgsql as $$
    declare
      held integer;
    begin
      select count(*) into held from cvu_holds where cvu_account_id = new.id;
      new.open_charges := held;
      if held = 0 then
        new.holding := 'free';
      elsif new.holding = 'free' then
        new.holding := old.holding;
      end if;
      new.last_charge_id := coalesce(
        (select c.id from charges c where c.cvu_account_id = new.id order by c.created_at desc, c.id desc limit 1),
        new.last_charge_id);
      return new;
    end $$`.execute(db);
  await sql`update cvu_accounts a set open_charges = (select count(*) from cvu_holds h where h.cvu_account_id = a.id) where a.holding = 'shared'`.execute(db);
}
