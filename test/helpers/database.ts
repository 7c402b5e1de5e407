// A fresh, uniquely named database per test file on the run's PostgreSQL (see test/global-setup.ts),
// migrated and with the job queue's schema; close() drops it.
import { randomBytes } from "node:crypto";
import os from "node:os";
import pg from "pg";
import type { Logger } from "pino";
import { inject } from "vitest";
import { type DatabaseHandle, openDatabase } from "../../db/connect.ts";
import { migrateToLatest } from "../../db/migrate.ts";
import { prepareQueue } from "../../db/job-queue.ts";

export interface TestDatabase extends DatabaseHandle {
  /** The database's name on the shared server. */
  name: string;
}

export interface TestDatabaseOptions {
  /** Run db/migrations and install the queue schema (default true); false gives an empty database. */
  migrate?: boolean;
  logger?: Logger;
  poolSize?: number;
}

export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const adminUrl = inject("databaseAdminUrl");
  const name = `cobro_test_${process.pid}_${randomBytes(4).toString("hex")}`;
  await withAdminClient(adminUrl, (client) => client.query(`create database ${client.escapeIdentifier(name)}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const handle = await openDatabase({
    databaseUrl: url.toString(),
    dataDir: os.tmpdir(), // unused with a URL
    logger: options.logger,
    poolSize: options.poolSize,
  });
  if (options.migrate ?? true) {
    await prepareQueue({ pool: handle.pool, logger: options.logger });
    await migrateToLatest(handle.db, { logger: options.logger });
  }
  let closing: Promise<void> | undefined;
  const close = async () => {
    await handle.close();
    await withAdminClient(adminUrl, (client) => client.query(`drop database if exists ${client.escapeIdentifier(name)} with (force)`));
  };
  return { ...handle, name, close: () => (closing ??= close()) };
}

async function withAdminClient<T>(adminUrl: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}
