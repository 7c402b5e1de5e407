// Brings the schema to the latest migration. Safe when several processes start at once: Kysely's Migrator
// holds a PostgreSQL advisory lock (pg_advisory_lock) on one connection while it reads the applied list and
// runs what is missing, inside one transaction; the others wait, then find nothing left to do.
import type { Kysely } from "kysely";
import { type MigrationResult, Migrator } from "kysely/migration";
import type { Logger } from "pino";
import { CobroStartupError } from "./errors.ts";
import { migrations } from "./migrations/index.ts";

export function createMigrator(db: Kysely<any>): Migrator {
  return new Migrator({ db, provider: { getMigrations: async () => migrations } });
}

/** Applies the pending migrations and returns their names; throws a CobroStartupError naming the one that failed. */
export async function migrateToLatest(db: Kysely<any>, options: { logger?: Logger } = {}): Promise<string[]> {
  const { error, results = [] } = await createMigrator(db).migrateToLatest();
  const applied = results.filter((r) => r.status === "Success").map((r) => r.migrationName);
  if (error !== undefined) {
    const failed = results.find((r: MigrationResult) => r.status === "Error")?.migrationName;
    const reason = error instanceof Error ? error.message : String(error);
    throw new CobroStartupError(failed ? `Database migration ${failed} failed: ${reason}` : `Database migrations could not run: ${reason}`, { cause: error });
  }
  // One line at info (what a deploy changed), each migration at debug: a first start applies them all.
  for (const name of applied) options.logger?.debug({ migration: name }, "database migration applied");
  if (applied.length > 0) options.logger?.info({ applied: applied.length, latest: applied.at(-1) }, "database migrations applied");
  return applied;
}
