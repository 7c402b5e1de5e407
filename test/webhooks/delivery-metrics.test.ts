// The webhook delivery counters, with the worker running and a real receiver on loopback: each attempt
// under its outcome (2xx, 4xx, 5xx, refused by the URL guard), and for an acknowledged event its
// attempts and the time from its creation to the receipt.
import { describe, expect, it } from "vitest";
import { deliverEventJobKey } from "../../db/job-queue.ts";
import { runJobNow } from "../helpers/jobs.ts";
import { chargeBody } from "../helpers/charges.ts";
import { metricValue } from "../helpers/metrics.ts";
import { linkedMerchant } from "../helpers/service.ts";
import { sandboxAdmin } from "../helpers/sandbox-admin.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { deliveringServiceForFile } from "../helpers/webhook-receiver.ts";

const { service: t, receiver } = deliveringServiceForFile();

const deliveries = (outcome: string) => metricValue(t, "cobro_webhook_deliveries_total", { outcome });
const receipts = () => metricValue(t, "cobro_webhook_receipt_latency_seconds");
const acknowledged = () => metricValue(t, "cobro_webhook_attempts_to_deliver");

/** A fresh integration whose webhook URL is the receiver's `path`, and a paid charge of it (its event is queued). */
async function paidCharge(options: { webhookUrl?: string } = {}) {
  const m = await linkedMerchant(t);
  const admin = await sandboxAdmin(t, m.sandbox);
  const path = `/${uniqueRef("metrics")}`;
  const registered = await admin.call("POST", "/my-integration/urls", { url: receiver.url(path), urlType: "webhook" });
  expect(registered.status, registered.text).toBe(201);
  const created = await m.call("POST", "/payment-request", chargeBody());
  expect(created.status, created.text).toBe(201);
  if (options.webhookUrl) {
    // Set directly: the URL as it stands at delivery time, whatever the create's check said.
    await t.database.db.updateTable("charges").set({ webhook_url: options.webhookUrl }).where("id", "=", created.json.paymentRequestId).execute();
  }
  return {
    path,
    /** Pays the charge; answers its payment_received event's id. */
    pay: async () => {
      expect((await admin.simulate({ cvu: created.json.CVU, amount: 1000 })).json).toMatchObject({ conciliated: true, webhookWillFire: true });
      const [event] = await admin.events("payment_request.payment_received");
      return event!.eventId;
    },
  };
}

describe("webhook delivery metrics", () => {
  it("an event acknowledged at its second attempt counts a 5xx then a 2xx, its 2 attempts and the time from its creation to the receipt", async () => {
    const charge = await paidCharge();
    await receiver.waitFor(1, { path: charge.path }); // the registration's ping, answered 200
    const before = {
      ok: await deliveries("2xx"),
      failed: await deliveries("5xx"),
      receipts: await receipts(),
      acknowledged: await acknowledged(),
      seconds: await metricValue(t, "cobro_webhook_receipt_latency_seconds", {}, "sum"),
      attempts: await metricValue(t, "cobro_webhook_attempts_to_deliver", {}, "sum"),
    };
    receiver.answerNext({ status: 500 });
    const eventId = await charge.pay();
    await expect.poll(() => deliveries("5xx")).toBe(before.failed + 1);
    expect(await receipts()).toBe(before.receipts);
    expect(await acknowledged()).toBe(before.acknowledged);
    // The retry, 90 s (of the service's clock) after the event: made due now rather than in a minute.
    t.clock.advance(90_000);
    await runJobNow(t.database.db, deliverEventJobKey(eventId));
    await expect.poll(() => deliveries("2xx"), { timeout: 10_000 }).toBe(before.ok + 1);
    expect(await receipts()).toBe(before.receipts + 1);
    expect(await acknowledged()).toBe(before.acknowledged + 1);
    expect(await metricValue(t, "cobro_webhook_receipt_latency_seconds", {}, "sum")).toBe(before.seconds + 90);
    expect(await metricValue(t, "cobro_webhook_attempts_to_deliver", {}, "sum")).toBe(before.attempts + 2);
  });

  it("a receiver answering 500, then one answering 404, count 5xx and 4xx attempts and no receipt", async () => {
    for (const [status, outcome] of [
      [500, "5xx"],
      [404, "4xx"],
    ] as const) {
      const charge = await paidCharge();
      await receiver.waitFor(1, { path: charge.path }); // the registration's ping, answered 200
      const before = { failed: await deliveries(outcome), receipts: await receipts() };
      receiver.answerNext({ status });
      await charge.pay();
      await receiver.waitFor(2, { path: charge.path });
      await expect.poll(() => deliveries(outcome)).toBe(before.failed + 1);
      expect(await receipts()).toBe(before.receipts);
    }
  });

  it("a URL the guard refuses (a private address) counts as refused, and nothing is sent", async () => {
    const charge = await paidCharge({ webhookUrl: "http://10.0.0.1/hook" });
    await receiver.waitFor(1, { path: charge.path });
    const before = await deliveries("refused");
    await charge.pay();
    await expect.poll(() => deliveries("refused")).toBe(before + 1);
    expect(receiver.at(charge.path)).toHaveLength(1); // the ping only
  });
});
