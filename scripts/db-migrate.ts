// `npm run db:migrate`: bring the configured database (DATABASE_URL, or the embedded one in COBRO_DATA_DIR)
// to the latest schema, the job queue's included, and stop. It first prints each pending migration's release
// safety (db/migrate.ts, ReleaseSafety), and refuses one that is not safe while a release still serves (Cobro
// sessions are open on the database) unless told `--previous-release-stopped`.
import { loadConfig, ConfigError } from "../runtime/config.ts";
import { createLogger } from "../runtime/logger.ts";
import { openDatabase } from "../db/connect.ts";
import { CobroStartupError } from "../db/errors.ts";
import { migrateToLatest, pendingMigrations, safeWhileServing, servingSessions } from "../db/migrate.ts";
import { prepareQueue } from "../db/job-queue.ts";

/** A migration refused while a release serves: its one line, said like a configuration error. */
class RefusedWhileServing extends Error {}

try {
  const config = loadConfig(process.env, []);
  const logger = createLogger(config.logLevel, undefined, config.logFormat);
  const previousReleaseStopped = process.argv.includes("--previous-release-stopped");
  // Its sessions are named apart, so that the count of a serving release's sessions leaves them out.
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger, applicationName: "cobro-migrate" });
  try {
    const pending = await pendingMigrations(database.db);
    for (const { name, releaseSafety } of pending)
      process.stdout.write(
        `pending: ${name} (${releaseSafety}: ${safeWhileServing(releaseSafety) ? "safe while the previous release serves" : "not safe while the previous release serves"})\n`,
      );
    const unsafe = pending.filter(({ releaseSafety }) => !safeWhileServing(releaseSafety));
    if (unsafe.length > 0 && !previousReleaseStopped) {
      const sessions = await servingSessions(database.db);
      if (sessions > 0) {
        throw new RefusedWhileServing(
          `${unsafe.map(({ name }) => name).join(", ")} cannot run while a release serves (${sessions} Cobro sessions are open on the database): stop every Cobro process, then run \`npm run db:migrate -- --previous-release-stopped\` (docs/operations.md, "Migrations across a release")`,
        );
      }
    }
    await prepareQueue({ pool: database.pool, logger });
    const applied = await migrateToLatest(database.db, { logger });
    process.stdout.write(applied.length > 0 ? `applied: ${applied.join(", ")}\n` : "the database is up to date\n");
  } finally {
    await database.close();
  }
} catch (error) {
  if (error instanceof ConfigError || error instanceof RefusedWhileServing || error instanceof CobroStartupError) {
    process.stderr.write(`cobro: ${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
