// A CVU's charges are read through its index, whatever the table holds: its newest charge (read by the
// cvu_account_settle trigger at every release of a shared CVU's hold, and by reconciliation's unmatched
// reasons) is the last entry for the CVU, never a sort of every charge the CVU was given (a cuil-mode
// merchant's CVU gathers all its charges); and whether it held a charge of an integration (asked of every
// simulated transfer) is its first entry, never a scan of the charges table.
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscriptionIfCvuHeld } from "../../domain/reconciliation/transfer-rules.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { seedIntegration, seedMerchant } from "../helpers/reconciliation-world.ts";

type PlanNode = { "Node Type": string; "Index Name"?: string; "Relation Name"?: string; "Scan Direction"?: string; Plans?: PlanNode[] };

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

describe("a CVU's newest charge", () => {
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
    await sql`
      insert into charges (integration_client_id, merchant_account_id, reference_id, type, kind, state, amount_cents, description, due_dates,
                           first_due_at, final_due_at, send_whatsapp_notification, send_email_notification, conciliation_type, customer_name,
                           customer_tax_document, cvu_account_id, created_at, updated_at)
      select ${integrationClientId}, ${merchantAccountId}, 'HELD-' || g, 'standard', 'standard', 'pending', 100000, 'Cuota', '{2026-12-10}',
             now() + interval '1 day', now() + interval '1 day', false, false, 'cuil', 'Juan Pérez', '20100399459',
             case when g <= 20000 then ${first!.id}::uuid else ${later!.id}::uuid end, now() - interval '1 day' + g * interval '1 ms', now()
        from generate_series(1, 20100) g`.execute(database.db);
    await sql`analyze charges`.execute(database.db);

    // As the batch asks it of each transfer: its CVU and integration from the batch's arrays.
    const query = sql<{ enabled_events: string[] | null }>`
      select (${subscriptionIfCvuHeld(database.db, sql.ref("a.id"), sql.ref("i.integration"))}) as enabled_events
        from unnest(${[later!.cvu]}::text[], ${[integrationClientId]}::uuid[]) as i(cvu, integration) join cvu_accounts a on a.cvu = i.cvu`.compile(
      database.db,
    );
    const { rows } = await database.pool.query<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(`explain (format json) ${query.sql}`, [...query.parameters]);
    const nodes = nodesOf(rows[0]!["QUERY PLAN"][0]!.Plan);
    expect(nodes).not.toContainEqual(expect.objectContaining({ "Node Type": "Seq Scan", "Relation Name": "charges" }));
    expect(nodes).toContainEqual(expect.objectContaining({ "Index Name": "charges_cvu_account_newest" }));
    const answer = await database.pool.query<{ enabled_events: string[] | null }>(query.sql, [...query.parameters]);
    expect(answer.rows).toHaveLength(1);
    expect(answer.rows[0]!.enabled_events).not.toBeNull();
  });
});
