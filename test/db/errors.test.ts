// What db/errors.ts calls "the database away", met as the driver raises it on a real PostgreSQL: such a
// failure answers 503 with Retry-After (the request may be retried), never 500 or a refusal.
import { afterAll, beforeAll, expect, it } from "vitest";
import { sql, type Kysely } from "kysely";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { isDatabaseUnavailable } from "../../db/errors.ts";
import type { Database } from "../../db/schema.ts";

let database: TestDatabase;
let db: Kysely<Database>;
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
  db = database.db;
});
afterAll(async () => {
  await database?.close();
});

it("a connection whose server went away in a transaction is away for what is still sent on it (Kysely: the connection discarded)", async () => {
  const failures = await db.connection().execute(async (connection) => {
    const seen: unknown[] = [];
    // The server ends the session mid-transaction, as a lost primary does: the rollback fails too.
    await connection
      .transaction()
      .execute((trx) => sql`select pg_terminate_backend(pg_backend_pid())`.execute(trx))
      .catch((error: unknown) => seen.push(error));
    await sql`select 1`.execute(connection).catch((error: unknown) => seen.push(error));
    return seen;
  });
  expect(failures.map((error) => (error as Error).message)).toEqual([expect.any(String), "Postgres connection has been discarded"]);
  for (const error of failures) expect(isDatabaseUnavailable(error), (error as Error).message).toBe(true);
});
