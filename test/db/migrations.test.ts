import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { sql } from "kysely";
import { NO_MIGRATIONS } from "kysely/migration";
import { afterEach, describe, expect, it } from "vitest";
import { openDatabase } from "../../db/connect.ts";
import { CobroStartupError } from "../../db/errors.ts";
import { createMigrator, migrateToLatest } from "../../db/migrate.ts";
import { migrations } from "../../db/migrations/index.ts";
import { prepareQueue } from "../../db/job-queue.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";

const allMigrations = Object.keys(migrations);
const opened: { close(): Promise<void> }[] = [];

async function emptyDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase({ migrate: false });
  opened.push(database);
  return database;
}

async function tablesOf(database: TestDatabase, schema = "public"): Promise<string[]> {
  const { rows } = await sql<{ name: string }>`
    select table_name as name from information_schema.tables where table_schema = ${schema} order by 1
  `.execute(database.db);
  return rows.map((row) => row.name);
}

afterEach(async () => {
  // Reverse order: extra handles on a test database close before the one that drops it.
  for (const handle of opened.splice(0).reverse()) await handle.close();
});

describe("migrations", () => {
  it("lists every file of db/migrations, in name order", () => {
    const folder = fileURLToPath(new URL("../../db/migrations/", import.meta.url));
    const files = readdirSync(folder)
      .filter((file) => file.endsWith(".ts") && file !== "index.ts")
      .map((file) => file.replace(/\.ts$/, ""))
      .sort();
    expect(allMigrations).toEqual(files);
    for (const name of files) expect(name).toMatch(/^\d{4}_\d{2}_\d{2}_\d{4}_[a-z0-9_]+$/);
  });

  it("brings an empty database to the latest schema, then has nothing left to do", async () => {
    const database = await emptyDatabase();
    expect(await tablesOf(database)).toEqual([]);

    expect(await migrateToLatest(database.db)).toEqual(allMigrations);

    expect(await tablesOf(database)).toEqual(expect.arrayContaining(["installation", "kysely_migration"]));
    const installation = await database.db.selectFrom("installation").selectAll().executeTakeFirstOrThrow();
    expect(installation.installation_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await migrateToLatest(database.db)).toEqual([]);
  });

  it("rolls every migration back and forward again", async () => {
    const database = await emptyDatabase();
    await migrateToLatest(database.db);

    const down = await createMigrator(database.db).migrateTo(NO_MIGRATIONS);
    expect(down.error).toBeUndefined();
    expect((await tablesOf(database)).filter((name) => !name.startsWith("kysely_"))).toEqual([]);

    expect(await migrateToLatest(database.db)).toEqual(allMigrations);
  });

  it("is safe when two processes migrate the same empty database at once", async () => {
    const database = await emptyDatabase();
    // A second handle is a second pool and session, as another process would have.
    const other = await openDatabase({ databaseUrl: database.connectionString, dataDir: "unused" });
    opened.push(other);

    await Promise.all([prepareQueue({ pool: database.pool }), prepareQueue({ pool: other.pool })]);
    const [first, second] = await Promise.all([migrateToLatest(database.db), migrateToLatest(other.db)]);

    expect([...first, ...second].sort()).toEqual(allMigrations);
    const { rows } = await sql<{ count: number }>`select count(*) as count from installation`.execute(database.db);
    expect(rows[0]?.count).toBe(1);
    expect(await tablesOf(database, "graphile_worker")).toEqual(expect.arrayContaining(["_private_jobs"]));
  });

  it("2026_11_27_0029 marks the signing secrets it finds as legacy, and leaves no default for the ones written after", async () => {
    const database = await emptyDatabase();
    const migrator = createMigrator(database.db);
    expect((await migrator.migrateTo("2026_11_27_0028_admin_refresh_token_reuse")).error).toBeUndefined();
    const { rows } = await sql<{ id: string }>`
      insert into integration_clients (provider_client_id, client_secret_hash, name, company_name, contact_email)
      values ('legacy-client', 'hash', 'Legacy', 'Legacy SA', 'legacy@example.com') returning id`.execute(database.db);
    const id = rows[0]!.id;
    await sql`insert into webhook_signing_secrets (integration_client_id, secret, created_at) values (${id}, 'v1.test.sealed', now())`.execute(database.db);

    expect(await migrateToLatest(database.db)).toContain("2026_11_27_0029_webhook_signing_secret_scheme");
    const row = await database.db
      .selectFrom("webhook_signing_secrets")
      .select(["secret", "scheme"])
      .where("integration_client_id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ secret: "v1.test.sealed", scheme: "legacy" });
    const second = await sql<{ id: string }>`
      insert into integration_clients (provider_client_id, client_secret_hash, name, company_name, contact_email)
      values ('new-client', 'hash', 'New', 'New SA', 'new@example.com') returning id`.execute(database.db);
    const unsaid = sql`insert into webhook_signing_secrets (integration_client_id, secret, created_at) values (${second.rows[0]!.id}, 'v1.test.x', now())`;
    await expect(unsaid.execute(database.db)).rejects.toThrow(/null value in column "scheme"/);
    const unknown = sql`insert into webhook_signing_secrets (integration_client_id, secret, scheme, created_at) values (${second.rows[0]!.id}, 'v1.test.x', 'other', now())`;
    await expect(unknown.execute(database.db)).rejects.toThrow(/check constraint/);
  });

  it("2026_11_27_0035 orders the events it finds by their age, before every event written after it", async () => {
    const database = await emptyDatabase();
    const migrator = createMigrator(database.db);
    expect((await migrator.migrateTo("2026_11_27_0034_charge_deadlines")).error).toBeUndefined();
    const { rows } = await sql<{ id: string }>`
      insert into integration_clients (provider_client_id, client_secret_hash, name, company_name, contact_email)
      values ('events-client', 'hash', 'Events', 'Events SA', 'events@example.com') returning id`.execute(database.db);
    const client = rows[0]!.id;
    // Written newest first: the log's order must follow their age, not the order of the rows.
    const insert = (age: string) =>
      sql<{ id: string }>`insert into events (integration_client_id, type, payload, created_at)
        values (${client}, 'payment.unmatched', '{}'::jsonb, now() - ${age}::interval) returning id`.execute(database.db);
    const newer = (await insert("1 hour")).rows[0]!.id;
    const older = (await insert("2 hours")).rows[0]!.id;

    expect(await migrateToLatest(database.db)).toContain("2026_11_27_0035_event_log_order");
    const after = (await insert("0 seconds")).rows[0]!.id;
    const { rows: ordered } = await sql<{ id: string }>`select id from events order by log_xid, log_position`.execute(database.db);
    expect(ordered.map((row) => row.id)).toEqual([older, newer, after]);
  });

  it("2026_11_28_0036 counts the webhook URLs registered before it as verified (they kept the events), redirect URIs not", async () => {
    const database = await emptyDatabase();
    const migrator = createMigrator(database.db);
    expect((await migrator.migrateTo("2026_11_27_0035_event_log_order")).error).toBeUndefined();
    const { rows } = await sql<{ id: string }>`
      insert into integration_clients (provider_client_id, client_secret_hash, name, company_name, contact_email)
      values ('urls-client', 'hash', 'Urls', 'Urls SA', 'urls@example.com') returning id`.execute(database.db);
    await sql`insert into client_urls (integration_client_id, url_type, url, created_at, updated_at) values
      (${rows[0]!.id}, 'webhook', 'https://hooks.example.com/a', now() - interval '1 day', now() - interval '1 hour'),
      (${rows[0]!.id}, 'redirect_uri', 'https://app.example.com/cb', now(), now())`.execute(database.db);

    expect(await migrateToLatest(database.db)).toContain("2026_11_28_0036_webhook_url_verified");
    const { rows: urls } = await sql<{ url_type: string; verified: boolean }>`
      select url_type, verified_at = updated_at as verified from client_urls order by url_type desc`.execute(database.db);
    expect(urls).toEqual([
      { url_type: "webhook", verified: true },
      { url_type: "redirect_uri", verified: null },
    ]);
  });

  it("names the failing migration in one readable line", async () => {
    const database = await emptyDatabase();
    await sql`create table installation (x int)`.execute(database.db);

    const failure = await migrateToLatest(database.db).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(CobroStartupError);
    expect((failure as Error).message).toBe(`Database migration ${allMigrations[0]} failed: relation "installation" already exists`);
  });
});
