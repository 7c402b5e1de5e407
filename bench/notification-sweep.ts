// How fast the notifications sweep queues what came due at 10:00: BENCH_NOTIFICATIONS scheduled messages
// (default 100,000; half email, half chat) of as many open charges, all due; one queueDueNotifications
// call queues them with one paced send job each. Prints the figures. `node bench/notification-sweep.ts`
// (embedded PostgreSQL in a temp folder, or DATABASE_URL).
import { withBenchDatabase } from "./fixtures/bench-database.ts";
import { measureNotificationSweep, notificationSweepLines } from "./fixtures/notification-sweep.ts";

const notifications = Number(process.env.BENCH_NOTIFICATIONS ?? 100_000);
await withBenchDatabase(async (database) => {
  for (const line of notificationSweepLines(await measureNotificationSweep(database.db, notifications))) console.log(line);
});
