// The life of money that does not match, end to end with the worker and a real receiver: a transfer to a
// canceled charge's CVU is announced as payment.unmatched; assigned to another open charge of the merchant,
// that charge's payment_request.payment_received arrives; an overpayment's excess returned arrives as
// payment.returned; a return forced to fail arrives as payment.return_failed, and asked again, as
// payment.returned. Every delivery verifies with the SDK's verifier.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhookSignature } from "../../sdk/src/webhook-signature.ts";
import { chargeBody, dueDateIn } from "../helpers/charges.ts";
import { sandboxIntegration } from "../helpers/sandbox-admin.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { serviceForFile } from "../helpers/service.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

// A start before the database's real time: the Sandbox bank's check of a return (its job's run_at, on the
// service clock) is due at once, with no waiting.
const t = serviceForFile({
  start: new Date("2026-11-22T15:00:00Z"),
  env: { COBRO_ALLOW_LOOPBACK_URLS: "true" },
  parts: ["integration", "auth", "admin", "worker"],
});
let receiver: WebhookReceiver;
beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

describe("money that does not match, announced by webhook", () => {
  it("unmatched, assigned (the charge's payment_received), returned and a failed return asked again: each delivered and signed", async () => {
    const { merchant, admin, createCharge } = await sandboxIntegration(t);
    const path = `/unmatched-${randomUUID()}`;
    const registered = await admin.call("POST", "/my-integration/urls", { url: receiver.url(path), urlType: "webhook" });
    expect(registered.status, registered.text).toBe(201);
    const subscribed = await admin.call("PUT", "/my-integration/webhook-subscriptions", {
      enabledEvents: ["payment_request.payment_received", "payment.unmatched", "payment.returned", "payment.return_failed"],
    });
    expect(subscribed.status, subscribed.text).toBe(200);
    const secret = (await admin.call("GET", "/my-integration/webhook-signing-secret")).json.webhookSigningSecret as string;
    /** The deliveries to this test's receiver, the registration's ping left out. */
    const events = () => receiver.at(path).filter((request) => request.json?.event !== "ping");
    let seen = 0;
    /** The next event delivered (after those already seen), checked to be `event` and verified. */
    const next = async (event: string) => {
      await expect.poll(() => events().length, { timeout: 30_000, interval: 20 }).toBeGreaterThan(seen);
      const request = events()[seen++]!;
      expect(request.json.event, request.rawBody).toBe(event);
      expect(verifyWebhookSignature(request.rawBody, String(request.headers["x-service-signature"]), secret, { now: t.clock.now() })).toBe(true);
      return request.json;
    };

    // A transfer to a canceled charge's CVU: unmatched, announced.
    const canceled = await createCharge(chargeBody({ referenceId: uniqueRef("CANC"), dueDates: [dueDateIn(t.clock, 5)], amount: 700 }));
    expect((await merchant.call("POST", `/payment-request/${canceled.referenceId}/cancel`)).status).toBe(200);
    const late = await admin.simulate({ cvu: canceled.CVU, amount: 700 });
    expect(late.json).toMatchObject({ conciliated: false });
    expect(await next("payment.unmatched")).toMatchObject({ reason: "canceled", referenceId: canceled.referenceId });

    // Assigned to another open charge of the merchant: paid in full, its payment_received delivered.
    const meant = await createCharge(chargeBody({ referenceId: uniqueRef("MEANT"), dueDates: [dueDateIn(t.clock, 5)], amount: 700 }));
    const [money] = (await admin.call("GET", "/my-integration/unmatched-payments?reason=canceled")).json.items;
    const assigned = await admin.call("POST", `/my-integration/unmatched-payments/${money.unmatchedPaymentId}/assignment`, { referenceId: meant.referenceId });
    expect(assigned.status, assigned.text).toBe(200);
    expect(await next("payment_request.payment_received")).toMatchObject({ paymentRequestId: meant.paymentRequestId, stateType: "total_payment" });

    // An overpayment's excess, returned: payment.returned.
    const overpaid = await createCharge(chargeBody({ referenceId: uniqueRef("OVER"), dueDates: [dueDateIn(t.clock, 5)], amount: 1000 }));
    await admin.simulate({ cvu: overpaid.CVU, amount: 1200 });
    expect(await next("payment_request.payment_received")).toMatchObject({ paymentRequestId: overpaid.paymentRequestId });
    const [excess] = (await admin.call("GET", "/my-integration/unmatched-payments?reason=overpaid")).json.items;
    expect(excess).toMatchObject({ amount: 200, unresolvedAmount: 200 });

    // First forced to fail (payment.return_failed), then asked again (payment.returned).
    const failing = await admin.call(
      "POST",
      `/my-integration/unmatched-payments/${excess.unmatchedPaymentId}/return`,
      { simulateFailure: true },
      { "Idempotency-Key": randomUUID() },
    );
    expect(failing.status, failing.text).toBe(202);
    expect(await next("payment.return_failed")).toMatchObject({ unmatchedPaymentId: excess.unmatchedPaymentId });
    const again = await admin.call("POST", `/my-integration/unmatched-payments/${excess.unmatchedPaymentId}/return`, {}, { "Idempotency-Key": randomUUID() });
    expect(again.status, again.text).toBe(202);
    expect(await next("payment.returned")).toMatchObject({ unmatchedPaymentId: excess.unmatchedPaymentId });
    expect((await admin.call("GET", `/my-integration/unmatched-payments/${excess.unmatchedPaymentId}`)).json.state).toBe("returned");
  }, 120_000);
});
