// How fast the time sweep closes due charges: BENCH_CHARGES pending charges (default 200,000), each holding
// its own CVU, all past their last due date; one runTimeTransitions call closes them, frees the CVUs and
// writes the expired events. Prints the figures. `npm run bench:time` (embedded PostgreSQL in a temp
// folder, or DATABASE_URL), with the sweep's statements and their time per charge. `npm run bench` measures
// it too, with the other figures.
import { withBenchDatabase } from "./fixtures/bench-database.ts";
import { measureTimeSweep, timeSweepLines } from "./fixtures/time-sweep.ts";

const charges = Number(process.env.BENCH_CHARGES ?? 200_000);
// One charge in BENCH_EXPIRING_EVERY has a timed due date (it expires with an event); the rest fall overdue.
const expiringEvery = Number(process.env.BENCH_EXPIRING_EVERY ?? 10);
await withBenchDatabase(async (database) => {
  for (const line of timeSweepLines(await measureTimeSweep(database.db, charges, expiringEvery, database.statements))) console.log(line);
});
