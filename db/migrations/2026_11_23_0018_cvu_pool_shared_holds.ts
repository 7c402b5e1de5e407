import { type Kysely, sql } from "kysely";

// Creates for one merchant no longer queue on its shared CVU's row: a charge joining a CVU that is already
// shared only takes a share lock on it and inserts its hold (domain/cvu-pool/cvu-pool.ts), so the row's
// counter and last charge are no longer written by every create. They are settled whenever the row is
// written (a CVU taken from the free pool, a charge that closes, the time sweep): the counter is the
// count of holds, a CVU without holds is free, and the last charge is the newest charge the CVU was given.
// A release waits for the share locks of creates still joining the CVU, so it counts their holds.
export async function up(db: Kysely<any>): Promise<void> {
  await sql`
    create function cvu_account_settle() returns trigger language plpgsql as $$
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
  // Only a shared CVU's row can be stale (joins do not write it); an exclusive or free one is written with
  // exact figures, so the time sweep's set-based arithmetic on exclusive CVUs pays for no recount.
  await sql`create trigger cvu_accounts_settle before update on cvu_accounts for each row when (old.holding = 'shared') execute function cvu_account_settle()`.execute(
    db,
  );
  // The trigger's newest charge of a CVU, and reconciliation's charges of a CVU.
  await sql`create index charges_cvu_account on charges (cvu_account_id, created_at)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index charges_cvu_account`.execute(db);
  await sql`drop trigger cvu_accounts_settle on cvu_accounts`.execute(db);
  await sql`drop function cvu_account_settle()`.execute(db);
}
