// `npm run db:migrate`: bring the configured database (DATABASE_URL, or the embedded one in COBRO_DATA_DIR)
// to the latest schema, the job queue's included, and stop.
import { loadConfig, ConfigError } from "../runtime/config.ts";
import { createLogger } from "../runtime/logger.ts";
import { openDatabase } from "../db/connect.ts";
import { CobroStartupError } from "../db/errors.ts";
import { migrateToLatest } from "../db/migrate.ts";
import { prepareQueue } from "../db/job-queue.ts";

try {
  const config = loadConfig(process.env, []);
  const logger = createLogger(config.logLevel, undefined, config.logFormat);
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger });
  try {
    await prepareQueue({ pool: database.pool, logger });
    const applied = await migrateToLatest(database.db, { logger });
    process.stdout.write(applied.length > 0 ? `applied: ${applied.join(", ")}\n` : "the database is up to date\n");
  } finally {
    await database.close();
  }
} catch (error) {
  if (error instanceof ConfigError || error instanceof CobroStartupError) {
    process.stderr.write(`cobro: ${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
