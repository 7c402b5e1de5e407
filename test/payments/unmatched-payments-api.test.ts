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
