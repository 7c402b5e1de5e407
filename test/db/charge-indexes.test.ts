// A CVU's charges are read through its index, whatever the table holds: its newest charge (read by the
// cvu_account_settle trigger at every release of a shared CVU's hold, and by reconciliation's unmatched
// reasons) is the last entry for the CVU, never a sort of every charge the CVU was given (a cuil-mode
// merchant's CVU gathers all its charges); and whether it held a charge of an integration (asked of every
// simulated transfer) is its first entry, never a scan of the charges table.
import { randomUUID } from "node:crypto";
import { CompiledQuery, sql, type Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedPendingCharges } from "../../bench/fixtures/seeded-charges.ts";
import type { Database } from "../../db/schema.ts";
import { subscriptionIfCvuHeld } from "../../domain/reconciliation/transfer-rules.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { seedIntegration, seedMerchant } from "../helpers/reconciliation-world.ts";

type PlanNode = { "Node Type": string; "Index Name"?: string; "Relation Name"?: string; "Scan Direction"?: string; Plans?: PlanNode[] };

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** Every node of the plan PostgreSQL makes for `query` on `db` (a transaction keeps its `set local`s). */
async function planNodes(db: Kysely<Database>, query: CompiledQuery): Promise<PlanNode[]> {
  const { rows } = await db.executeQuery<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(
    CompiledQuery.raw(`explain (format json) ${query.sql}`, [...query.parameters]),
  );
  return nodesOf(rows[0]!["QUERY PLAN"][0]!.Plan);
}

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

describe("a CVU's newest charge", () => {
  it("is read from the index's last entry for the CVU, without sorting its charges", async () => {
    const nodes = await database.db.transaction().execute(async (trx) => {
      // On an empty table a scan of it would do; told not to, the planner shows what the indexes allow, and
      // sorts only if no index gives the order.
      await sql`set local enable_seqscan = off`.execute(trx);
      await sql`set local enable_bitmapscan = off`.execute(trx);
      return planNodes(
        trx,
        sql`select c.id from charges c where c.cvu_account_id = ${randomUUID()}::uuid order by c.created_at desc, c.id desc limit 1`.compile(trx),
      );
    });
    expect(nodes.map((node) => node["Node Type"])).not.toEqual(expect.arrayContaining([expect.stringMatching(/Sort/)]));
    expect(nodes).toContainEqual(expect.objectContaining({ "Index Name": "charges_cvu_account_newest", "Scan Direction": "Backward" }));
  });
});

describe("whether a CVU held a charge of an integration", () => {
  it("is read from the CVU's index even when its charges are the last rows of the table, never by scanning the table", async () => {
    const integrationClientId = await seedIntegration(database.db);
    const { merchantAccountId } = await seedMerchant(database.db, integrationClientId, new Date());
    const [first, later] = await database.db
      .insertInto("cvu_accounts")
      .values([
        { merchant_account_id: merchantAccountId, cvu: "0000253200000090000011", holding: "shared" },
        { merchant_account_id: merchantAccountId, cvu: "0000253200000090000028", holding: "shared" },
      ])
      .returning(["id", "cvu"])
      .execute();
    // The first CVU holds 20,000 charges; the later one was given its 100 after them, at the table's end.
    const charges = { integrationClientId, merchantAccountId, referencePrefix: "HELD-" };
    await seedPendingCharges(database.db, { ...charges, count: 20_000, cvuAccountId: first!.id });
    await seedPendingCharges(database.db, { ...charges, count: 100, from: 20_001, cvuAccountId: later!.id });
    await sql`analyze charges`.execute(database.db);

    // As the batch asks it of each transfer: its CVU and integration from the batch's arrays.
    const query = sql<{ enabled_events: string[] | null }>`
      select (${subscriptionIfCvuHeld(database.db, sql.ref("a.id"), sql.ref("i.integration"))}) as enabled_events
        from unnest(${[later!.cvu]}::text[], ${[integrationClientId]}::uuid[]) as i(cvu, integration) join cvu_accounts a on a.cvu = i.cvu`.compile(
      database.db,
    );
    const nodes = await planNodes(database.db, query);
    expect(nodes).not.toContainEqual(expect.objectContaining({ "Node Type": "Seq Scan", "Relation Name": "charges" }));
    expect(nodes).toContainEqual(expect.objectContaining({ "Index Name": "charges_cvu_account_newest" }));
    const answer = await database.db.executeQuery<{ enabled_events: string[] | null }>(query);
    expect(answer.rows).toHaveLength(1);
    expect(answer.rows[0]!.enabled_events).not.toBeNull();
  });
});
