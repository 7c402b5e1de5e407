// The operator commands' database: the configured one (DATABASE_URL, or the embedded one in
// COBRO_DATA_DIR), brought to the latest schema first, closed when the command is done.
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import { openDatabase } from "../db/connect.ts";
import { migrateToLatest } from "../db/migrate.ts";
import { prepareQueue } from "../db/job-queue.ts";
import { ConfigError, type Config } from "../runtime/config.ts";
import { CobroStartupError } from "../db/errors.ts";
import { BackupError } from "../db/embedded-backup.ts";
import { createLogger } from "../runtime/logger.ts";

export async function withConfiguredDatabase<T>(config: Config, work: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  const logger = createLogger(process.env.LOG_LEVEL ?? "warn", undefined, config.logFormat);
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, logger });
  try {
    await prepareQueue({ pool: database.pool, logger });
    await migrateToLatest(database.db, { logger });
    return await work(database.db);
  } finally {
    await database.close();
  }
}

/** One line on standard error and exit status 1. */
export function fail(message: string): never {
  process.stderr.write(`cobro: ${message}\n`);
  process.exit(1);
}

/**
 * How `npm run backup` and `npm run restore` end on an error: what the operator must fix, or a failed file or
 * server step (a full disk, a permission, the server gone), in one line; anything else is a bug, thrown on.
 */
export function failBackupCommand(error: unknown, command: "backup" | "restore"): never {
  if (error instanceof ConfigError || error instanceof CobroStartupError || error instanceof BackupError) fail(error.message);
  if (error instanceof Error && "code" in error) fail(`the ${command} failed: ${error.message}`);
  throw error;
}
