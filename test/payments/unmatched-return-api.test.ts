// Returning unmatched money over real HTTP: the integration admin's return (audited), the Integration API's for
// the token's merchant account, the platform admin's for money of no integration, the Idempotency-Key, the
// documented errors with their status, code and body, and Production's refusal of the failure flag. The
// worker's job is run by calling its step (settleReturn) with the service's clock: no waiting.
import { createHmac, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { sandboxBank } from "../../domain/outbound/sandbox-bank.ts";
import { settleReturn } from "../../domain/reconciliation/return-unmatched.ts";
import { reconcileBatch } from "../../domain/reconciliation/reconcile-batch.ts";
import { chargeBody } from "../helpers/charges.ts";
import { cancelSeeded, seedCharge, seedMerchant } from "../helpers/reconciliation-world.ts";
import { sandboxIntegration, signedInAdmin } from "../helpers/sandbox-admin.ts";
import { read, serviceForFile, type TestService } from "../helpers/service.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

const BANK_FEED_SECRET = "bank-feed-secret-for-tests-0123456789";
const errorBody = { code: expect.any(String), message: expect.any(String), id: expect.any(String) };

describe("returns in the Sandbox", () => {
  const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z"), env: { COBRO_BANK_FEED_SECRET: BANK_FEED_SECRET } });

  /** An integration whose merchant sent $700 to a canceled charge's CVU and overpaid another charge ($1200 of $1000). */
  async function integrationWithUnmatchedMoney() {
    const world = await sandboxIntegration(t);
    const overpaid = await world.createCharge(chargeBody({ referenceId: uniqueRef("OVER") }));
    const canceled = await world.createCharge(chargeBody({ referenceId: uniqueRef("CANC") }));
    expect((await world.merchant.call("POST", `/payment-request/${canceled.referenceId}/cancel`)).status).toBe(200);
    await world.admin.simulate({ cvu: canceled.CVU, amount: 700 });
    await world.admin.simulate({ cvu: overpaid.CVU, amount: 1200 });
    const [late] = (await world.admin.call("GET", "/my-integration/unmatched-payments?reason=canceled")).json.items;
    const [excess] = (await world.admin.call("GET", "/my-integration/unmatched-payments?reason=overpaid")).json.items;
    return { ...world, late, excess };
  }

  /** The job's two runs: the Sandbox's bank takes the return, then (its run_at a moment later) finishes it. */
  async function bankFinishes(returnId: string) {
    const deps = { db: t.database.db, clock: t.clock, bank: sandboxBank, livemode: false };
    expect(await settleReturn(deps, returnId)).toMatchObject({ kind: "pending" });
    return settleReturn(deps, returnId);
  }

  const returnPath = (id: string) => `/my-integration/unmatched-payments/${id}/return`;

  it("an integration admin returns money to a canceled charge's CVU: 202 requested, then returned with payment.returned; audited; the key answers it again", async () => {
    const { admin, late } = await integrationWithUnmatchedMoney();
    const key = randomUUID();
    const asked = await admin.call("POST", returnPath(late.unmatchedPaymentId), {}, { "Idempotency-Key": key });
    expect(asked.status, asked.text).toBe(202);
    expect(asked.json).toEqual({
      returnId: expect.any(String),
      amount: 700,
      state: "requested",
      toCvu: "0000003100000000000017",
      toCuil: "20301234563",
      requestedAt: expect.any(String),
      unmatchedPayment: {
        ...late,
        unresolvedAmount: 0,
        state: "return_requested",
        resolvedAt: expect.any(String),
        returns: [
          {
            returnId: asked.json.returnId,
            amount: 700,
            state: "requested",
            toCvu: "0000003100000000000017",
            toCuil: "20301234563",
            requestedAt: expect.any(String),
          },
        ],
      },
    });
    const replay = await admin.call("POST", returnPath(late.unmatchedPaymentId), {}, { "Idempotency-Key": key });
    expect(replay.status).toBe(202);
    expect(replay.json).toEqual(asked.json);

    expect(await bankFinishes(asked.json.returnId)).toMatchObject({ kind: "returned" });
    const after = await admin.call("GET", `/my-integration/unmatched-payments/${late.unmatchedPaymentId}`);
    expect(after.json).toMatchObject({ state: "returned", unresolvedAmount: 0, returns: [{ state: "returned", completedAt: expect.any(String) }] });
    expect((await admin.call("GET", "/my-integration/unmatched-payments?state=returned")).json.total).toBe(1);
    const [event] = await admin.events("payment.returned");
    expect(event).toMatchObject({ event: "payment.returned", payload: { returnId: asked.json.returnId, amount: 700, transactionId: late.transactionId } });
    // Off until subscribed, like payment.unmatched: not in the subscription an integration starts with.
    expect((await admin.call("GET", "/my-integration/webhook-subscriptions")).json.enabledEvents).not.toContain("payment.returned");
    const replayed = await admin.call("POST", returnPath(late.unmatchedPaymentId), {}, { "Idempotency-Key": key });
    expect(replayed.json).toMatchObject({ returnId: asked.json.returnId, state: "returned", unmatchedPayment: { state: "returned" } });

    const audit = (await admin.call("GET", "/my-integration/audit-log?limit=10")).json.items as Array<Record<string, unknown>>;
    const entries = audit.filter((entry) => entry.operation === "returnUnmatchedPayment");
    expect(entries).toHaveLength(3);
    expect(entries.at(-1)).toEqual(
      expect.objectContaining({
        outcome: "succeeded",
        status: 202,
        method: "POST",
        route: "/my-integration/unmatched-payments/{unmatchedPaymentId}/return",
        targets: { unmatchedPaymentId: late.unmatchedPaymentId },
      }),
    );
  });

  it("answers the documented errors: no key, an unknown payment, a return in progress, nothing left, a key reused for another request", async () => {
    const { admin, late, excess, createCharge } = await integrationWithUnmatchedMoney();
    const noKey = await admin.call("POST", returnPath(late.unmatchedPaymentId), {});
    expect(noKey.status).toBe(400);
    expect(noKey.json).toMatchObject({ code: "ValidationError", validationDetails: [expect.objectContaining({ rule: "required" })] });
    const badFlag = await admin.call("POST", returnPath(late.unmatchedPaymentId), { simulateFailure: "yes" }, { "Idempotency-Key": randomUUID() });
    expect(badFlag.status).toBe(400);

    const unknown = await admin.call("POST", returnPath(randomUUID()), {}, { "Idempotency-Key": randomUUID() });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual({ ...errorBody, code: "UnmatchedPaymentNotFoundError" });

    const key = randomUUID();
    expect((await admin.call("POST", returnPath(late.unmatchedPaymentId), {}, { "Idempotency-Key": key })).status).toBe(202);
    const inProgress = await admin.call("POST", returnPath(late.unmatchedPaymentId), {}, { "Idempotency-Key": randomUUID() });
    expect(inProgress.status).toBe(409);
    expect(inProgress.json).toEqual({ ...errorBody, code: "UnmatchedPaymentReturnInProgressError" });
    const reused = await admin.call("POST", returnPath(excess.unmatchedPaymentId), {}, { "Idempotency-Key": key });
    expect(reused.status).toBe(422);
    expect(reused.json).toEqual({ ...errorBody, code: "IdempotencyKeyReusedError" });
    const reusedFlag = await admin.call("POST", returnPath(late.unmatchedPaymentId), { simulateFailure: true }, { "Idempotency-Key": key });
    expect(reusedFlag.status).toBe(422);
    expect(reusedFlag.json).toEqual({ ...errorBody, code: "IdempotencyKeyReusedError" });

    const target = await createCharge(chargeBody({ referenceId: uniqueRef("DEST"), amount: 200 }));
    expect(
      (await admin.call("POST", `/my-integration/unmatched-payments/${excess.unmatchedPaymentId}/assignment`, { referenceId: target.referenceId })).status,
    ).toBe(200);
    const nothingLeft = await admin.call("POST", returnPath(excess.unmatchedPaymentId), {}, { "Idempotency-Key": randomUUID() });
    expect(nothingLeft.status).toBe(409);
    expect(nothingLeft.json).toEqual({ ...errorBody, code: "UnmatchedPaymentNotUnresolvedError" });
  });

  it("of two returns and an assignment of one payment at once, one wins and the others answer 409", async () => {
    const { admin, late, createCharge } = await integrationWithUnmatchedMoney();
    const target = await createCharge(chargeBody({ referenceId: uniqueRef("RACE"), amount: 700 }));
    const answers = await Promise.all([
      admin.call("POST", returnPath(late.unmatchedPaymentId), {}, { "Idempotency-Key": randomUUID() }),
      admin.call("POST", returnPath(late.unmatchedPaymentId), {}, { "Idempotency-Key": randomUUID() }),
      admin.call("POST", `/my-integration/unmatched-payments/${late.unmatchedPaymentId}/assignment`, { referenceId: target.referenceId }),
    ]);
    expect(answers.filter((answer) => answer.status === 200 || answer.status === 202)).toHaveLength(1);
    for (const refused of answers.filter((answer) => answer.status >= 400)) {
      expect(refused.status).toBe(409);
      expect(["UnmatchedPaymentNotUnresolvedError", "UnmatchedPaymentReturnInProgressError"]).toContain(refused.json.code);
    }
  });

  it("on the Integration API: an overpayment's excess returned with a forced failure ends return_failed, and is returned when asked again", async () => {
    const { merchant, admin, excess } = await integrationWithUnmatchedMoney();
    const path = `/unmatched-payments/${excess.unmatchedPaymentId}/return`;
    const failing = await merchant.call("POST", path, { simulateFailure: true }, { "Idempotency-Key": randomUUID() });
    expect(failing.status, failing.text).toBe(202);
    expect(failing.json).toMatchObject({ amount: 200, state: "requested", simulatedFailure: true });
    expect(await bankFinishes(failing.json.returnId)).toMatchObject({ kind: "failed" });
    const failed = (await merchant.call("GET", `/unmatched-payments/${excess.unmatchedPaymentId}`)).json;
    expect(failed).toMatchObject({ state: "return_failed", unresolvedAmount: 200, returns: [{ state: "failed", failureReason: expect.any(String) }] });
    expect(failed).not.toHaveProperty("resolvedAt");
    const [event] = await admin.events("payment.return_failed");
    expect(event!.payload).toMatchObject({ event: "payment.return_failed", amount: 200, reason: "overpaid", failureReason: expect.any(String) });

    const retried = await merchant.call("POST", path, {}, { "Idempotency-Key": randomUUID() });
    expect(retried.status).toBe(202);
    expect(await bankFinishes(retried.json.returnId)).toMatchObject({ kind: "returned" });
    expect((await merchant.call("GET", `/unmatched-payments/${excess.unmatchedPaymentId}`)).json).toMatchObject({
      state: "returned",
      returns: [{ state: "failed" }, { state: "returned" }],
    });

    const other = await sandboxIntegration(t);
    const notTheirs = await other.merchant.call("POST", path, {}, { "Idempotency-Key": randomUUID() });
    expect(notTheirs.status).toBe(404);
    expect(notTheirs.json).toEqual({ ...errorBody, code: "UnmatchedPaymentNotFoundError" });
    const noKey = await merchant.call("POST", path, {});
    expect(noKey.status).toBe(400);
    expect(noKey.json).toMatchObject({ code: "ValidationError" });
  });

  it("the platform admin returns money of no integration from its own route, and not an integration's", async () => {
    const { merchant, late } = await integrationWithUnmatchedMoney();
    const platform = await signedInAdmin(t, merchant.sandbox.platformAdmin);
    const transactionId = uniqueRef("BNK");
    await bankFeedTransfer(t, {
      transactionId,
      amount: 42.5,
      receivingCvu: "0000253200000099999995",
      senderCvu: "0000003100000000000017",
      operatedAt: "2026-11-22T12:30:00-03:00",
    });
    const listed = await platform.call("GET", "/integration-admin/unmatched-payments?withoutIntegration=true&limit=100");
    const nobodys = listed.json.items.find((item: { transactionId: string }) => item.transactionId === transactionId);
    const asked = await platform.call(
      "POST",
      `/integration-admin/unmatched-payments/${nobodys.unmatchedPaymentId}/return`,
      {},
      { "Idempotency-Key": randomUUID() },
    );
    expect(asked.status, asked.text).toBe(202);
    expect(asked.json).toMatchObject({
      amount: 42.5,
      state: "requested",
      toCvu: "0000003100000000000017",
      unmatchedPayment: { state: "return_requested", integrationClientId: null },
    });
    expect(await bankFinishes(asked.json.returnId)).toEqual({ kind: "returned" });

    const ofIntegration = await platform.call(
      "POST",
      `/integration-admin/unmatched-payments/${late.unmatchedPaymentId}/return`,
      {},
      { "Idempotency-Key": randomUUID() },
    );
    expect(ofIntegration.status).toBe(409);
    expect(ofIntegration.json).toEqual({ ...errorBody, code: "UnmatchedPaymentOfIntegrationError" });
  });
});

describe("returns in a Sandbox with its worker", () => {
  // The worker runs the job itself: the Sandbox's bank takes the return, and its check (the job again, at its
  // run_at: the service clock, here before the database's real time, so at once) completes it.
  const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z"), parts: ["integration", "auth", "admin", "worker"] });

  it("a return completes by itself, with no one asking again", async () => {
    const world = await sandboxIntegration(t);
    const canceled = await world.createCharge(chargeBody({ referenceId: uniqueRef("CANC") }));
    expect((await world.merchant.call("POST", `/payment-request/${canceled.referenceId}/cancel`)).status).toBe(200);
    await world.admin.simulate({ cvu: canceled.CVU, amount: 310 });
    const [late] = (await world.admin.call("GET", "/my-integration/unmatched-payments")).json.items;
    const asked = await world.admin.call(
      "POST",
      `/my-integration/unmatched-payments/${late.unmatchedPaymentId}/return`,
      {},
      { "Idempotency-Key": randomUUID() },
    );
    expect(asked.status, asked.text).toBe(202);
    await expect
      .poll(async () => (await world.admin.call("GET", `/my-integration/unmatched-payments/${late.unmatchedPaymentId}`)).json.state, {
        timeout: 30_000,
        interval: 250,
      })
      .toBe("returned");
  });
});

describe("returns in Production", () => {
  const t = serviceForFile({ env: { SERVICE_ENV: "production" } });

  it("refuses the failure flag with 400 ValidationError (rule notAccepted) and changes nothing; without it the return is asked", async () => {
    const sandbox = await t.sandbox();
    const admin = await signedInAdmin(t, sandbox.integrationAdmin);
    const integrationClientId = (await admin.call("GET", "/my-integration/me")).json.integrationClientId as string;
    const now = t.clock.now();
    const world = await seedMerchant(t.database.db, integrationClientId, now);
    const { charge, cvu } = await seedCharge(world, now, {
      referenceId: uniqueRef("PROD"),
      description: "Cuota",
      amount: 100,
      dueDates: [new Date(now.getTime() + 5 * 86_400_000).toISOString().slice(0, 10)],
      customer: { name: "Juan Pérez" },
      sendWhatsappNotification: false,
      sendEmailNotification: false,
    } as never);
    await cancelSeeded(world, now, charge.reference_id!);
    await reconcileBatch(t.database.db, [{ transactionId: uniqueRef("tx"), amountCents: 5000, receivingCvu: cvu, operatedAt: now, source: "bank-feed" }], {
      receivedAt: now,
      livemode: true,
    });
    const [money] = (await admin.call("GET", "/my-integration/unmatched-payments")).json.items;
    const path = `/my-integration/unmatched-payments/${money.unmatchedPaymentId}/return`;
    const refused = await admin.call("POST", path, { simulateFailure: true }, { "Idempotency-Key": randomUUID() });
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      code: "ValidationError",
      message: expect.any(String),
      id: expect.any(String),
      validationDetails: [{ field: "simulateFailure", rule: "notAccepted", message: expect.any(String) }],
    });
    expect((await admin.call("GET", `/my-integration/unmatched-payments/${money.unmatchedPaymentId}`)).json.state).toBe("unresolved");
    const asked = await admin.call("POST", path, { simulateFailure: false }, { "Idempotency-Key": randomUUID() });
    expect(asked.status, asked.text).toBe(202);
    expect(asked.json).not.toHaveProperty("simulatedFailure");
  });
});

async function bankFeedTransfer(t: TestService, body: object) {
  const raw = JSON.stringify(body);
  const timestamp = Math.floor(t.clock.now().getTime() / 1000);
  const signature = `t=${timestamp},v1=${createHmac("sha256", BANK_FEED_SECRET).update(`${timestamp}.${raw}`).digest("hex")}`;
  const answer = await read(
    await fetch(`${t.adminUrl}/internal/bank-feed/transfers`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-bank-feed-signature": signature },
      body: raw,
    }),
  );
  expect(answer.status, answer.text).toBe(200);
  return answer;
}
