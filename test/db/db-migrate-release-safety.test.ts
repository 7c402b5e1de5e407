// `npm run db:migrate` across a release: it prints each pending migration's release safety, runs the
// expand and contract ones while the previous release serves, and refuses a breaking one then (or an
// unmarked one, older than the marker), unless told the previous release is stopped or none serves
// (docs/operations.md, "Migrations across a release").
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createMigrator, releaseSafetyOf } from "../../db/migrate.ts";
import { migrations } from "../../db/migrations/index.ts";
import { cobroEnv, ROOT, runScript, startCobro, waitForOutput } from "../../scripts/cobro-process.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";

const SCRIPT = join(ROOT, "scripts/db-migrate.ts");
const names = Object.keys(migrations);
/** The first migration to declare its release safety; every later one must. */
const FIRST_MARKED = "2026_11_27_0030_provider_merchant_accounts";
const opened: TestDatabase[] = [];
afterEach(async () => {
  for (const handle of opened.splice(0)) await handle.close();
});

/** A database migrated up to `last` (included): its open handle stands for the previous release, serving. */
async function databaseAt(last: string): Promise<TestDatabase> {
  const database = await createTestDatabase({ migrate: false });
  opened.push(database);
  const { error } = await createMigrator(database.db).migrateTo(last);
  if (error) throw error;
  return database;
}

const applied = async (database: TestDatabase) =>
  (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(database.db)).rows.map((row) => row.name);
const migrate = (database: TestDatabase, args: string[] = []) => runScript(SCRIPT, args, cobroEnv({ DATABASE_URL: database.connectionString }));

describe("npm run db:migrate and the release safety of migrations", () => {
  it("every migration from the first marked one on declares whether it is safe while the previous release serves", () => {
    for (const name of names.slice(names.indexOf(FIRST_MARKED)))
      expect([name, releaseSafetyOf(name)]).toEqual([name, expect.stringMatching(/^(expand|contract|breaking)$/)]);
  });

  it("prints each pending migration's safety and runs expand migrations while the previous release serves", async () => {
    const database = await databaseAt(FIRST_MARKED);
    const pending = names.slice(names.indexOf(FIRST_MARKED) + 1);
    const run = await migrate(database);
    expect(run.code, run.stderr).toBe(0);
    for (const name of pending) expect(run.stdout).toContain(`pending: ${name} (expand: safe while the previous release serves)`);
    expect(run.stdout).toContain(`applied: ${pending.join(", ")}`);
    expect(await applied(database)).toEqual(names);
  });

  it("refuses a breaking migration while the previous release serves, in one line, and runs it once told the release is stopped", async () => {
    const database = await databaseAt(names[names.indexOf(FIRST_MARKED) - 1]!);
    const refused = await migrate(database);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(`pending: ${FIRST_MARKED} (breaking: not safe while the previous release serves)`);
    expect(refused.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(new RegExp(`^cobro: ${FIRST_MARKED} cannot run while a release serves \\(\\d+ Cobro sessions are open`)),
    ]);
    expect(await applied(database)).not.toContain(FIRST_MARKED);

    const run = await migrate(database, ["--previous-release-stopped"]);
    expect(run.code, run.stderr).toBe(0);
    expect(await applied(database)).toEqual(names);
  });

  it("takes an unmarked migration (older than the marker) as breaking: refused while a release serves, run once none does", async () => {
    const unmarked = names[names.indexOf(FIRST_MARKED) - 1]!;
    expect(releaseSafetyOf(unmarked)).toBe("unmarked");
    const database = await databaseAt(names[names.indexOf(unmarked) - 1]!);
    const refused = await migrate(database);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(`pending: ${unmarked} (unmarked: not safe while the previous release serves)`);
    expect(refused.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(new RegExp(`^cobro: ${unmarked}, ${FIRST_MARKED} cannot run while a release serves \\(\\d+ Cobro sessions are open`)),
    ]);
    expect(await applied(database)).not.toContain(unmarked);

    // The release stopped: no Cobro session left on the database (the handle's own are ended).
    const client = new pg.Client({ connectionString: database.connectionString, application_name: "cobro-test" });
    await client.connect();
    try {
      await client.query("select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and application_name = 'cobro'");
      const run = await migrate(database);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain(`pending: ${unmarked} (unmarked: not safe while the previous release serves)`);
      const { rows } = await client.query<{ name: string }>("select name from kysely_migration order by name");
      expect(rows.map((row) => row.name)).toEqual(names);
    } finally {
      await client.end();
    }
  });

  // A worker keeps graphile-worker's LISTEN; an API process serving no admin API keeps only its auth-change LISTEN.
  it.each([
    { release: "worker-only", parts: "worker" },
    { release: "integration-API-only", parts: "integration" },
  ])(
    "counts an idle $release release as serving: the connections it keeps open name themselves",
    async ({ parts }) => {
      const database = await createTestDatabase();
      opened.push(database);
      const dataDir = await mkdtemp(join(tmpdir(), "cobro-migrate-idle-"));
      const release = startCobro({ DATABASE_URL: database.connectionString, COBRO_DATA_DIR: dataDir }, ["--only", parts]);
      // The test's own connection, named apart so that it is not counted.
      const client = new pg.Client({ connectionString: database.connectionString, application_name: "cobro-test" });
      try {
        await waitForOutput(release, /is running/);
        await client.connect();
        // Idle, a release keeps only the connections that are never given back (its LISTENs, the worker's
        // polling): those its pools close after their idle timeout are closed here at once, the test's own too.
        await client.query(`select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and pid <> pg_backend_pid() and state = 'idle' and query not ilike 'listen%'`);
        // The release migrated the database at its start: the first breaking migration is made pending again.
        await client.query("delete from kysely_migration where name >= $1", [FIRST_MARKED]);
        const refused = await migrate(database);
        expect(refused.stderr.trim().split("\n")).toEqual([
          expect.stringMatching(new RegExp(`^cobro: ${FIRST_MARKED} cannot run while a release serves \\(\\d+ Cobro sessions are open`)),
        ]);
        expect(refused.code).toBe(1);
      } finally {
        await client.end().catch(() => undefined);
        release.child.kill("SIGTERM");
        await release.exited;
        await rm(dataDir, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
