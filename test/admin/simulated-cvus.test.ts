// Whose CVU a simulated transfer is sent to (domain/sandbox/simulated-cvus.ts): the questions asked together
// are answered by one statement, each with its own answer, in the order asked.
import type { KyselyPlugin } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SimulatedCvus } from "../../domain/sandbox/simulated-cvus.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { seedCharge, seedIntegration, seedMerchant } from "../helpers/reconciliation-world.ts";
import { chargeBody } from "../helpers/charges.ts";

const NOW = new Date("2026-11-22T15:00:00Z");

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(async () => database?.close());

describe("the ownership check of simulated transfers", () => {
  it("answers the questions of one turn with one statement: an owned CVU with its integration's events; another integration's or an unknown one with nothing", async () => {
    const mine = await seedIntegration(database.db);
    const theirs = await seedIntegration(database.db);
    await database.db
      .updateTable("integration_clients")
      .set({ enabled_events: ["payment_request.payment_received"] })
      .where("id", "=", mine)
      .execute();
    const charge = async (integrationClientId: string) => seedCharge(await seedMerchant(database.db, integrationClientId, NOW), NOW, chargeBody());
    const [own, other] = [await charge(mine), await charge(theirs)];

    let statements = 0;
    const counting: KyselyPlugin = {
      transformQuery: (args) => args.node,
      transformResult: async (args) => {
        statements++;
        return args.result;
      },
    };
    const cvus = new SimulatedCvus(database.db.withPlugin(counting));
    const answers = await Promise.all([
      cvus.enabledEventsIfOwned(own.cvu, mine),
      cvus.enabledEventsIfOwned(other.cvu, mine),
      cvus.enabledEventsIfOwned("0000999000000000000007", mine),
      cvus.enabledEventsIfOwned(other.cvu, theirs),
    ]);
    // The statement, after its transaction's plan setting (one generic plan for every number of questions).
    expect(statements).toBe(2);
    expect(answers[0]).toEqual(["payment_request.payment_received"]);
    expect(answers.slice(1, 3)).toEqual([undefined, undefined]);
    expect(answers[3]).toEqual(expect.arrayContaining(["payment_request.payment_received", "payment_request.expired"]));

    // Asked in a later turn: a statement of its own.
    expect(await cvus.enabledEventsIfOwned(own.cvu, mine)).toEqual(["payment_request.payment_received"]);
    expect(statements).toBe(4);
  });

  it("a statement that fails fails each question it answered, and the next turn asks again", async () => {
    const failing = new SimulatedCvus(
      database.db.withPlugin({
        transformQuery: () => {
          throw new Error("the database is away");
        },
        transformResult: async (args) => args.result,
      }),
    );
    const asked = [
      failing.enabledEventsIfOwned("0000999000000000000008", "00000000-0000-4000-8000-000000000000"),
      failing.enabledEventsIfOwned("0000999000000000000009", "00000000-0000-4000-8000-000000000000"),
    ];
    for (const answer of asked) await expect(answer).rejects.toThrow("the database is away");
    await expect(failing.enabledEventsIfOwned("0000999000000000000008", "00000000-0000-4000-8000-000000000000")).rejects.toThrow("the database is away");
  });
});
