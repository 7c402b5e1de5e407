// Brings the schema to the latest migration. Safe when several processes start at once: Kysely's Migrator
// holds a PostgreSQL advisory lock (pg_advisory_lock) on one connection while it reads the applied list and
// runs what is missing, inside one transaction; the others wait, then find nothing left to do.
import { type Kysely, sql } from "kysely";
import { type MigrationResult, Migrator } from "kysely/migration";
import type { Logger } from "pino";
import { APPLICATION_NAME } from "./connect.ts";
import { CobroStartupError } from "./errors.ts";
import { migrations, type ReleaseSafety } from "./migrations/index.ts";

export type { ReleaseSafety };

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

export function releaseSafetyOf(name: string): ReleaseSafety | "unmarked" {
  return (migrations[name] as { releaseSafety?: ReleaseSafety } | undefined)?.releaseSafety ?? "unmarked";
}

/** True when the migration may run while the previous release serves. */
export function safeWhileServing(safety: ReleaseSafety | "unmarked"): boolean {
  return safety === "expand" || safety === "contract";
}

/** The migrations not yet applied, in order, with what each declares. */
export async function pendingMigrations(db: Kysely<any>): Promise<Array<{ name: string; releaseSafety: ReleaseSafety | "unmarked" }>> {
  const all = await createMigrator(db).getMigrations();
  return all.filter((migration) => migration.executedAt === undefined).map(({ name }) => ({ name, releaseSafety: releaseSafetyOf(name) }));
}

/** Sessions of serving Cobro processes on this database (their application_name), the caller's own excepted when it names itself otherwise. */
export async function servingSessions(db: Kysely<any>): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from pg_stat_activity
     where datname = current_database() and application_name = ${APPLICATION_NAME} and pid <> pg_backend_pid()`.execute(db);
  return rows[0]!.n;
}
