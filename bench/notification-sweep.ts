// How fast the notifications sweep queues what came due at 10:00: BENCH_NOTIFICATIONS scheduled messages
// (default 100,000; half email, half chat) of as many open charges, all due; one queueDueNotifications
// call queues them with one paced send job each. Prints the figures. `node bench/notification-sweep.ts`
// (embedded PostgreSQL in a temp folder, or DATABASE_URL).
import { withBenchDatabase } from "./fixtures/bench-database.ts";
import { sql } from "kysely";
import { queueDueNotifications } from "../domain/notifications/due-sweep.ts";
import { seedDueMessages } from "./fixtures/due-messages.ts";

const notifications = Number(process.env.BENCH_NOTIFICATIONS ?? 100_000);
const sendsPerSecond = { email: 20, whatsapp: 80 };
await withBenchDatabase(async (database) => {
  const db = database.db;
  const started = Date.now();
  await seedDueMessages(db, notifications, ["email", "whatsapp"]);
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
});
