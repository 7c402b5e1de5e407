// The commit work of db/transactions.ts, on a real PostgreSQL: what a request asks to be written with its
// change is written by the first transaction that commits, inside it (a rollback or a failed COMMIT takes
// it away too), once, and never by bookkeeping run outside it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql, type Kysely, type Transaction } from "kysely";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { outsideCommitWork, withCommitWork } from "../../db/transactions.ts";
import type { Database } from "../../db/schema.ts";

let database: TestDatabase;
let db: Kysely<Database>;
beforeAll(async () => {
  database = await createTestDatabase({ migrate: false });
  db = database.db;
  await sql`create table marks (name text not null)`.execute(db);
  // Checked at COMMIT: a transaction that inserts the same key twice fails only when it commits.
  await sql`create table deferred (key text unique deferrable initially deferred)`.execute(db);
});
afterAll(async () => {
  await database?.close();
});

const mark = (name: string) => (trx: Transaction<Database>) => sql`insert into marks (name) values (${name})`.execute(trx).then(() => undefined);
const marks = async () => (await sql<{ name: string }>`select name from marks order by name`.execute(db)).rows.map((row) => row.name);

describe("commit work", () => {
  it("is written once, by the first transaction that commits, not by one that rolls back or by bookkeeping outside it", async () => {
    const committed = await withCommitWork(mark("entry-1"), async (work) => {
      await expect(
        db.transaction().execute(async (trx) => {
          await mark("rolled-back")(trx);
          throw new Error("refused");
        }),
      ).rejects.toThrow("refused");
      expect(work.committed).toBe(false);
      await outsideCommitWork(() => db.transaction().execute(mark("bookkeeping")));
      expect(work.committed).toBe(false);
      await db.transaction().execute(mark("change"));
      await db.transaction().execute(mark("later"));
      return work.committed;
    });
    expect(committed).toBe(true);
    expect(await marks()).toEqual(["bookkeeping", "change", "entry-1", "later"]);
  });

  it("is taken away with a change whose COMMIT fails, and written by the next transaction that commits", async () => {
    await sql`delete from marks`.execute(db);
    await withCommitWork(mark("entry-2"), async (work) => {
      await expect(
        db
          .transaction()
          .setIsolationLevel("read committed")
          .execute(async (trx) => {
            await sql`insert into deferred (key) values ('a'), ('a')`.execute(trx);
          }),
      ).rejects.toMatchObject({ code: "23505" });
      expect(work.committed).toBe(false);
      expect(await marks()).toEqual([]);
      await db.transaction().execute(mark("retry"));
      expect(work.committed).toBe(true);
    });
    expect(await marks()).toEqual(["entry-2", "retry"]);
  });

  it("is not done by a transaction after close()", async () => {
    await sql`delete from marks`.execute(db);
    await withCommitWork(mark("entry-3"), async (work) => {
      work.close();
      await db.transaction().execute(mark("after-close"));
      expect(work.committed).toBe(false);
    });
    expect(await marks()).toEqual(["after-close"]);
  });

  it("does nothing outside withCommitWork", async () => {
    await sql`delete from marks`.execute(db);
    await db.transaction().execute(mark("plain"));
    expect(await marks()).toEqual(["plain"]);
  });
});
