// Kysely's repeated statements run as named prepared statements (db/prepared-statements.ts): PostgreSQL keeps
// them per connection and plans them once, and the bounds keep multi-row texts and one-off texts unnamed.
import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openDatabase, type DatabaseHandle } from "../../db/connect.ts";
import { StatementNames } from "../../db/prepared-statements.ts";
import { inGenericPlanStatement, inGenericPlanTransaction } from "../../db/transactions.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";

describe("which statement texts get a name", () => {
  it("names a text with parameters the second time it runs, and keeps that name", () => {
    const names = new StatementNames();
    expect(names.nameFor("select $1", 1)).toBeUndefined();
    const name = names.nameFor("select $1", 1);
    expect(name).toMatch(/^cobro_\d+$/);
    expect(names.nameFor("select $1", 1)).toBe(name);
    expect(names.nameFor("select $1::int", 1)).toBeUndefined();
  });

  it("never names a text without parameters (begin, commit) or with more than 128 (a multi-row insert)", () => {
    const names = new StatementNames();
    for (let run = 0; run < 3; run++) {
      expect(names.nameFor("begin", 0)).toBeUndefined();
      expect(names.nameFor("insert into t values ($1), … ($129)", 129)).toBeUndefined();
    }
    expect(names.nameFor("insert into t values ($1), … ($128)", 128)).toBeUndefined();
    expect(names.nameFor("insert into t values ($1), … ($128)", 128)).toBeDefined();
  });

  it("stops naming new texts at 300, while the named ones keep their names", () => {
    const names = new StatementNames();
    names.nameFor("q0", 1);
    const first = names.nameFor("q0", 1);
    for (let n = 1; n < 300; n++) {
      names.nameFor(`q${n}`, 1);
      expect(names.nameFor(`q${n}`, 1)).toBeDefined();
    }
    names.nameFor("one too many", 1);
    expect(names.nameFor("one too many", 1)).toBeUndefined();
    expect(names.nameFor("q0", 1)).toBe(first);
  });
});

describe("on a connection", () => {
  let database: TestDatabase;
  const opened: DatabaseHandle[] = [];
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    for (const handle of opened) await handle.close();
    await database?.close();
  });
  const open = async (preparedStatements?: boolean) => {
    const handle = await openDatabase({ databaseUrl: database.connectionString, dataDir: "unused", poolSize: 1, preparedStatements });
    opened.push(handle);
    return handle;
  };
  const preparedOnConnection = async (handle: DatabaseHandle) =>
    (await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(handle.db)).rows;
  const lookup = (handle: DatabaseHandle, id: number) =>
    sql<{ n: number; cents: number; day: string }>`select ${id}::int as n, 20000000000::int8 as cents, date '2026-03-01' as day`.execute(handle.db);

  it("runs a repeated statement as a prepared one, with the same values back", async () => {
    const handle = await open();
    const answers = [await lookup(handle, 1), await lookup(handle, 2), await lookup(handle, 3)];
    expect(answers.map((answer) => answer.rows[0])).toEqual([1, 2, 3].map((n) => ({ n, cents: 20_000_000_000, day: "2026-03-01" })));
    const prepared = await preparedOnConnection(handle);
    expect(prepared).toEqual([
      expect.objectContaining({ name: expect.stringMatching(/^cobro_\d+$/), statement: expect.stringContaining("20000000000::int8") }),
    ]);
  });

  it("keeps every statement unnamed when turned off", async () => {
    const handle = await open(false);
    for (let n = 0; n < 3; n++) await lookup(handle, n);
    expect(await preparedOnConnection(handle)).toEqual([]);
  });

  it("keeps a transaction's statements in the transaction, prepared or not", async () => {
    const handle = await open();
    const transactions = await handle.db.transaction().execute(async (trx) => {
      const seen: string[] = [];
      for (let n = 0; n < 4; n++) seen.push((await sql<{ xid: string }>`select pg_current_xact_id()::text as xid, ${n}::int`.execute(trx)).rows[0]!.xid);
      return seen;
    });
    expect(new Set(transactions).size).toBe(1);
    expect((await preparedOnConnection(handle)).map((row) => row.statement)).toEqual([expect.stringContaining("pg_current_xact_id")]);
  });

  it("plans a statement over arrays once in a generic-plan transaction, where left to choose it is planned again for each length", async () => {
    const handle = await open();
    // A statement over arrays whose custom plan knows the array's length, so it always looks the cheaper.
    const overArrays = (db: typeof handle.db, length: number) =>
      sql<{ n: number }>`select count(*)::int as n from unnest(${Array.from({ length }, (_, i) => 1259 + i)}::oid[]) as u(id)
                          cross join lateral (select attname from pg_attribute a where a.attrelid = u.id order by attname desc limit 3) x`.execute(db);
    // The statement over arrays is the only one with `unnest(` in its text (this one's pattern is a parameter).
    const plansOf = async (on: DatabaseHandle) =>
      (
        await sql<{ generic_plans: number; custom_plans: number }>`
          select generic_plans::int, custom_plans::int from pg_prepared_statements where statement like ${"%unnest(%"}`.execute(on.db)
      ).rows;
    for (let run = 1; run <= 8; run++) await overArrays(handle.db, run);
    const leftToChoose = await plansOf(handle);
    expect(leftToChoose).toHaveLength(1);
    expect(leftToChoose[0]!.custom_plans).toBeGreaterThan(5);

    // On a connection of its own (one connection a handle), where the text is new: named from its second run.
    const inGeneric = await open();
    for (let run = 1; run <= 8; run++) await inGenericPlanTransaction(inGeneric.db, (trx) => overArrays(trx, run));
    expect(await plansOf(inGeneric)).toEqual([{ generic_plans: 7, custom_plans: 0 }]);

    // On a handle's batches' connections, whose sessions keep generic plans: the same, without sending the setting.
    const withBatches = await openDatabase({ databaseUrl: database.connectionString, dataDir: "unused", poolSize: 1, genericPlanConnections: 1 });
    opened.push(withBatches);
    const planMode = async (db: typeof handle.db) => (await sql<{ plan_cache_mode: string }>`show plan_cache_mode`.execute(db)).rows[0]!.plan_cache_mode;
    expect([await planMode(withBatches.db), await planMode(withBatches.batches)]).toEqual(["auto", "force_generic_plan"]);
    const sent = vi.spyOn(pg.Client.prototype, "query");
    try {
      for (let run = 1; run <= 8; run++) await inGenericPlanTransaction(withBatches.batches, (trx) => overArrays(trx, run));
      const texts = sent.mock.calls.map(([config]) => (typeof config === "string" ? config : (config as { text: string }).text));
      expect(texts.filter((text) => /plan_cache_mode/.test(text))).toEqual([]);
      expect(texts.filter((text) => text === "begin")).toHaveLength(8);
    } finally {
      sent.mockRestore();
    }
    const plansOnBatches = (
      await sql<{ generic_plans: number; custom_plans: number }>`
        select generic_plans::int, custom_plans::int from pg_prepared_statements where statement like ${"%unnest(%"}`.execute(withBatches.batches)
    ).rows;
    expect(plansOnBatches).toEqual([{ generic_plans: 7, custom_plans: 0 }]);
  });

  it("sends a lone generic-plan statement alone on the batches' connections, its setting held to its own commit; elsewhere in a transaction", async () => {
    const handle = await openDatabase({ databaseUrl: database.connectionString, dataDir: "unused", poolSize: 1, genericPlanConnections: 1 });
    opened.push(handle);
    // The statement sets a value for its transaction only, and reads it back with the plan mode it runs under.
    const lone = (db: typeof handle.db) =>
      sql<{ mode: string; taker: string }>`select current_setting('plan_cache_mode') as mode, set_config('cobro.test_taker', 'me', true) as taker`.execute(db);
    const sent = vi.spyOn(pg.Client.prototype, "query");
    const texts = () => sent.mock.calls.map(([config]) => (typeof config === "string" ? config : (config as { text: string }).text));
    try {
      const onBatches = await inGenericPlanStatement(handle.batches, lone);
      expect(onBatches.rows[0]).toMatchObject({ mode: "force_generic_plan", taker: "me" });
      expect(texts().filter((text) => text === "begin" || text === "commit")).toEqual([]);
      sent.mockClear();
      const onMain = await inGenericPlanStatement(handle.db, lone);
      expect(onMain.rows[0]).toMatchObject({ mode: "force_generic_plan", taker: "me" });
      expect(texts().filter((text) => text === "begin" || text === "commit")).toEqual(["begin", "commit"]);
    } finally {
      sent.mockRestore();
    }
    // Its own transaction ended with it: the value it set is gone on that session.
    const after = await sql<{ taker: string | null }>`select current_setting('cobro.test_taker', true) as taker`.execute(handle.batches);
    expect(after.rows[0]!.taker ?? "").toBe("");
  });
});
