// Unlinking hides the merchant account from the integration: none of its events is delivered (an event
// already queued stops too), its charges and events leave the Admin lists, its charges stay payable and
// the money is recorded; after a re-link, everything but the events that occurred while unlinked is seen
// again.
import { runJobNow } from "../helpers/jobs.ts";
import { describe, expect, it } from "vitest";
import { deliverEventJobKey } from "../../db/job-queue.ts";
import { linkedMerchant } from "../helpers/service.ts";
import { sandboxAdmin } from "../helpers/sandbox-admin.ts";
import { chargeBody, dueDateIn } from "../helpers/charges.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { deliveringServiceForFile } from "../helpers/webhook-receiver.ts";

const { service: t, receiver } = deliveringServiceForFile();

const inDays = (days: number) => dueDateIn(t.clock, days);

/** The delivery row of an event, read from the table (an unlinked merchant's events are not listed). */
async function deliveryOf(eventId: string) {
  return t.database.db.selectFrom("event_deliveries").select(["status", "not_sent_reason", "attempts_made"]).where("event_id", "=", eventId).executeTakeFirst();
}

/** The id of the payment_received event of a charge, read from the table. */
async function paymentEventIds(chargeId: string): Promise<string[]> {
  const rows = await t.database.db.selectFrom("events").select("id").where("charge_id", "=", chargeId).orderBy("created_at").orderBy("id").execute();
  return rows.map((row) => row.id);
}

/** Makes a pending retry due now (the worker polls every 2 s). */
const retryNow = (eventId: string) => runJobNow(t.database.db, deliverEventJobKey(eventId));

describe("unlinking a merchant account", () => {
  it("stops its deliveries (queued ones too), hides its charges and events, keeps its charges payable; a re-link shows all but what occurred while unlinked", async () => {
    const m = await linkedMerchant(t);
    const admin = await sandboxAdmin(t, m.sandbox);
    const path = `/${uniqueRef("unlinked")}`;
    expect((await admin.call("POST", "/my-integration/urls", { url: receiver.url(path), urlType: "webhook" })).status).toBe(201);
    await receiver.waitFor(1, { path }); // the registration's ping
    const charge = async () => {
      const created = await m.call("POST", "/payment-request", chargeBody({ dueDates: [inDays(5)] }));
      expect(created.status, JSON.stringify(created.json)).toBe(201);
      return created.json as { paymentRequestId: string; CVU: string };
    };
    const listedCharges = async () =>
      ((await admin.call("GET", "/my-integration/payment-requests?limit=100")).json.items as { paymentRequestId: string }[]).map((c) => c.paymentRequestId);
    const listedEvents = async () => (await admin.events()).map((event) => event.eventId);

    // Before the unlink: one event delivered, another failing once and waiting for its retry.
    const first = await charge();
    const second = await charge();
    expect((await admin.simulate({ cvu: first.CVU, amount: 100 })).json).toMatchObject({ conciliated: true });
    await receiver.waitFor(2, { path });
    const [deliveredBefore] = await paymentEventIds(first.paymentRequestId);
    await expect.poll(async () => (await deliveryOf(deliveredBefore!))?.status).toBe("delivered");
    receiver.answerNext({ status: 500 });
    expect((await admin.simulate({ cvu: second.CVU, amount: 100 })).json).toMatchObject({ conciliated: true });
    await receiver.waitFor(3, { path });
    const [queuedAtUnlink] = await paymentEventIds(second.paymentRequestId);
    // The receiver's 500 recorded on the first attempt (the attempt itself is written before the request).
    await expect.poll(async () => (await admin.events()).find((event) => event.eventId === queuedAtUnlink)?.attempts[0]?.responseStatus).toBe(500);
    expect(await deliveryOf(queuedAtUnlink!)).toMatchObject({ status: "pending" });

    // The integration has more than one linked merchant account (the Sandbox set's and the test tokens'): unlink the one charging.
    const { merchantUserId } = (await m.call("GET", "/me")).json;
    const users = await admin.call("GET", "/my-integration/users?limit=100");
    const linkId: string = users.json.items.find((user: { userId: string }) => user.userId === merchantUserId).integrationClientUserId;
    expect((await admin.call("DELETE", `/my-integration/users/${linkId}`)).status).toBe(204);

    // The queued retry comes due: not sent, and nothing reaches the receiver.
    await retryNow(queuedAtUnlink!);
    await expect
      .poll(async () => deliveryOf(queuedAtUnlink!), { timeout: 10_000 })
      .toMatchObject({ status: "not_sent", not_sent_reason: "merchant_unlinked", attempts_made: 1 });

    // A payment while unlinked: recorded for the merchant, its event never delivered.
    const paidWhileUnlinked = await admin.simulate({ cvu: first.CVU, amount: 900 });
    expect(paidWhileUnlinked.json).toMatchObject({ conciliated: true, paymentRequestId: first.paymentRequestId });
    // The test clock stands still, so both events of the charge have one timestamp: pick the new one by id.
    const occurredWhileUnlinked = (await paymentEventIds(first.paymentRequestId)).find((id) => id !== deliveredBefore)!;
    await expect
      .poll(async () => deliveryOf(occurredWhileUnlinked), { timeout: 10_000 })
      .toMatchObject({ status: "not_sent", not_sent_reason: "merchant_unlinked", attempts_made: 0 });
    const paid = await t.database.db.selectFrom("charges").select(["state", "paid_cents"]).where("id", "=", first.paymentRequestId).executeTakeFirstOrThrow();
    expect(paid).toEqual({ state: "total_payment", paid_cents: 1000_00 });
    expect(receiver.at(path)).toHaveLength(3);

    // Out of the integration's lists; resends refused; the merchant's tokens refused.
    expect(await listedCharges()).not.toEqual(expect.arrayContaining([first.paymentRequestId]));
    expect(await listedCharges()).not.toEqual(expect.arrayContaining([second.paymentRequestId]));
    expect(await listedEvents()).toEqual([]);
    for (const eventId of [deliveredBefore!, occurredWhileUnlinked]) {
      const refused = await admin.call("POST", `/my-integration/events/${eventId}/resend`);
      expect(refused.status).toBe(409);
      expect(refused.json).toMatchObject({
        code: "EventNotDeliverableError",
        message: expect.any(String),
        cause: expect.stringContaining("merchant_unlinked"),
      });
    }
    expect((await m.call("GET", `/payment-request/${first.paymentRequestId}`)).status).toBe(403);

    // Re-link (the merchant authorizes again): the charges are back in their current state, the events
    // from before the unlink too; the one that occurred while unlinked stays hidden and unsendable.
    await m.renew();
    const charges = (await admin.call("GET", "/my-integration/payment-requests?limit=100")).json.items as {
      paymentRequestId: string;
      status: string;
      paidAmount: number;
    }[];
    expect(charges.find((c) => c.paymentRequestId === first.paymentRequestId)).toMatchObject({ status: "total_payment", paidAmount: 1000 });
    expect(charges.map((c) => c.paymentRequestId)).toContain(second.paymentRequestId);
    const events = await admin.events();
    expect(events.map((event) => event.eventId).sort()).toEqual([deliveredBefore!, queuedAtUnlink!].sort());
    expect(events.find((event) => event.eventId === queuedAtUnlink)).toMatchObject({ deliveryStatus: "not_sent", notSentReason: "merchant_unlinked" });
    const refusedForGood = await admin.call("POST", `/my-integration/events/${occurredWhileUnlinked}/resend`);
    expect(refusedForGood).toMatchObject({ status: 409, json: { code: "EventNotDeliverableError" } });
    expect(receiver.at(path)).toHaveLength(3);

    // From the re-link on, deliveries resume: a resend of the stopped event, and a new payment.
    expect((await admin.call("POST", `/my-integration/events/${queuedAtUnlink}/resend`)).status).toBe(202);
    await receiver.waitFor(4, { path });
    expect((await admin.simulate({ cvu: second.CVU, amount: 100 })).json).toMatchObject({ conciliated: true });
    const [, , afterRelink] = await receiver.waitFor(5, { path }).then((requests) => requests.slice(2));
    expect(afterRelink!.json).toMatchObject({ event: "payment_request.payment_received", paymentRequestId: second.paymentRequestId, paidAmount: 200 });
    expect(receiver.at(path).map((request) => request.headers["x-service-webhook-id"])).not.toContain(occurredWhileUnlinked);
  });
});
