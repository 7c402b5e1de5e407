// The bank feed: signed transfers from the bank integration are recorded once and reconciled.
import { expect, it } from "vitest";
import { createHmac } from "node:crypto";
import { bearerCaller, linkedMerchant, read, serviceForFile, startTestService, type TestService } from "../helpers/service.ts";
import { chargeBody } from "../helpers/charges.ts";
import { exchangeCode, obtainCode } from "../helpers/oauth.ts";
import { signedInAdmin } from "../helpers/sandbox-admin.ts";

const SECRET = "bank-feed-secret-for-tests-0123456789";
const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z"), env: { COBRO_BANK_FEED_SECRET: SECRET } });

function sign(body: string, secret = SECRET, at = t.clock.now()): string {
  const timestamp = Math.floor(at.getTime() / 1000);
  return `t=${timestamp},v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

async function post(body: object, signature?: (raw: string) => string, service: TestService = t) {
  const raw = JSON.stringify(body);
  return read(
    await fetch(`${service.adminUrl}/internal/bank-feed/transfers`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(signature ? { "x-bank-feed-signature": signature(raw) } : {}) },
      body: raw,
    }),
  );
}

it("records a signed transfer once and reconciles it", async () => {
  const m = await linkedMerchant(t);
  const charge = (await m.call("POST", "/payment-request", chargeBody({ referenceId: "FEED-0000001", customer: { name: "Ana" }, amount: 500 }))).json;
  const transfer = { transactionId: "BNK-1", amount: 500, receivingCvu: charge.CVU, senderCuil: "20301234563", operatedAt: "2026-11-22T12:30:00-03:00" };
  const first = await post(transfer, (raw) => sign(raw));
  expect(first.status).toBe(200);
  expect(first.json).toEqual({ transferId: expect.any(String), duplicate: false, conciliated: true, paymentRequestId: charge.paymentRequestId });
  const again = await post(transfer, (raw) => sign(raw));
  expect(again.json).toMatchObject({ transferId: first.json.transferId, duplicate: true });
  expect((await m.call("GET", "/payment-request/FEED-0000001")).json.state).toBe("total_payment");
  // Applied twice, the charge would still read total_payment: what proves "once" is one payment of 500 and
  // one event, with nothing left over as unmatched money.
  const listed = (await m.call("GET", "/payment-request")).json as { referenceId: string; paidAmount: number }[];
  expect(listed.filter((c) => c.referenceId === "FEED-0000001")).toEqual([expect.objectContaining({ paidAmount: 500 })]);
  const admin = await signedInAdmin(t, m.sandbox.integrationAdmin);
  const events = (await admin.call("GET", "/my-integration/events?limit=100")).json.items as { event: string; payload: { transactionId?: string } }[];
  expect(events.filter((e) => e.event === "payment_request.payment_received")).toHaveLength(1);
  expect(events.filter((e) => e.event === "payment.unmatched" && e.payload.transactionId === "BNK-1")).toEqual([]);
  const unknown = await post({ ...transfer, transactionId: "BNK-2", receivingCvu: "0000253200000099999995" }, (raw) => sign(raw));
  expect(unknown.json).toMatchObject({ duplicate: false, conciliated: false, unmatchedReason: "no_pending" });
});

it.each([
  ["no signature", undefined],
  ["another secret", (raw: string) => sign(raw, "another-secret-entirely-000000000")],
  ["a stale timestamp", (raw: string) => sign(raw, SECRET, new Date(t.clock.now().getTime() - 10 * 60 * 1000))],
  ["a malformed header", () => "v1=abc"],
])("401 BankFeedSignatureError with %s", async (_what, signature) => {
  const result = await post({ transactionId: "BNK-X", amount: 1, receivingCvu: "0000253200000099999995", operatedAt: "2026-11-22T12:30:00-03:00" }, signature);
  expect(result.status).toBe(401);
  expect(result.json).toEqual({ code: "BankFeedSignatureError", message: expect.any(String), id: expect.any(String) });
});

it("401 for a body changed after signing", async () => {
  const body = { transactionId: "BNK-Y", amount: 1, receivingCvu: "0000253200000099999995", operatedAt: "2026-11-22T12:30:00-03:00" };
  const result = await post(body, (raw) => sign(raw.replace('"amount":1', '"amount":2')));
  expect(result.status).toBe(401);
});

it("in Production a real transfer's event says livemode: true (the Sandbox's simulated ones say false)", async () => {
  const production = await startTestService({ start: new Date("2026-11-22T15:00:00Z"), env: { SERVICE_ENV: "production", COBRO_BANK_FEED_SECRET: SECRET } });
  try {
    const own = await production.sandbox();
    const tokens = await exchangeCode(production.authUrl, own.integration, await obtainCode(production.authUrl, own.integration, own.merchant));
    expect(tokens.status, tokens.text).toBe(200);
    const merchant = bearerCaller(production.integrationUrl, () => tokens.json.idToken);
    const created = await merchant("POST", "/payment-request", chargeBody({ referenceId: "LIVE-0000001", customer: { name: "Ana" }, amount: 500 }));
    expect(created.status, created.text).toBe(201);
    const transfer = { transactionId: "BNK-LIVE-1", amount: 500, receivingCvu: created.json.CVU, operatedAt: "2026-11-22T12:30:00-03:00" };
    const received = await post(transfer, (raw) => sign(raw, SECRET, production.clock.now()), production);
    expect(received.json).toMatchObject({ conciliated: true, paymentRequestId: created.json.paymentRequestId });

    const admin = await signedInAdmin(production, own.integrationAdmin);
    const events = await admin.call("GET", "/my-integration/events?event=payment_request.payment_received");
    expect(events.status, events.text).toBe(200);
    expect(events.json.items).toHaveLength(1);
    expect(events.json.items[0].payload).toMatchObject({ referenceId: "LIVE-0000001", stateType: "total_payment", livemode: true });
  } finally {
    await production.close();
  }
});
