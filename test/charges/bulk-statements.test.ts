// A bulk's statements have one text whatever the batch's size, with few enough parameters to run as named
// prepared statements (db/prepared-statements.ts): its rows travel as arrays, not one row of parameters each.
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import type { Database } from "../../db/schema.ts";
import { createChargeBatch } from "../../domain/charges/bulk.ts";
import { validateBulkItems } from "../../domain/charges/charge-rules.ts";
import { cuilCandidatesOfDni } from "../../domain/tax-id.ts";
import { chargeBody } from "../helpers/charges.ts";
import { linkedMerchant, serviceForFile } from "../helpers/service.ts";

const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") }); // 12:00 in Argentina
const pools: pg.Pool[] = [];
afterAll(async () => {
  for (const pool of pools) await pool.end();
});

let dni = 40_000_000;
const item = (extra: Record<string, unknown> = {}) =>
  chargeBody({ amount: 1000, customer: { name: "Juan Pérez", taxDocument: cuilCandidatesOfDni(String(++dni))[0]! }, ...extra });

describe("a bulk's statements", () => {
  it("have the same texts for a batch of 2 and of 5, each with at most 64 parameters", async () => {
    const m = await linkedMerchant(t);
    const first = await m.call("POST", "/payment-request/bulk", { paymentRequests: [item()] });
    expect(first.status, JSON.stringify(first.json)).toBe(201);
    const owner = await t.database.db
      .selectFrom("charges")
      .select(["integration_client_id", "merchant_account_id"])
      .where("batch_id", "=", first.json.batchId)
      .executeTakeFirstOrThrow();
    const pool = new pg.Pool({ connectionString: t.database.connectionString, max: 1 });
    pools.push(pool);
    let statements: Array<{ sql: string; parameters: number }> = [];
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool }),
      log: (event) => void statements.push({ sql: event.query.sql, parameters: event.query.parameters.length }),
    });
    const context = {
      integrationClientId: owner.integration_client_id,
      merchantAccountId: owner.merchant_account_id,
      now: t.clock.now(),
      serviceEnv: "sandbox" as const,
      globalMessageCap: 1000,
      destinationPolicy: { allowLoopback: true },
    };
    const batchOf = async (size: number) => {
      statements = [];
      const items = Array.from({ length: size }, (_, i) =>
        item(i === 0 ? { dueDates: ["2026-12-10", "2026-12-20"], surcharge: { type: "fixed", value: 5 } } : {}),
      );
      const batch = await createChargeBatch(db, context, validateBulkItems(items as never, context.now));
      expect(batch.charges).toHaveLength(size);
      return statements;
    };
    const two = await batchOf(2);
    const five = await batchOf(5);
    expect(five.map((statement) => statement.sql)).toEqual(two.map((statement) => statement.sql));
    for (const statement of five) expect(statement.parameters, statement.sql).toBeLessThanOrEqual(64);
    // The charges are written as a single create writes them: the due dates in their order, the surcharge.
    const surcharged = await t.database.db
      .selectFrom("charges")
      .select(["due_dates", "surcharge_cents", "surcharge"])
      .where("surcharge_cents", ">", 0)
      .orderBy("created_at", "desc")
      .executeTakeFirstOrThrow();
    expect(surcharged).toEqual({ due_dates: ["2026-12-10", "2026-12-20"], surcharge_cents: 500, surcharge: { type: "fixed", value: 5 } });
  });
});
