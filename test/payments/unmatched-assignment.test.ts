// Unmatched money assigned by hand to a charge (domain/reconciliation/assign-unmatched.ts), case by case:
// what the charge becomes from each state, what stays unmatched, who may assign to which charge, and two
// assignments of one payment at once. The ledger's invariants hold after each.
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { assignUnmatchedPayment, type AssignmentScope } from "../../domain/reconciliation/assign-unmatched.ts";
import type { IncomingTransfer } from "../../domain/reconciliation/reconcile.ts";
import { reconcileBatch } from "../../domain/reconciliation/reconcile-batch.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { ledgerViolations, NO_LEDGER_VIOLATIONS } from "../helpers/ledger-invariants.ts";
import { cancelSeeded, seedCharge, seedIntegration, seedMerchant, sweepAt, type ReconciliationWorld } from "../helpers/reconciliation-world.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

const NOW = new Date("2026-11-22T15:00:00Z"); // 12:00 in Argentina
const LATE = new Date("2026-12-11T15:00:00Z"); // past the first due date 2026-12-10: the surcharge applies
const PAST_DUE = new Date("2026-12-21T15:00:00Z"); // past the last due date 2026-12-20: the sweep closes open charges
const ASSIGNED_AT = new Date("2026-12-22T13:00:00Z");
const options = { receivedAt: NOW, livemode: false };
const ADMIN = { kind: "integration_admin" as const, adminUserId: "00000000-0000-4000-8000-000000000001" };

let database: TestDatabase;
let integrationClientId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  integrationClientId = await seedIntegration(database.db);
});
afterAll(async () => database?.close());

const world = () => seedMerchant(database.db, integrationClientId, NOW);
const scopeOf = (w: ReconciliationWorld): AssignmentScope => ({ kind: "integration", integrationClientId: w.integrationClientId });

const charge = (w: ReconciliationWorld, amount = 1000) =>
  seedCharge(w, NOW, {
    referenceId: uniqueRef("REF"),
    description: "Cuota",
    amount,
    dueDates: ["2026-12-10", "2026-12-20"],
    surcharge: { type: "fixed", value: 100 },
    customer: { name: "Juan Pérez" },
    sendWhatsappNotification: false,
    sendEmailNotification: false,
  } as never);

function transfer(cvu: string, amount: number, extra: Partial<IncomingTransfer> = {}): IncomingTransfer {
  return {
    transactionId: uniqueRef("tx"),
    amountCents: Math.round(amount * 100),
    receivingCvu: cvu,
    operatedAt: NOW,
    source: "bank-feed",
    senderCuil: "20301234563",
    ...extra,
  };
}

/** Money sent to a canceled charge's CVU: unresolved unmatched money of the world's merchant account. */
async function unmatchedMoney(w: ReconciliationWorld, amount: number, extra: Partial<IncomingTransfer> = {}): Promise<string> {
  const { charge: canceled, cvu } = await charge(w);
  await cancelSeeded(w, NOW, canceled.reference_id!);
  const [outcome] = await reconcileBatch(database.db, [transfer(cvu, amount, extra)], options);
  if (outcome!.status === "rejected") throw outcome!.reason;
  const row = await database.db.selectFrom("unmatched_payments").select("id").where("transfer_id", "=", outcome!.value.transferId).executeTakeFirstOrThrow();
  return row.id;
}

const assign = (w: ReconciliationWorld, unmatchedPaymentId: string, target: { paymentRequestId?: string; referenceId?: string }, now = ASSIGNED_AT) =>
  assignUnmatchedPayment(database.db, scopeOf(w), unmatchedPaymentId, target, { now, livemode: false, actor: ADMIN });

const chargeNow = (id: string) => database.db.selectFrom("charges").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const eventsOf = (chargeId: string) =>
  database.db.selectFrom("events").select(["id", "type", "payload"]).where("charge_id", "=", chargeId).orderBy("log_position").execute();

describe("assigning unmatched money to a charge", () => {
  it("pays an open charge in full as a transfer would: total_payment, its CVU back, its event and breakdown; the money is assigned", async () => {
    const w = await world();
    const money = await unmatchedMoney(w, 1000);
    const { charge: open, cvu } = await charge(w);
    const result = await assign(w, money, { paymentRequestId: open.id });
    expect(result).toMatchObject({ assignedCents: 100000, charge: { id: open.id, state: "total_payment", paid_cents: 100000 } });
    expect(result.unmatchedPayment).toMatchObject({
      state: "assigned",
      unresolvedAmount: 0,
      resolvedAt: ASSIGNED_AT.toISOString(),
      assignments: [{ paymentRequestId: open.id, referenceId: open.reference_id, amount: 1000, assignedAt: ASSIGNED_AT.toISOString() }],
    });
    expect(await chargeNow(open.id)).toMatchObject({ state: "total_payment", paid_cents: 100000, closed_at: ASSIGNED_AT });
    const [event] = await eventsOf(open.id);
    expect(event).toMatchObject({
      id: result.eventId,
      type: "payment_request.payment_received",
      payload: {
        stateType: "total_payment",
        requestedAmount: 1000,
        paidAmount: 1000,
        thisPaymentAmount: 1000,
        remainingAmount: 0,
        reconciledPayerCuil: 20301234563,
        paidAt: NOW.toISOString(),
      },
    });
    // Its delivery job, added with it, as for any event (delivered when subscribed, like a transfer's).
    const { rows: jobs } = await sql<{ n: number }>`
      select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
       where j.key = ${`deliver-event:${result.eventId}`} and k.identifier = 'deliver-event'`.execute(database.db);
    expect(jobs).toEqual([{ n: 1 }]);
    const breakdown = await database.db.selectFrom("payment_breakdowns").selectAll().where("charge_id", "=", open.id).executeTakeFirstOrThrow();
    expect(breakdown).toMatchObject({ gross_cents: 100000, received_at: ASSIGNED_AT });
    expect(await database.db.selectFrom("cvu_holds").select("charge_id").where("charge_id", "=", open.id).execute()).toEqual([]);
    expect((await database.db.selectFrom("cvu_accounts").select("holding").where("cvu", "=", cvu).executeTakeFirstOrThrow()).holding).toBe("free");
    expect(await ledgerViolations(database.db)).toEqual(NO_LEDGER_VIOLATIONS);
  });

  it("applies only what the charge owed at the transfer's time; the rest stays unresolved, and can be assigned again", async () => {
    const w = await world();
    const money = await unmatchedMoney(w, 1000);
    const { charge: small } = await charge(w, 600);
    const first = await assign(w, money, { referenceId: small.reference_id! });
    expect(first).toMatchObject({ assignedCents: 60000, charge: { state: "total_payment" } });
    expect(first.unmatchedPayment).toMatchObject({ state: "unresolved", amount: 1000, unresolvedAmount: 400 });
    const { charge: other } = await charge(w);
    const second = await assign(w, money, { paymentRequestId: other.id });
    expect(second).toMatchObject({ assignedCents: 40000, charge: { state: "partial_payment", paid_cents: 40000 } });
    expect(second.unmatchedPayment).toMatchObject({ state: "assigned", unresolvedAmount: 0 });
    expect(second.unmatchedPayment.assignments.map((a) => a.amount)).toEqual([600, 400]);
    expect(await ledgerViolations(database.db)).toEqual(NO_LEDGER_VIOLATIONS);
  });

  it("owes with the surcharge a transfer made after the first due date", async () => {
    const w = await world();
    const money = await unmatchedMoney(w, 2000, { operatedAt: LATE });
    const { charge: open } = await charge(w);
    const result = await assign(w, money, { paymentRequestId: open.id });
    expect(result).toMatchObject({ assignedCents: 110000, charge: { state: "total_payment", paid_cents: 110000 } });
    expect(result.unmatchedPayment).toMatchObject({ unresolvedAmount: 900 });
  });

  it("an overdue charge: paid in full it is total_payment; short of that it stays closed as partial_overdue", async () => {
    const w = await world();
    const { charge: full } = await charge(w);
    const { charge: short } = await charge(w);
    await sweepAt(w, PAST_DUE);
    expect((await chargeNow(full.id)).state).toBe("overdue");
    const enough = await unmatchedMoney(w, 1100, { operatedAt: PAST_DUE });
    const notEnough = await unmatchedMoney(w, 300, { operatedAt: PAST_DUE });
    expect(await assign(w, enough, { paymentRequestId: full.id })).toMatchObject({ charge: { state: "total_payment", paid_cents: 110000 } });
    const partly = await assign(w, notEnough, { paymentRequestId: short.id });
    expect(partly).toMatchObject({ assignedCents: 30000, charge: { state: "partial_overdue", paid_cents: 30000 } });
    const closedAt = (await chargeNow(short.id)).closed_at;
    expect(closedAt).not.toBeNull();
    expect(closedAt!.getTime()).toBeLessThan(ASSIGNED_AT.getTime());
    const [event] = (await eventsOf(short.id)).filter((e) => e.type === "payment_request.payment_received");
    expect(event!.payload).toMatchObject({ stateType: "partial_payment", paidAmount: 300, remainingAmount: 800 });
    expect(await ledgerViolations(database.db)).toEqual(NO_LEDGER_VIOLATIONS);
  });

  it("refuses a canceled or paid charge, a draft, another merchant account's charge, another integration's, and money no longer unresolved", async () => {
    const w = await world();
    const money = await unmatchedMoney(w, 500);
    const { charge: canceled } = await charge(w);
    await cancelSeeded(w, NOW, canceled.reference_id!);
    await expect(assign(w, money, { paymentRequestId: canceled.id })).rejects.toMatchObject({ code: "AssignmentPaymentRequestNotPayableError" });
    const { charge: paid, cvu } = await charge(w);
    await reconcileBatch(database.db, [transfer(cvu, 1000)], options);
    await expect(assign(w, money, { paymentRequestId: paid.id })).rejects.toMatchObject({ code: "AssignmentPaymentRequestNotPayableError" });

    const draft = await seedCharge(w, NOW, {
      referenceId: uniqueRef("DRAFT"),
      description: "Cuota",
      dueDates: ["2026-12-10"],
      customer: { name: "Juan Pérez" },
    } as never);
    await expect(assign(w, money, { paymentRequestId: draft.charge.id })).rejects.toMatchObject({ code: "AssignmentPaymentRequestNotPayableError" });

    const neighbour = await seedMerchant(database.db, integrationClientId, NOW);
    const { charge: theirs } = await charge(neighbour);
    await expect(assign(w, money, { paymentRequestId: theirs.id })).rejects.toMatchObject({ code: "AssignmentMerchantMismatchError" });
    // By reference, only the receiving merchant account's charges are looked at.
    await expect(assign(w, money, { referenceId: theirs.reference_id! })).rejects.toMatchObject({ code: "AssignmentPaymentRequestNotFoundError" });
    const elsewhere = await seedMerchant(database.db, await seedIntegration(database.db), NOW);
    const { charge: foreign } = await charge(elsewhere);
    await expect(assign(w, money, { paymentRequestId: foreign.id })).rejects.toMatchObject({ code: "AssignmentPaymentRequestNotFoundError" });
    // The Integration API sees only the token's merchant account's: the neighbour's charge does not exist there.
    const merchantScope: AssignmentScope = { kind: "merchant", integrationClientId, merchantAccountId: w.merchantAccountId };
    await expect(
      assignUnmatchedPayment(
        database.db,
        merchantScope,
        money,
        { paymentRequestId: theirs.id },
        { now: ASSIGNED_AT, livemode: false, actor: { kind: "integration_api" } },
      ),
    ).rejects.toMatchObject({ code: "AssignmentPaymentRequestNotFoundError" });
    const neighbourScope: AssignmentScope = { kind: "merchant", integrationClientId, merchantAccountId: neighbour.merchantAccountId };
    await expect(
      assignUnmatchedPayment(
        database.db,
        neighbourScope,
        money,
        { paymentRequestId: theirs.id },
        { now: ASSIGNED_AT, livemode: false, actor: { kind: "integration_api" } },
      ),
    ).rejects.toMatchObject({ code: "UnmatchedPaymentNotFoundError" });
    await expect(assign(w, money, {})).rejects.toMatchObject({ code: "ValidationError" });
    await expect(assign(w, money, { paymentRequestId: canceled.id, referenceId: canceled.reference_id! })).rejects.toMatchObject({ code: "ValidationError" });

    const { charge: open } = await charge(w);
    await assign(w, money, { paymentRequestId: open.id });
    const { charge: another } = await charge(w);
    await expect(assign(w, money, { paymentRequestId: another.id })).rejects.toMatchObject({ code: "UnmatchedPaymentNotUnresolvedError" });
    expect((await chargeNow(another.id)).paid_cents).toBe(0);
    expect(await ledgerViolations(database.db)).toEqual(NO_LEDGER_VIOLATIONS);
  });

  it("of several assignments of one payment at once, one applies it and the others are refused", async () => {
    const w = await world();
    const money = await unmatchedMoney(w, 800);
    const targets = await Promise.all([1, 2, 3, 4, 5].map(() => charge(w)));
    const settled = await Promise.allSettled(targets.map(({ charge: target }) => assign(w, money, { paymentRequestId: target.id })));
    const won = settled.filter((result) => result.status === "fulfilled");
    expect(won).toHaveLength(1);
    for (const result of settled.filter((result) => result.status === "rejected")) {
      expect(result.reason).toMatchObject({ code: "UnmatchedPaymentNotUnresolvedError" });
    }
    const paid = await database.db
      .selectFrom("charges")
      .select(["id", "paid_cents"])
      .where(
        "id",
        "in",
        targets.map(({ charge: target }) => target.id),
      )
      .where("paid_cents", ">", 0)
      .execute();
    expect(paid).toEqual([{ id: expect.any(String), paid_cents: 80000 }]);
    expect(await ledgerViolations(database.db)).toEqual(NO_LEDGER_VIOLATIONS);
  });
});
