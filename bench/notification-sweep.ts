// How fast the notifications sweep queues what came due at 10:00: BENCH_NOTIFICATIONS scheduled messages
// (default 100,000; half email, half chat) of as many open charges, all due; one queueDueNotifications
// call queues them with one paced send job each. Prints the figures. `node bench/notification-sweep.ts`
// (embedded PostgreSQL in a temp folder, or DATABASE_URL).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { openDatabase } from "../db/connect.ts";
import { migrateToLatest } from "../db/migrate.ts";
import { prepareQueue } from "../db/job-queue.ts";
import { createIntegrationClient } from "../domain/identity/accounts.ts";
import { queueDueNotifications } from "../domain/notifications/due-sweep.ts";

const notifications = Number(process.env.BENCH_NOTIFICATIONS ?? 100_000);
const sendsPerSecond = { email: 20, whatsapp: 80 };
const dataDir = mkdtempSync(join(tmpdir(), "cobro-bench-"));
const database = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir });
try {
  await prepareQueue({ pool: database.pool });
  await migrateToLatest(database.db);
  const db = database.db;
  const { client } = await createIntegrationClient(db, { name: "Bench", companyName: "Bench S.A.", contactEmail: "bench@example.com" });
  const started = Date.now();
  const merchant = await sql<{ id: string }>`
    insert into merchant_accounts (email, password_hash, fantasy_name, account_holder_name, account_holder_tax_id)
    values ('bench@example.com', 'x', 'Bench', 'Bench', '30712345671') returning id`.execute(db);
  await sql`
    insert into charges (integration_client_id, merchant_account_id, reference_id, type, kind, state, amount_cents, description, due_dates,
                         first_due_at, final_due_at, send_whatsapp_notification, send_email_notification, conciliation_type, customer_name,
                         customer_email, created_at, updated_at)
    select ${client.id}, ${merchant.rows[0]!.id}, 'BENCH-' || g, 'standard', 'standard', 'pending', 100000, 'Bench', '{2026-12-10}',
           now() + interval '1 day', now() + interval '1 day', true, true, 'cvu', 'Bench', 'bench-' || g || '@example.com',
           now() - interval '2 days', now()
      from generate_series(1, ${notifications}) g`.execute(db);
  // Each charge's advance reminder, due a minute ago; every other one by chat.
  await sql`
    insert into notifications (charge_id, integration_client_id, channel, kind, day, recipient, scheduled_for)
    select c.id, c.integration_client_id, case when (row_number() over ()) % 2 = 0 then 'whatsapp' else 'email' end, 'advance_reminder',
           (now() at time zone 'America/Argentina/Buenos_Aires')::date, c.customer_email, now() - interval '1 minute'
      from charges c`.execute(db);
  await sql`analyze`.execute(db);
  const seeded = Date.now();

  const sweepStart = process.hrtime.bigint();
  const queued = await queueDueNotifications(db, { now: new Date(), sendsPerSecond });
  const sweepMs = Number(process.hrtime.bigint() - sweepStart) / 1e6;
  const again = await queueDueNotifications(db, { now: new Date(), sendsPerSecond });
  const spread = await sql<{ channel: string; jobs: number; seconds: number }>`
    select n.channel, count(*)::int as jobs, extract(epoch from max(j.run_at) - min(j.run_at))::float as seconds
      from notifications n join graphile_worker.jobs j on j.key = 'send-notification:' || n.id::text
     group by n.channel order by n.channel`.execute(db);

  console.log(`messages seeded:           ${notifications} (${((seeded - started) / 1000).toFixed(1)} s)`);
  console.log(`queued in one sweep:       ${queued} in ${sweepMs.toFixed(0)} ms (${Math.round(queued / (sweepMs / 1000))} messages/s)`);
  for (const row of spread.rows) console.log(`  ${row.channel.padEnd(9)} ${row.jobs} send jobs over ${row.seconds.toFixed(0)} s (${sendsPerSecond[row.channel as "email" | "whatsapp"]}/s)`);
  console.log(`second sweep (idempotent): ${again} queued`);
} finally {
  await database.close();
  rmSync(dataDir, { recursive: true, force: true });
}
