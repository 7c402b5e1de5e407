// How fast the time sweep closes due charges: BENCH_CHARGES pending charges (default 200,000), each holding
// its own CVU, all past their last due date; one runTimeTransitions call closes them, frees the CVUs and
// writes the expired events. Prints the figures. `npm run bench:time` (embedded PostgreSQL in a temp
// folder, or DATABASE_URL).
import { withBenchDatabase } from "./fixtures/bench-database.ts";
import { sql } from "kysely";
import { createIntegrationClient } from "../domain/identity/accounts.ts";
import { runTimeTransitions } from "../domain/charges/time-transitions.ts";

const charges = Number(process.env.BENCH_CHARGES ?? 200_000);
const perMerchant = 100;
// One charge in BENCH_EXPIRING_EVERY has a timed due date (it expires with an event); the rest fall overdue.
const expiringEvery = Number(process.env.BENCH_EXPIRING_EVERY ?? 10);
await withBenchDatabase(async (database) => {
  const db = database.db;
  const { client } = await createIntegrationClient(db, { name: "Bench", companyName: "Bench S.A.", contactEmail: "bench@example.com" });
  const merchants = Math.ceil(charges / perMerchant);
  const started = Date.now();
  await sql`
    insert into merchant_accounts (email, password_hash, fantasy_name, account_holder_name, account_holder_tax_id)
    select 'bench-' || g || '@example.com', 'x', 'Bench ' || g, 'Bench ' || g, '30712345671' from generate_series(1, ${merchants}) g`.execute(db);
  await sql`
    insert into cvu_accounts (merchant_account_id, cvu, holding, open_charges)
    select m.id, lpad((row_number() over ())::text, 22, '0'), 'exclusive', 1
      from merchant_accounts m cross join generate_series(1, ${perMerchant}) g
     where m.email like 'bench-%'
     limit ${charges}`.execute(db);
  await sql`
    insert into charges (integration_client_id, merchant_account_id, reference_id, type, kind, state, amount_cents, description, due_dates,
                         first_due_at, final_due_at, send_whatsapp_notification, send_email_notification, conciliation_type, customer_name,
                         cvu_account_id, created_at, updated_at)
    select ${client.id}, a.merchant_account_id, 'BENCH-' || a.cvu, 'standard',
           case when (row_number() over ()) % ${expiringEvery} = 0 then 'short-lived' else 'standard' end, 'pending', 100000, 'Bench', '{2026-12-10}',
           now() - interval '1 day', now() - interval '1 hour', false, false, 'cvu', 'Bench', a.id, now() - interval '2 days', now()
      from cvu_accounts a`.execute(db);
  await sql`insert into cvu_holds (charge_id, cvu_account_id, payer_key) select id, cvu_account_id, '*' from charges`.execute(db);
  await sql`analyze`.execute(db);
  const seeded = Date.now();

  const sweepStart = process.hrtime.bigint();
  const counts = await runTimeTransitions(db, { now: new Date(), livemode: false, draftLifetimeHours: 6 });
  const sweepMs = Number(process.hrtime.bigint() - sweepStart) / 1e6;
  const again = await runTimeTransitions(db, { now: new Date(), livemode: false, draftLifetimeHours: 6 });

  console.log(`charges seeded:            ${charges} (${((seeded - started) / 1000).toFixed(1)} s)`);
  console.log(`closed in one sweep:       ${counts.closed} in ${sweepMs.toFixed(0)} ms (${Math.round(counts.closed / (sweepMs / 1000))} charges/s)`);
  console.log(`expired events written:    ${counts.expiredEvents} (with their delivery jobs)`);
  console.log(`second sweep (idempotent): ${again.closed} closed`);
});
