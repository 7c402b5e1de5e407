// A CVU's newest charge (read by the cvu_account_settle trigger at every release of a shared CVU's hold,
// and by reconciliation's unmatched reasons) is the last entry of an index for the CVU, never a sort of
// every charge the CVU was given: a cuil-mode merchant's CVU gathers all its charges.
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";

type PlanNode = { "Node Type": string; "Index Name"?: string; "Scan Direction"?: string; Plans?: PlanNode[] };

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

describe("a CVU's newest charge", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.close();
  });

  it("is read from the index's last entry for the CVU, without sorting its charges", async () => {
    const plan = await database.db.transaction().execute(async (trx) => {
      // On an empty table a scan of it would do; told not to, the planner shows what the indexes allow, and
      // sorts only if no index gives the order.
      await sql`set local enable_seqscan = off`.execute(trx);
      await sql`set local enable_bitmapscan = off`.execute(trx);
      const { rows } = await sql<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>`
        explain (format json) select c.id from charges c where c.cvu_account_id = ${randomUUID()}::uuid order by c.created_at desc, c.id desc limit 1`.execute(
        trx,
      );
      return rows[0]!["QUERY PLAN"][0]!.Plan;
    });
    const nodes = nodesOf(plan);
    expect(nodes.map((node) => node["Node Type"])).not.toEqual(expect.arrayContaining([expect.stringMatching(/Sort/)]));
    expect(nodes).toContainEqual(expect.objectContaining({ "Index Name": "charges_cvu_account_newest", "Scan Direction": "Backward" }));
  });
});
