// Work at first commit (db/transactions.ts), on a real PostgreSQL: what a caller asks to be written with a
// step's change is written by the first transaction of the handle it gave the step that commits, inside it
// (a rollback or a failed COMMIT takes it away too), once, and never by a transaction on the database itself.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql, type Kysely, type Transaction } from "kysely";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { doTakenWork, inTransaction, takeWorkAtFirstCommit, withWorkAtFirstCommit } from "../../db/transactions.ts";
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

describe("work at first commit", () => {
  it("is written once, by the handle's first transaction that commits, not by one that rolls back or by one on the database itself", async () => {
    const work = withWorkAtFirstCommit(db, mark("entry-1"));
    await expect(
      work.db.transaction().execute(async (trx) => {
        await mark("rolled-back")(trx);
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    expect(work.committed).toBe(false);
    await db.transaction().execute(mark("bookkeeping"));
    expect(work.committed).toBe(false);
    await inTransaction(work.db, mark("change"));
    expect(work.committed).toBe(true);
    await work.db.transaction().execute(mark("later"));
    expect(await marks()).toEqual(["bookkeeping", "change", "entry-1", "later"]);
  });

  it("is taken away with a change whose COMMIT fails, and written by the next transaction that commits", async () => {
    await sql`delete from marks`.execute(db);
    const work = withWorkAtFirstCommit(db, mark("entry-2"));
    await expect(
      work.db
        .transaction()
        .setIsolationLevel("read committed")
        .execute(async (trx) => {
          await sql`insert into deferred (key) values ('a'), ('a')`.execute(trx);
        }),
    ).rejects.toMatchObject({ code: "23505" });
    expect(work.committed).toBe(false);
    expect(await marks()).toEqual([]);
    await work.db.transaction().execute(mark("retry"));
    expect(work.committed).toBe(true);
    expect(await marks()).toEqual(["entry-2", "retry"]);
  });

  it("is done once when two transactions of the handle commit side by side", async () => {
    await sql`delete from marks`.execute(db);
    const work = withWorkAtFirstCommit(db, mark("entry-3"));
    await Promise.all([work.db.transaction().execute(mark("one")), work.db.transaction().execute(mark("two"))]);
    expect(await marks()).toEqual(["entry-3", "one", "two"]);
  });

  it("is not done by a transaction after close()", async () => {
    await sql`delete from marks`.execute(db);
    const work = withWorkAtFirstCommit(db, mark("entry-4"));
    work.close();
    await work.db.transaction().execute(mark("after-close"));
    expect(work.committed).toBe(false);
    expect(await marks()).toEqual(["after-close"]);
  });

  it("once taken, is done by the taker's transaction on the database itself and not by the handle's; given back undone when that one fails", async () => {
    await sql`delete from marks`.execute(db);
    expect(takeWorkAtFirstCommit(db)).toBeUndefined();
    const work = withWorkAtFirstCommit(db, mark("entry-6"));
    const taken = takeWorkAtFirstCommit(work.db)!;
    expect(takeWorkAtFirstCommit(work.db)).toBeUndefined();
    // While taken, the handle's own transactions leave it alone.
    await work.db.transaction().execute(mark("handle-while-taken"));
    expect(await marks()).toEqual(["handle-while-taken"]);
    await expect(
      db.transaction().execute(async (trx) => {
        await mark("taker-rolled-back")(trx);
        await taken.run(trx);
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    taken.settle(false);
    expect(work.committed).toBe(false);
    // Given back: taken again, and this time its transaction commits.
    const again = takeWorkAtFirstCommit(work.db)!;
    await db.transaction().execute(async (trx) => {
      await mark("taker")(trx);
      await again.run(trx);
    });
    again.settle(true);
    again.settle(false); // settled once: a later word changes nothing
    expect(work.committed).toBe(true);
    expect(takeWorkAtFirstCommit(work.db)).toBeUndefined();
    await work.db.transaction().execute(mark("handle-after"));
    expect(await marks()).toEqual(["entry-6", "handle-after", "handle-while-taken", "taker"]);
  });

  it("taken from several handles, works of one kind are done by one call with each one's item, in order; the others one by one", async () => {
    await sql`delete from marks`.execute(db);
    const calls: string[][] = [];
    // One statement for all the items, as a batch writes its requests' audit entries.
    const markAll = async (trx: Transaction<Database>, names: string[]) => {
      calls.push(names);
      await sql`insert into marks (name) select unnest(${names}::text[])`.execute(trx);
    };
    let late = "item-2 (as named before commit)";
    const works = [
      withWorkAtFirstCommit(db, mark("item-1"), { doAll: markAll, item: () => "item-1" }),
      withWorkAtFirstCommit(db, mark("plain-work")),
      withWorkAtFirstCommit(db, mark("item-2"), { doAll: markAll, item: () => late }),
    ];
    const taken = works.map((work) => takeWorkAtFirstCommit(work.db));
    late = "item-2";
    await db.transaction().execute(async (trx) => {
      await doTakenWork(trx, [taken[0], undefined, taken[1], taken[2]]);
    });
    expect(calls).toEqual([["item-1", "item-2"]]);
    expect(await marks()).toEqual(["item-1", "item-2", "plain-work"]);
  });

  it("leaves the database it was made from as it was", async () => {
    await sql`delete from marks`.execute(db);
    withWorkAtFirstCommit(db, mark("entry-5"));
    await db.transaction().execute(mark("plain"));
    expect(await marks()).toEqual(["plain"]);
  });
});
