// Unmatched money sent back to where it came from (domain/reconciliation/return-unmatched.ts), case by case:
// the request and its job, the Sandbox's bank completing it a moment later (the job's run_at, never a sleep)
// or refusing it, a failed return retried, the Idempotency-Key, who may return what, and returns and
// assignments of one payment at once. The ledger's invariants hold after each.
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { returnUnmatchedPaymentJobKey } from "../../db/job-queue.ts";
import { ManualClock } from "../../domain/clock.ts";
import type { BankTransfers } from "../../domain/outbound/bank-transfers.ts";
import { SANDBOX_RETURN_DELAY_MS, SANDBOX_RETURN_FAILURE, sandboxBank } from "../../domain/outbound/sandbox-bank.ts";
import { assignUnmatchedPayment } from "../../domain/reconciliation/assign-unmatched.ts";
import { reconcileBatch } from "../../domain/reconciliation/reconcile-batch.ts";
import type { IncomingTransfer } from "../../domain/reconciliation/reconcile.ts";
import { requestReturn, settleReturn, type ReturnActor } from "../../domain/reconciliation/return-unmatched.ts";
import type { UnmatchedPaymentScope } from "../../domain/reconciliation/unmatched-payments.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { ledgerViolations, NO_LEDGER_VIOLATIONS } from "../helpers/ledger-invariants.ts";
import { cancelSeeded, seedCharge, seedIntegration, seedMerchant, type ReconciliationWorld } from "../helpers/reconciliation-world.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

const NOW = new Date("2026-11-22T15:00:00Z");
const ASKED_AT = new Date("2026-11-23T13:00:00Z");
const ADMIN = { kind: "integration_admin" as const, adminUserId: "00000000-0000-4000-8000-000000000001" };
const PLATFORM: ReturnActor = { kind: "platform_admin", adminUserId: "00000000-0000-4000-8000-000000000002" };
const SENDER_CVU = "0000003100000000000017";

let database: TestDatabase;
let integrationClientId: string;
const clock = new ManualClock(ASKED_AT);

beforeAll(async () => {
  database = await createTestDatabase();
  integrationClientId = await seedIntegration(database.db);
});
afterAll(async () => database?.close());

const world = () => seedMerchant(database.db, integrationClientId, NOW);
const scopeOf = (w: ReconciliationWorld): UnmatchedPaymentScope => ({ kind: "integration", integrationClientId: w.integrationClientId });

const charge = (w: ReconciliationWorld, amount = 1000) =>
  seedCharge(w, NOW, {
    referenceId: uniqueRef("REF"),
    description: "Cuota",
    amount,
    dueDates: ["2026-12-10"],
    customer: { name: "Juan Pérez" },
    sendWhatsappNotification: false,
    sendEmailNotification: false,
  } as never);

function transfer(cvu: string, amount: number): IncomingTransfer {
  return {
    transactionId: uniqueRef("tx"),
    amountCents: Math.round(amount * 100),
    receivingCvu: cvu,
    operatedAt: NOW,
    source: "bank-feed",
    senderCuil: "20301234563",
    senderCvu: SENDER_CVU,
  };
}

async function unmatchedPaymentOf(cvu: string, amount: number): Promise<string> {
  const [outcome] = await reconcileBatch(database.db, [transfer(cvu, amount)], { receivedAt: NOW, livemode: false });
  if (outcome!.status === "rejected") throw outcome!.reason;
  const row = await database.db.selectFrom("unmatched_payments").select("id").where("transfer_id", "=", outcome!.value.transferId).executeTakeFirstOrThrow();
  return row.id;
}

/** Money sent to a canceled charge's CVU: unresolved unmatched money of the world's merchant account. */
async function unmatchedMoney(w: ReconciliationWorld, amount: number): Promise<string> {
  const { charge: canceled, cvu } = await charge(w);
  await cancelSeeded(w, NOW, canceled.reference_id!);
  return unmatchedPaymentOf(cvu, amount);
}

const ask = (
  scope: UnmatchedPaymentScope,
  id: string,
  request: { idempotencyKey?: string; simulateFailure?: boolean } = {},
  serviceEnv: "sandbox" | "production" = "sandbox",
) =>
  requestReturn(
    database.db,
    scope,
    id,
    { idempotencyKey: request.idempotencyKey ?? randomUUID(), simulateFailure: request.simulateFailure },
    {
      now: clock.now(),
      serviceEnv,
      actor: scope.kind === "platform" ? PLATFORM : ADMIN,
    },
  );

const settle = (returnId: string) => settleReturn({ db: database.db, clock, bank: sandboxBank, livemode: false }, returnId);

const returnRow = (id: string) =>
  database.db.selectFrom("unmatched_payment_returns").select(["state", "attempts", "bank_transfer_id"]).where("id", "=", id).executeTakeFirstOrThrow();
const paymentRow = (id: string) => database.db.selectFrom("unmatched_payments").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const jobOf = async (returnId: string) =>
  (
    await sql<{ run_at: Date; task: string }>`
      select j.run_at, k.identifier as task from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
       where j.key = ${returnUnmatchedPaymentJobKey(returnId)}`.execute(database.db)
  ).rows;
const eventsOf = (type: string, unmatchedPaymentId: string) =>
  database.db
    .selectFrom("events")
    .select(["id", "type", "payload", "integration_client_id"])
    .where("type", "=", type as never)
    .where(sql<boolean>`payload->>'unmatchedPaymentId' = ${unmatchedPaymentId}`)
    .execute();

describe("returning unmatched money", () => {
  it("asks for the whole unresolved amount at once and leaves nothing unresolved; the Sandbox's bank returns it a moment later, with payment.returned", async () => {
    const w = await world();
    const money = await unmatchedMoney(w, 700);
    const asked = await ask(scopeOf(w), money);
    expect(asked.paymentReturn).toEqual({
      returnId: expect.any(String),
      amount: 700,
      state: "requested",
      toCvu: SENDER_CVU,
      toCuil: "20301234563",
      requestedAt: ASKED_AT.toISOString(),
    });
    expect(asked.unmatchedPayment).toMatchObject({
      state: "return_requested",
      unresolvedAmount: 0,
      resolvedAt: ASKED_AT.toISOString(),
      returns: [asked.paymentReturn],
    });
    const { returnId } = asked.paymentReturn;
    // The bank is asked by a job, after the request committed.
    expect(await jobOf(returnId)).toEqual([{ run_at: expect.any(Date), task: "return-unmatched-payment" }]);
    expect(await ledgerViolations(database.db)).toEqual(NO_LEDGER_VIOLATIONS);

    // A bank that cannot be reached: the job is retried with the queue's backoff; each asking is counted.
    const unreachable: BankTransfers = {
      send: async () => ({ outcome: "temporary_failure", reason: "could not reach the bank (ECONNREFUSED)" }),
      check: async () => ({ outcome: "temporary_failure", reason: "could not reach the bank (ECONNREFUSED)" }),
      close: async () => undefined,
    };
    expect(await settleReturn({ db: database.db, clock, bank: unreachable, livemode: false }, returnId)).toEqual({
      kind: "retry",
      reason: "could not reach the bank (ECONNREFUSED)",
    });
    expect(await returnRow(returnId)).toEqual({ state: "requested", attempts: 1, bank_transfer_id: null });

    // The job's next run: the bank takes it, and its completion is checked a moment later (the job again, at that run_at).
    const taken = await settle(returnId);
    expect(taken).toEqual({ kind: "pending", checkAt: new Date(ASKED_AT.getTime() + SANDBOX_RETURN_DELAY_MS) });
    expect(await jobOf(returnId)).toEqual([{ run_at: new Date(ASKED_AT.getTime() + SANDBOX_RETURN_DELAY_MS), task: "return-unmatched-payment" }]);
    expect((await paymentRow(money)).state).toBe("return_requested");
    const asPending = await returnRow(returnId);
    expect(asPending).toEqual({ state: "requested", attempts: 2, bank_transfer_id: expect.any(String) });

    clock.advance(SANDBOX_RETURN_DELAY_MS);
    const done = await settle(returnId);
    expect(done).toEqual({ kind: "returned", eventId: expect.any(String) });
    expect(await returnRow(returnId)).toEqual({ state: "returned", attempts: 3, bank_transfer_id: asPending.bank_transfer_id });
    const payment = await paymentRow(money);
    expect(payment).toMatchObject({ state: "returned", unresolved_cents: 0 });
    const [event] = await eventsOf("payment.returned", money);
    expect(event).toMatchObject({
      id: done.kind === "returned" ? done.eventId : "",
      integration_client_id: w.integrationClientId,
      payload: {
        event: "payment.returned",
        livemode: false,
        unmatchedPaymentId: money,
        returnId,
        amount: 700,
        toCvu: SENDER_CVU,
        toCuil: "20301234563",
        reason: "canceled",
        returnedAt: clock.now().toISOString(),
      },
    });
    // Its delivery job, as for any event (delivered only when subscribed).
    const { rows } = await sql<{ n: number }>`select count(*)::int as n from graphile_worker._private_jobs where key = ${`deliver-event:${event!.id}`}`.execute(
      database.db,
    );
    expect(rows).toEqual([{ n: 1 }]);
    // Settled: a late run of the job does nothing.
    expect(await settle(returnId)).toEqual({ kind: "settled" });
    expect(await ledgerViolations(database.db)).toEqual(NO_LEDGER_VIOLATIONS);
  });

  it("a return forced to fail ends failed with the bank's reason and payment.return_failed; its money is unresolved again, and a new request returns it", async () => {
    const w = await world();
    const money = await unmatchedMoney(w, 350.25);
    const failing = await ask(scopeOf(w), money, { simulateFailure: true });
    expect(failing.paymentReturn).toMatchObject({ state: "requested", simulatedFailure: true });
    await settle(failing.paymentReturn.returnId);
    const failed = await settle(failing.paymentReturn.returnId);
    expect(failed).toEqual({ kind: "failed", reason: SANDBOX_RETURN_FAILURE, eventId: expect.any(String) });
    expect(await paymentRow(money)).toMatchObject({ state: "return_failed", unresolved_cents: 35025, resolved_at: null });
    const [event] = await eventsOf("payment.return_failed", money);
    expect(event!.payload).toMatchObject({
      event: "payment.return_failed",
      amount: 350.25,
      failureReason: SANDBOX_RETURN_FAILURE,
      failedAt: expect.any(String),
    });
    expect(await ledgerViolations(database.db)).toEqual(NO_LEDGER_VIOLATIONS);

    const retried = await ask(scopeOf(w), money);
    expect(retried.paymentReturn).toMatchObject({ state: "requested", amount: 350.25 });
    expect(retried.unmatchedPayment.returns.map((item) => item.state)).toEqual(["failed", "requested"]);
    expect(retried.unmatchedPayment.returns[0]).toMatchObject({ failureReason: SANDBOX_RETURN_FAILURE, completedAt: expect.any(String) });
    await settle(retried.paymentReturn.returnId);
    expect(await settle(retried.paymentReturn.returnId)).toMatchObject({ kind: "returned" });
    expect(await paymentRow(money)).toMatchObject({ state: "returned", unresolved_cents: 0 });
    expect(await ledgerViolations(database.db)).toEqual(NO_LEDGER_VIOLATIONS);
  });

  it("a failed return's money can be assigned to a charge instead", async () => {
    const w = await world();
    const money = await unmatchedMoney(w, 400);
    const failing = await ask(scopeOf(w), money, { simulateFailure: true });
    await settle(failing.paymentReturn.returnId);
    await settle(failing.paymentReturn.returnId);
    const { charge: open } = await charge(w, 400);
    const assigned = await assignUnmatchedPayment(
      database.db,
      { kind: "integration", integrationClientId },
      money,
      { paymentRequestId: open.id },
      {
        now: clock.now(),
        livemode: false,
        actor: ADMIN,
      },
    );
    expect(assigned.unmatchedPayment).toMatchObject({ state: "assigned", unresolvedAmount: 0 });
    await expect(ask(scopeOf(w), money)).rejects.toMatchObject({ code: "UnmatchedPaymentNotUnresolvedError" });
    expect(await ledgerViolations(database.db)).toEqual(NO_LEDGER_VIOLATIONS);
  });

  it("returns only what an assignment left: the rest of a partly assigned payment", async () => {
    const w = await world();
    const money = await unmatchedMoney(w, 1000);
    const { charge: small } = await charge(w, 600);
    await assignUnmatchedPayment(
      database.db,
      { kind: "integration", integrationClientId },
      money,
      { paymentRequestId: small.id },
      {
        now: clock.now(),
        livemode: false,
        actor: ADMIN,
      },
    );
    const asked = await ask(scopeOf(w), money);
    expect(asked.paymentReturn.amount).toBe(400);
    expect(asked.unmatchedPayment).toMatchObject({ amount: 1000, unresolvedAmount: 0, state: "return_requested" });
    expect(await ledgerViolations(database.db)).toEqual(NO_LEDGER_VIOLATIONS);
  });

  it("the same Idempotency-Key answers the same return and asks for nothing more; with another request it is refused", async () => {
    const w = await world();
    const money = await unmatchedMoney(w, 120);
    const other = await unmatchedMoney(w, 80);
    const idempotencyKey = randomUUID();
    const first = await ask(scopeOf(w), money, { idempotencyKey });
    const again = await ask(scopeOf(w), money, { idempotencyKey });
    expect(again).toEqual(first);
    expect(await database.db.selectFrom("unmatched_payment_returns").select("id").where("unmatched_payment_id", "=", money).execute()).toHaveLength(1);
    // After the outcome, the key answers the return as it stands.
    await settle(first.paymentReturn.returnId);
    clock.advance(SANDBOX_RETURN_DELAY_MS);
    await settle(first.paymentReturn.returnId);
    expect((await ask(scopeOf(w), money, { idempotencyKey })).paymentReturn).toMatchObject({ returnId: first.paymentReturn.returnId, state: "returned" });

    // The same request sent twice at once (a client's retry racing its first try): one return, answered to both.
    const racedKey = randomUUID();
    const raced = await unmatchedMoney(w, 60);
    const [one, two] = await Promise.all([ask(scopeOf(w), raced, { idempotencyKey: racedKey }), ask(scopeOf(w), raced, { idempotencyKey: racedKey })]);
    expect(one.paymentReturn.returnId).toBe(two.paymentReturn.returnId);
    expect(await database.db.selectFrom("unmatched_payment_returns").select("id").where("unmatched_payment_id", "=", raced).execute()).toHaveLength(1);

    await expect(ask(scopeOf(w), other, { idempotencyKey })).rejects.toMatchObject({ code: "IdempotencyKeyReusedError" });
    await expect(ask(scopeOf(w), money, { idempotencyKey, simulateFailure: true })).rejects.toMatchObject({ code: "IdempotencyKeyReusedError" });
    expect((await paymentRow(other)).state).toBe("unresolved");
    // Keys are the integration's: another integration may use the same one.
    const elsewhere = await seedMerchant(database.db, await seedIntegration(database.db), NOW);
    const theirs = await unmatchedMoney(elsewhere, 50);
    expect((await ask(scopeOf(elsewhere), theirs, { idempotencyKey })).paymentReturn.state).toBe("requested");
  });

  it("refuses another's money, money with a return in progress, money no longer unresolved, and the failure flag in Production", async () => {
    const w = await world();
    const money = await unmatchedMoney(w, 90);
    const elsewhere = await seedMerchant(database.db, await seedIntegration(database.db), NOW);
    await expect(ask(scopeOf(elsewhere), money)).rejects.toMatchObject({ code: "UnmatchedPaymentNotFoundError" });
    const neighbour = await seedMerchant(database.db, integrationClientId, NOW);
    await expect(ask({ kind: "merchant", integrationClientId, merchantAccountId: neighbour.merchantAccountId }, money)).rejects.toMatchObject({
      code: "UnmatchedPaymentNotFoundError",
    });
    await expect(ask(scopeOf(w), money, { simulateFailure: true }, "production")).rejects.toMatchObject({
      code: "ValidationError",
      details: { problems: [{ field: "simulateFailure", rule: "notAccepted", message: expect.any(String) }] },
    });
    // The platform returns only the money of no integration.
    await expect(ask({ kind: "platform" }, money)).rejects.toMatchObject({ code: "UnmatchedPaymentOfIntegrationError" });
    expect((await paymentRow(money)).state).toBe("unresolved");

    const asked = await ask({ kind: "merchant", integrationClientId, merchantAccountId: w.merchantAccountId }, money);
    await expect(ask(scopeOf(w), money)).rejects.toMatchObject({ code: "UnmatchedPaymentReturnInProgressError" });
    const { charge: open } = await charge(w);
    await expect(
      assignUnmatchedPayment(
        database.db,
        { kind: "integration", integrationClientId },
        money,
        { paymentRequestId: open.id },
        {
          now: clock.now(),
          livemode: false,
          actor: ADMIN,
        },
      ),
    ).rejects.toMatchObject({ code: "UnmatchedPaymentNotUnresolvedError" });
    await settle(asked.paymentReturn.returnId);
    clock.advance(SANDBOX_RETURN_DELAY_MS);
    await settle(asked.paymentReturn.returnId);
    await expect(ask(scopeOf(w), money)).rejects.toMatchObject({ code: "UnmatchedPaymentNotUnresolvedError" });
    expect(await ledgerViolations(database.db)).toEqual(NO_LEDGER_VIOLATIONS);
  });

  it("the platform returns money of no integration (a CVU no charge held), with no event to tell", async () => {
    const money = await unmatchedPaymentOf("0000253200000099999995", 42.5);
    expect((await paymentRow(money)).integration_client_id).toBeNull();
    const asked = await ask({ kind: "platform" }, money);
    expect(asked.unmatchedPayment).toMatchObject({ reason: "no_pending", state: "return_requested", integrationClientId: null });
    await settle(asked.paymentReturn.returnId);
    expect(await settle(asked.paymentReturn.returnId)).toEqual({ kind: "returned" });
    expect(await eventsOf("payment.returned", money)).toEqual([]);
    // An integration never sees it, so never returns it.
    await expect(ask({ kind: "integration", integrationClientId }, money)).rejects.toMatchObject({ code: "UnmatchedPaymentNotFoundError" });
  });

  it("of several returns and assignments of one payment at once, one wins and the others are refused", async () => {
    const w = await world();
    const money = await unmatchedMoney(w, 500);
    const targets = await Promise.all([1, 2].map(() => charge(w, 500)));
    const settled = await Promise.allSettled([
      ask(scopeOf(w), money),
      ask(scopeOf(w), money),
      ask(scopeOf(w), money),
      ...targets.map(({ charge: target }) =>
        assignUnmatchedPayment(
          database.db,
          { kind: "integration", integrationClientId },
          money,
          { paymentRequestId: target.id },
          {
            now: clock.now(),
            livemode: false,
            actor: ADMIN,
          },
        ),
      ),
    ]);
    expect(settled.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    for (const result of settled.filter((result) => result.status === "rejected")) {
      expect(["UnmatchedPaymentNotUnresolvedError", "UnmatchedPaymentReturnInProgressError"]).toContain((result.reason as { code: string }).code);
    }
    const returns = await database.db.selectFrom("unmatched_payment_returns").select("id").where("unmatched_payment_id", "=", money).execute();
    const assignments = await database.db.selectFrom("unmatched_payment_assignments").select("id").where("unmatched_payment_id", "=", money).execute();
    expect(returns.length + assignments.length).toBe(1);
    expect(await ledgerViolations(database.db)).toEqual(NO_LEDGER_VIOLATIONS);
  });
});

describe("the ledger after a mixed day", () => {
  /**
   * Each transfer's money as the rows say, summed here from the rows themselves (not the statement's totals
   * nor the payment's unresolved figure as a difference): what its charge kept on arrival, what of its
   * unmatched money was assigned, returned, is being returned, and is still unresolved.
   */
  const splitOf = async (transferIds: string[]) =>
    (
      await sql<{ transfer_id: string; received: number; matched: number; assigned: number; returned: number; returning: number; unresolved: number }>`
        select t.id as transfer_id, t.amount_cents::int as received,
               (case when t.charge_id is null then 0 else t.amount_cents - coalesce(u.amount_cents, 0) end)::int as matched,
               (select coalesce(sum(a.amount_cents), 0) from unmatched_payment_assignments a where a.unmatched_payment_id = u.id)::int as assigned,
               (select coalesce(sum(r.amount_cents), 0) from unmatched_payment_returns r where r.unmatched_payment_id = u.id and r.state = 'returned')::int as returned,
               (select coalesce(sum(r.amount_cents), 0) from unmatched_payment_returns r where r.unmatched_payment_id = u.id and r.state = 'requested')::int as returning,
               coalesce(u.unresolved_cents, 0)::int as unresolved
          from transfers t left join unmatched_payments u on u.transfer_id = t.id
         where t.id = any(${transferIds}::uuid[])`.execute(database.db)
    ).rows;

  it("a match, an overpayment, money assigned in part then returned, a failed return asked again: each transfer's money adds up to what was received", async () => {
    const w = await world();
    const received = (cvu: string, amount: number) => reconcileBatch(database.db, [transfer(cvu, amount)], { receivedAt: NOW, livemode: false });
    const transferOf = async (batch: ReturnType<typeof received>) => {
      const [outcome] = await batch;
      if (outcome!.status === "rejected") throw outcome!.reason;
      return outcome!.value.transferId;
    };
    const paymentOfTransfer = async (transferId: string) =>
      (await database.db.selectFrom("unmatched_payments").select("id").where("transfer_id", "=", transferId).executeTakeFirstOrThrow()).id;
    const assign = (money: string, chargeId: string) =>
      assignUnmatchedPayment(
        database.db,
        { kind: "integration", integrationClientId },
        money,
        { paymentRequestId: chargeId },
        { now: clock.now(), livemode: false, actor: ADMIN },
      );

    // 1000 paying a charge of 1000 exactly.
    const exact = await charge(w, 1000);
    const matched = await transferOf(received(exact.cvu, 1000));
    // 1250 paying a charge of 1000: 250 unmatched, left unresolved.
    const over = await charge(w, 1000);
    const overpaid = await transferOf(received(over.cvu, 1250));
    // 700 to a canceled charge's CVU: 300 assigned to a charge of 300, the other 400 returned.
    const canceledOne = await charge(w);
    await cancelSeeded(w, NOW, canceledOne.charge.reference_id!);
    const split = await transferOf(received(canceledOne.cvu, 700));
    const small = await charge(w, 300);
    expect((await assign(await paymentOfTransfer(split), small.charge.id)).assignedCents).toBe(30_000);
    const rest = await ask(scopeOf(w), await paymentOfTransfer(split));
    expect(rest.paymentReturn.amount).toBe(400);
    await settle(rest.paymentReturn.returnId);
    expect(await settle(rest.paymentReturn.returnId)).toMatchObject({ kind: "returned" });
    // 500 to another canceled charge's CVU: its return refused by the bank, then asked again.
    const canceledTwo = await charge(w);
    await cancelSeeded(w, NOW, canceledTwo.charge.reference_id!);
    const retried = await transferOf(received(canceledTwo.cvu, 500));
    const failing = await ask(scopeOf(w), await paymentOfTransfer(retried), { simulateFailure: true });
    await settle(failing.paymentReturn.returnId);
    expect(await settle(failing.paymentReturn.returnId)).toMatchObject({ kind: "failed" });
    const again = await ask(scopeOf(w), await paymentOfTransfer(retried));

    const transfers = [matched, overpaid, split, retried];
    const expected = (returning: number, returned: number) => [
      { transfer_id: matched, received: 100_000, matched: 100_000, assigned: 0, returned: 0, returning: 0, unresolved: 0 },
      { transfer_id: overpaid, received: 125_000, matched: 100_000, assigned: 0, returned: 0, returning: 0, unresolved: 25_000 },
      { transfer_id: split, received: 70_000, matched: 0, assigned: 30_000, returned: 40_000, returning: 0, unresolved: 0 },
      // The failed return's 500 is counted nowhere: its money came back to unresolved and went into the second return.
      { transfer_id: retried, received: 50_000, matched: 0, assigned: 0, returned, returning, unresolved: 0 },
    ];
    // What each transfer's parts add up to, less what it brought: 0 for every one.
    const unaccounted = (rows: Awaited<ReturnType<typeof splitOf>>) =>
      transfers.map((id) => {
        const row = rows.find((one) => one.transfer_id === id)!;
        return row.matched + row.assigned + row.returned + row.returning + row.unresolved - row.received;
      });
    const byTransfer = (rows: Awaited<ReturnType<typeof splitOf>>) => transfers.map((id) => rows.find((row) => row.transfer_id === id));

    // The second return asked, not finished.
    let rows = await splitOf(transfers);
    expect(byTransfer(rows)).toEqual(expected(50_000, 0));
    expect(unaccounted(rows)).toEqual([0, 0, 0, 0]);
    // The charges got what was matched and assigned: the exact one and the small one in full.
    const paid = await database.db.selectFrom("charges").select(["id", "paid_cents", "state"]).where("id", "in", [exact.charge.id, small.charge.id]).execute();
    expect(Object.fromEntries(paid.map((row) => [row.id, [row.paid_cents, row.state]]))).toEqual({
      [exact.charge.id]: [100_000, "total_payment"],
      [small.charge.id]: [30_000, "total_payment"],
    });

    // The second return done.
    await settle(again.paymentReturn.returnId);
    expect(await settle(again.paymentReturn.returnId)).toMatchObject({ kind: "returned" });
    rows = await splitOf(transfers);
    expect(byTransfer(rows)).toEqual(expected(0, 50_000));
    expect(unaccounted(rows)).toEqual([0, 0, 0, 0]);
    expect(await ledgerViolations(database.db)).toEqual(NO_LEDGER_VIOLATIONS);
  });
});
