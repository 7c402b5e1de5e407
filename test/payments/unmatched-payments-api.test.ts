// Unmatched payments over real HTTP: the integration admin's list and detail, the platform admin's view
// across integrations (a transfer to a CVU no charge held included), the Integration API's for the
// token's merchant account, and the documented errors (404 for another's or an unknown one, 400, 403).
import { createHmac, randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { chargeBody } from "../helpers/charges.ts";
import { sandboxIntegration, signedInAdmin } from "../helpers/sandbox-admin.ts";
import { read, serviceForFile } from "../helpers/service.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

const BANK_FEED_SECRET = "bank-feed-secret-for-tests-0123456789";
const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z"), env: { COBRO_BANK_FEED_SECRET: BANK_FEED_SECRET } });

/** An integration whose merchant received a transfer to a canceled charge's CVU ($700) and overpaid another charge ($1200 of $1000). */
async function integrationWithUnmatchedMoney() {
  const world = await sandboxIntegration(t);
  const { merchant, admin, createCharge } = world;
  const overpaid = await createCharge(chargeBody({ referenceId: uniqueRef("OVER") }));
  const canceled = await createCharge(chargeBody({ referenceId: uniqueRef("CANC") }));
  expect((await merchant.call("POST", `/payment-request/${canceled.referenceId}/cancel`)).status).toBe(200);
  const late = await admin.simulate({ cvu: canceled.CVU, amount: 700 });
  expect(late.json).toMatchObject({ conciliated: false });
  const over = await admin.simulate({ cvu: overpaid.CVU, amount: 1200 });
  expect(over.json).toMatchObject({ conciliated: true });
  const merchantUserId = (await merchant.call("GET", "/me")).json.merchantUserId as string;
  const integrationClientId = (await admin.call("GET", "/my-integration/me")).json.integrationClientId as string;
  return { ...world, overpaid, canceled, late: late.json, over: over.json, merchantUserId, integrationClientId };
}

async function bankFeedTransfer(body: object) {
  const raw = JSON.stringify(body);
  const timestamp = Math.floor(t.clock.now().getTime() / 1000);
  const signature = `t=${timestamp},v1=${createHmac("sha256", BANK_FEED_SECRET).update(`${timestamp}.${raw}`).digest("hex")}`;
  return read(
    await fetch(`${t.adminUrl}/internal/bank-feed/transfers`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-bank-feed-signature": signature },
      body: raw,
    }),
  );
}

describe("the integration admin's unmatched payments", () => {
  it("lists a transfer to a canceled charge's CVU and an overpayment's excess, newest first, with their transfer, reason and charge", async () => {
    const { admin, canceled, overpaid, late, over, merchantUserId, integrationClientId } = await integrationWithUnmatchedMoney();
    const listed = await admin.call("GET", "/my-integration/unmatched-payments");
    expect(listed.status).toBe(200);
    expect(listed.json).toMatchObject({ total: 2, limit: 20, offset: 0 });
    const byReason = Object.fromEntries(listed.json.items.map((item: { reason: string }) => [item.reason, item]));
    expect(byReason.canceled).toEqual({
      unmatchedPaymentId: expect.any(String),
      transactionId: late.idTransaccion,
      cvu: canceled.CVU,
      payerCuil: "20301234563",
      payerName: "Juan Pérez",
      amount: 700,
      unresolvedAmount: 700,
      transferAmount: 700,
      receivedAt: expect.any(String),
      recordedAt: expect.any(String),
      reason: "canceled",
      integrationClientId,
      merchantUserId,
      paymentRequestId: canceled.paymentRequestId,
      referenceId: canceled.referenceId,
      state: "unresolved",
      assignments: [],
      returns: [],
    });
    expect(byReason.overpaid).toMatchObject({
      transactionId: over.idTransaccion,
      amount: 200,
      unresolvedAmount: 200,
      transferAmount: 1200,
      paymentRequestId: overpaid.paymentRequestId,
      state: "unresolved",
    });

    const one = await admin.call("GET", `/my-integration/unmatched-payments/${byReason.canceled.unmatchedPaymentId}`);
    expect(one.status).toBe(200);
    expect(one.json).toEqual(byReason.canceled);
  });

  it("filters by state, reason, merchant account and the transfer's time; pages", async () => {
    const { admin, merchantUserId, late } = await integrationWithUnmatchedMoney();
    const list = async (query: string) => {
      const listed = await admin.call("GET", `/my-integration/unmatched-payments?${query}`);
      expect(listed.status, listed.text).toBe(200);
      return listed.json as { items: Array<{ reason: string; transactionId: string }>; total: number };
    };
    expect((await list("reason=canceled")).items.map((item) => item.transactionId)).toEqual([late.idTransaccion]);
    expect((await list("state=unresolved")).total).toBe(2);
    expect((await list("state=returned")).total).toBe(0);
    expect((await list(`merchantUserId=${merchantUserId}`)).total).toBe(2);
    expect((await list(`merchantUserId=${randomUUID()}`)).total).toBe(0);
    expect((await list("from=2026-11-22T00:00:00Z&to=2026-11-23T00:00:00Z")).total).toBe(2);
    expect((await list("from=2026-11-23T00:00:00Z")).total).toBe(0);
    expect((await list("to=2026-11-22T00:00:00Z")).total).toBe(0);
    const page = await list("limit=1&offset=1");
    expect(page).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(page.items).toHaveLength(1);
  });

  it("answers 404 UnmatchedPaymentNotFoundError for another integration's and an unknown one, 400 for a bad id or range", async () => {
    const mine = await integrationWithUnmatchedMoney();
    const other = await sandboxIntegration(t);
    const [theirs] = (await mine.admin.call("GET", "/my-integration/unmatched-payments?reason=canceled")).json.items;
    expect((await other.admin.call("GET", "/my-integration/unmatched-payments")).json).toMatchObject({ items: [], total: 0 });
    for (const id of [theirs.unmatchedPaymentId, randomUUID()]) {
      const missing = await other.admin.call("GET", `/my-integration/unmatched-payments/${id}`);
      expect(missing.status).toBe(404);
      expect(missing.json).toEqual({ code: "UnmatchedPaymentNotFoundError", message: expect.any(String), id: expect.any(String) });
    }
    const badId = await mine.admin.call("GET", "/my-integration/unmatched-payments/not-a-uuid");
    expect(badId.status).toBe(400);
    expect(badId.json).toMatchObject({ code: "ValidationError" });
    for (const query of ["from=2026-11-23T00:00:00Z&to=2026-11-22T00:00:00Z", "state=lost", "reason=late", "from=yesterday"]) {
      const refused = await mine.admin.call("GET", `/my-integration/unmatched-payments?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.json, query).toMatchObject({ code: "ValidationError", validationDetails: [expect.objectContaining({ field: expect.any(String) })] });
    }
  });
});

describe("the Integration API's unmatched payments", () => {
  it("lists and reads the token's merchant account's, and answers 404 for another integration's", async () => {
    const mine = await integrationWithUnmatchedMoney();
    const listed = await mine.merchant.call("GET", "/unmatched-payments?reason=canceled");
    expect(listed.status).toBe(200);
    const fromAdmin = (await mine.admin.call("GET", "/my-integration/unmatched-payments?reason=canceled")).json;
    expect(listed.json).toEqual(fromAdmin);
    const [canceled] = listed.json.items;
    expect(canceled).toMatchObject({ transactionId: mine.late.idTransaccion, reason: "canceled", state: "unresolved" });
    const one = await mine.merchant.call("GET", `/unmatched-payments/${canceled.unmatchedPaymentId}`);
    expect(one.status).toBe(200);
    expect(one.json).toEqual(canceled);
    expect((await mine.merchant.call("GET", "/unmatched-payments")).json.total).toBe(2);

    const other = await sandboxIntegration(t);
    expect((await other.merchant.call("GET", "/unmatched-payments")).json).toMatchObject({ items: [], total: 0 });
    const missing = await other.merchant.call("GET", `/unmatched-payments/${canceled.unmatchedPaymentId}`);
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ code: "UnmatchedPaymentNotFoundError", message: expect.any(String), id: expect.any(String) });
    const refused = await mine.merchant.call("GET", "/unmatched-payments?from=2026-11-23T00:00:00Z&to=2026-11-22T00:00:00Z");
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({ code: "ValidationError" });
  });
});

describe("the platform's unmatched payments", () => {
  it("shows every integration's, and a transfer to a CVU no charge held as no integration's", async () => {
    const mine = await integrationWithUnmatchedMoney();
    const platform = await signedInAdmin(t, mine.merchant.sandbox.platformAdmin);
    const transactionId = uniqueRef("BNK");
    const nobodys = await bankFeedTransfer({ transactionId, amount: 42.5, receivingCvu: "0000253200000099999995", operatedAt: "2026-11-22T12:30:00-03:00" });
    expect(nobodys.json).toMatchObject({ conciliated: false, unmatchedReason: "no_pending" });

    const ofIntegration = await platform.call("GET", `/integration-admin/unmatched-payments?integrationClientId=${mine.integrationClientId}`);
    expect(ofIntegration.status).toBe(200);
    expect(ofIntegration.json.total).toBe(2);
    const withoutIntegration = await platform.call("GET", "/integration-admin/unmatched-payments?withoutIntegration=true&reason=no_pending&limit=100");
    const platformOwn = withoutIntegration.json.items.find((item: { transactionId: string }) => item.transactionId === transactionId);
    expect(platformOwn).toMatchObject({ amount: 42.5, reason: "no_pending", integrationClientId: null, merchantUserId: null, state: "unresolved" });
    expect(platformOwn).not.toHaveProperty("paymentRequestId");
    const one = await platform.call("GET", `/integration-admin/unmatched-payments/${platformOwn.unmatchedPaymentId}`);
    expect(one.json).toEqual(platformOwn);
    const missing = await platform.call("GET", `/integration-admin/unmatched-payments/${randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ code: "UnmatchedPaymentNotFoundError" });

    // Nobody's money is no integration's to see; each role keeps to its own routes.
    expect((await mine.admin.call("GET", `/my-integration/unmatched-payments/${platformOwn.unmatchedPaymentId}`)).status).toBe(404);
    expect((await mine.admin.call("GET", "/integration-admin/unmatched-payments")).status).toBe(403);
    expect((await platform.call("GET", "/my-integration/unmatched-payments")).status).toBe(403);
  });
});

describe("assigning unmatched money over HTTP", () => {
  it("a transfer to a canceled charge's CVU, assigned to another open charge of the merchant: total_payment, its event, audited; not twice", async () => {
    const { admin, merchant, createCharge, late } = await integrationWithUnmatchedMoney();
    const [money] = (await admin.call("GET", "/my-integration/unmatched-payments?reason=canceled")).json.items;
    const target = await createCharge(chargeBody({ referenceId: uniqueRef("DEST"), amount: 700 }));
    const path = `/my-integration/unmatched-payments/${money.unmatchedPaymentId}/assignment`;
    const assigned = await admin.call("POST", path, { paymentRequestId: target.paymentRequestId });
    expect(assigned.status, assigned.text).toBe(200);
    expect(assigned.json).toEqual({
      assignedAmount: 700,
      paymentRequestId: target.paymentRequestId,
      referenceId: target.referenceId,
      paymentRequestState: "total_payment",
      eventId: expect.any(String),
      unmatchedPayment: {
        ...money,
        unresolvedAmount: 0,
        state: "assigned",
        resolvedAt: expect.any(String),
        assignments: [{ paymentRequestId: target.paymentRequestId, referenceId: target.referenceId, amount: 700, assignedAt: expect.any(String) }],
      },
    });
    expect((await merchant.call("GET", `/payment-request/${target.referenceId}`)).json).toMatchObject({ state: "total_payment" });
    const received = (await admin.events("payment_request.payment_received")).find((event) => event.eventId === assigned.json.eventId);
    expect(received?.payload).toMatchObject({
      stateType: "total_payment",
      paymentRequestId: target.paymentRequestId,
      thisPaymentAmount: 700,
      paidAmount: 700,
      remainingAmount: 0,
      paidAt: money.receivedAt,
    });
    expect((await admin.call("GET", path.replace("/assignment", ""))).json.state).toBe("assigned");
    const detail = (await admin.call("GET", `/my-integration/payment-requests/${target.paymentRequestId}`)).json;
    expect(detail).toMatchObject({ status: "total_payment", paidAmount: 700, payments: [{ transactionId: money.transactionId, amount: 700 }] });

    const again = await admin.call("POST", path, { paymentRequestId: target.paymentRequestId });
    expect(again.status).toBe(409);
    expect(again.json).toEqual({ code: "UnmatchedPaymentNotUnresolvedError", message: expect.any(String), id: expect.any(String) });

    const audit = (await admin.call("GET", "/my-integration/audit-log?limit=5")).json.items as Array<Record<string, unknown>>;
    const entries = audit.filter((entry) => entry.operation === "assignUnmatchedPayment");
    expect(entries).toEqual([
      expect.objectContaining({ outcome: "refused", status: 409, errorCode: "UnmatchedPaymentNotUnresolvedError" }),
      expect.objectContaining({
        outcome: "succeeded",
        status: 200,
        method: "POST",
        route: "/my-integration/unmatched-payments/{unmatchedPaymentId}/assignment",
        targets: { unmatchedPaymentId: money.unmatchedPaymentId },
        fields: ["paymentRequestId"],
        changes: { paymentRequestId: target.paymentRequestId },
      }),
    ]);
    expect(late.idTransaccion).toBe(money.transactionId);
  });

  it("refuses, with nothing written, an assignment or a return of money an unlinked merchant account received, as its reads do (404)", async () => {
    const { admin, merchantUserId, createCharge } = await integrationWithUnmatchedMoney();
    const [money] = (await admin.call("GET", "/my-integration/unmatched-payments?reason=canceled")).json.items;
    const target = await createCharge(chargeBody({ referenceId: uniqueRef("DEST"), amount: 700 }));
    const link = (await admin.call("GET", "/my-integration/users")).json.items.find((user: { userId: string }) => user.userId === merchantUserId);
    expect((await admin.call("DELETE", `/my-integration/users/${link.integrationClientUserId}`)).status).toBe(204);

    const notFound = { code: "UnmatchedPaymentNotFoundError", message: expect.any(String), id: expect.any(String) };
    const path = `/my-integration/unmatched-payments/${money.unmatchedPaymentId}`;
    const assigned = await admin.call("POST", `${path}/assignment`, { paymentRequestId: target.paymentRequestId });
    expect([assigned.status, assigned.json]).toEqual([404, notFound]);
    const returned = await admin.call("POST", `${path}/return`, {}, { "Idempotency-Key": randomUUID() });
    expect([returned.status, returned.json]).toEqual([404, notFound]);
    const row = await t.database.db
      .selectFrom("unmatched_payments")
      .select(["state", "unresolved_cents"])
      .where("id", "=", money.unmatchedPaymentId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ state: "unresolved", unresolved_cents: 70_000 });
    const written = await t.database.db
      .selectFrom("unmatched_payment_returns")
      .select("id")
      .where("unmatched_payment_id", "=", money.unmatchedPaymentId)
      .execute();
    expect(written).toEqual([]);
  });

  it("answers the documented errors: a body naming no charge or two, another integration's charge, an unknown payment", async () => {
    const mine = await integrationWithUnmatchedMoney();
    const other = await sandboxIntegration(t);
    const foreign = await other.createCharge(chargeBody({ referenceId: uniqueRef("FOREIGN") }));
    const [money] = (await mine.admin.call("GET", "/my-integration/unmatched-payments?reason=canceled")).json.items;
    const path = `/my-integration/unmatched-payments/${money.unmatchedPaymentId}/assignment`;
    for (const body of [{}, { paymentRequestId: foreign.paymentRequestId, referenceId: foreign.referenceId }]) {
      const refused = await mine.admin.call("POST", path, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.json).toMatchObject({ code: "ValidationError", validationDetails: [expect.objectContaining({ rule: "exactlyOneOf" })] });
    }
    const theirs = await mine.admin.call("POST", path, { paymentRequestId: foreign.paymentRequestId });
    expect(theirs.status).toBe(404);
    expect(theirs.json).toEqual({ code: "AssignmentPaymentRequestNotFoundError", message: expect.any(String), id: expect.any(String) });
    const unknown = await mine.admin.call("POST", `/my-integration/unmatched-payments/${randomUUID()}/assignment`, { referenceId: "X" });
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ code: "UnmatchedPaymentNotFoundError" });
    const canceledCharge = await mine.admin.call("POST", path, { paymentRequestId: mine.canceled.paymentRequestId });
    expect(canceledCharge.status).toBe(409);
    expect(canceledCharge.json).toMatchObject({ code: "AssignmentPaymentRequestNotPayableError" });
    expect((await mine.admin.call("GET", `/my-integration/unmatched-payments/${money.unmatchedPaymentId}`)).json).toEqual(money);
  });

  it("of two assignments of one payment at once, one applies it and the other answers 409", async () => {
    const { admin, createCharge } = await integrationWithUnmatchedMoney();
    const [money] = (await admin.call("GET", "/my-integration/unmatched-payments?reason=canceled")).json.items;
    const targets = [await createCharge(chargeBody({ referenceId: uniqueRef("A") })), await createCharge(chargeBody({ referenceId: uniqueRef("B") }))];
    const answers = await Promise.all(
      targets.map((target) =>
        admin.call("POST", `/my-integration/unmatched-payments/${money.unmatchedPaymentId}/assignment`, { referenceId: target.referenceId }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect(answers.find((answer) => answer.status === 409)!.json).toMatchObject({ code: "UnmatchedPaymentNotUnresolvedError" });
  });

  it("on the Integration API, for the token's merchant account: an overpayment's excess assigned by referenceId", async () => {
    const mine = await integrationWithUnmatchedMoney();
    const [excess] = (await mine.merchant.call("GET", "/unmatched-payments?reason=overpaid")).json.items;
    const target = await mine.createCharge(chargeBody({ referenceId: uniqueRef("NEXT") }));
    const assigned = await mine.merchant.call("POST", `/unmatched-payments/${excess.unmatchedPaymentId}/assignment`, { referenceId: target.referenceId });
    expect(assigned.status, assigned.text).toBe(200);
    expect(assigned.json).toMatchObject({
      assignedAmount: 200,
      paymentRequestState: "partial_payment",
      unmatchedPayment: { state: "assigned", unresolvedAmount: 0 },
    });
    expect((await mine.merchant.call("GET", `/payment-request/${target.referenceId}`)).json).toMatchObject({ state: "partial_payment" });

    const other = await sandboxIntegration(t);
    const [canceledMoney] = (await mine.merchant.call("GET", "/unmatched-payments?reason=canceled")).json.items;
    const notTheirs = await other.merchant.call("POST", `/unmatched-payments/${canceledMoney.unmatchedPaymentId}/assignment`, {
      referenceId: target.referenceId,
    });
    expect(notTheirs.status).toBe(404);
    expect(notTheirs.json).toEqual({ code: "UnmatchedPaymentNotFoundError", message: expect.any(String), id: expect.any(String) });
    const foreign = await other.createCharge(chargeBody({ referenceId: uniqueRef("FOREIGN") }));
    const foreignCharge = await mine.merchant.call("POST", `/unmatched-payments/${canceledMoney.unmatchedPaymentId}/assignment`, {
      paymentRequestId: foreign.paymentRequestId,
    });
    expect(foreignCharge.status).toBe(404);
    expect(foreignCharge.json).toMatchObject({ code: "AssignmentPaymentRequestNotFoundError" });
    const twice = await mine.merchant.call("POST", `/unmatched-payments/${excess.unmatchedPaymentId}/assignment`, { referenceId: target.referenceId });
    expect(twice.status).toBe(409);
    expect(twice.json).toMatchObject({ code: "UnmatchedPaymentNotUnresolvedError" });
  });
});

describe("a late payer's money (reason expired)", () => {
  it("a transfer to a charge that expired by the Sandbox clock: listed as expired and unresolved, still so a year on, assignable to that charge, then neither assigned nor returned again", async () => {
    const { admin, merchant, createCharge } = await sandboxIntegration(t);
    const charge = await createCharge(chargeBody({ referenceId: uniqueRef("LATE"), dueDates: ["2026-11-22T18:30"] }));
    expect((await admin.advanceClock({ advanceTo: "2026-11-22T21:30:00Z" })).status).toBe(200);
    await merchant.renew();
    expect((await merchant.call("GET", `/payment-request/${charge.referenceId}`)).json.state).toBe("overdue");
    const late = await admin.simulate({ cvu: charge.CVU, amount: 1000 });
    expect(late.json).toMatchObject({ conciliated: false, unmatchedReason: "expired" });

    const list = async (query: string) => {
      const listed = await admin.call("GET", `/my-integration/unmatched-payments?${query}`);
      expect(listed.status, listed.text).toBe(200);
      return listed.json as { items: Array<Record<string, unknown> & { unmatchedPaymentId: string }>; total: number };
    };
    const [money] = (await list("reason=expired")).items;
    expect(money).toMatchObject({
      transactionId: late.json.idTransaccion,
      reason: "expired",
      amount: 1000,
      unresolvedAmount: 1000,
      paymentRequestId: charge.paymentRequestId,
      referenceId: charge.referenceId,
      state: "unresolved",
      assignments: [],
      returns: [],
    });
    expect((await list("reason=expired&state=unresolved")).total).toBe(1);
    expect((await list("reason=canceled")).total).toBe(0);

    // An unmatched payment has no state that time reaches: a year of the clock's sweeps later it is as it was.
    expect((await admin.advanceClock({ advanceBy: "P365D" })).status).toBe(200);
    const path = `/my-integration/unmatched-payments/${money!.unmatchedPaymentId}`;
    expect((await admin.call("GET", path)).json).toEqual(money);

    // Its money pays the charge it was late for: paid in full, the closed charge is total_payment.
    const assigned = await admin.call("POST", `${path}/assignment`, { paymentRequestId: charge.paymentRequestId });
    expect(assigned.status, assigned.text).toBe(200);
    expect(assigned.json).toMatchObject({
      assignedAmount: 1000,
      paymentRequestState: "total_payment",
      unmatchedPayment: { state: "assigned", unresolvedAmount: 0 },
    });
    expect((await list("reason=expired&state=unresolved")).total).toBe(0);
    expect((await list("reason=expired&state=assigned")).items.map((item) => item.unmatchedPaymentId)).toEqual([money!.unmatchedPaymentId]);

    // Nothing is left to resolve.
    const notUnresolved = { code: "UnmatchedPaymentNotUnresolvedError", message: expect.any(String), id: expect.any(String) };
    const again = await admin.call("POST", `${path}/assignment`, { paymentRequestId: charge.paymentRequestId });
    expect([again.status, again.json]).toEqual([409, notUnresolved]);
    const returned = await admin.call("POST", `${path}/return`, {}, { "Idempotency-Key": randomUUID() });
    expect([returned.status, returned.json]).toEqual([409, notUnresolved]);
  });
});
