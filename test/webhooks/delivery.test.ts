// Webhook delivery end to end, with the worker running and a real receiver on loopback: the signature
// (checked with the SDK's verifier), the stable X-Service-Webhook-Id across a retry, every destination
// rule, the subscription gate, redirects, and the Admin API's event list and resend.
import { runJobNow } from "../helpers/jobs.ts";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { deliverEventJobKey } from "../../db/job-queue.ts";
import { verifyWebhookSignature } from "../../sdk/src/webhook-signature.ts";
import { linkedMerchant } from "../helpers/service.ts";
import { sandboxAdmin, type EventRecord } from "../helpers/sandbox-admin.ts";
import { chargeBody, dueDateIn } from "../helpers/charges.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { deliveringServiceForFile } from "../helpers/webhook-receiver.ts";

const { service: t, receiver } = deliveringServiceForFile();

const inDays = (days: number) => dueDateIn(t.clock, days);

async function setup() {
  const m = await linkedMerchant(t);
  const admin = await sandboxAdmin(t, m.sandbox);
  const integration = await t.database.db
    .selectFrom("integration_clients")
    .select("id")
    .where("provider_client_id", "=", m.sandbox.integration.clientId)
    .executeTakeFirstOrThrow();
  const adminCall = admin.call;
  const charge = async (extra: object = {}) => {
    const created = await m.call("POST", "/payment-request", chargeBody({ dueDates: [inDays(5)], ...extra }));
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    return created.json as { referenceId: string; paymentRequestId: string; CVU: string };
  };
  /** The events of one charge, as GET /my-integration/events lists them. */
  const eventsOf = async (chargeId: string) => (await admin.events()).filter((event) => event.payload.paymentRequestId === chargeId);
  /** Waits until GET /my-integration/events shows the event with this delivery status. */
  const waitForDelivery = async (eventId: string, status: EventRecord["deliveryStatus"], timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const listed = (await admin.events()).find((event) => event.eventId === eventId);
      if (listed?.deliveryStatus === status) return listed;
      if (Date.now() > deadline) throw new Error(`delivery of ${eventId} is ${listed?.deliveryStatus ?? "not listed"}, not ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  const registerWebhook = async (path: string, validationToken?: string) => {
    const created = await adminCall("POST", "/my-integration/urls", {
      url: receiver.url(path),
      urlType: "webhook",
      ...(validationToken ? { validationToken } : {}),
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    return created.json;
  };
  const secret = async () => (await adminCall("GET", "/my-integration/webhook-signing-secret")).json.webhookSigningSecret as string;
  return { m, admin, integrationId: integration.id, adminCall, charge, eventsOf, waitForDelivery, registerWebhook, secret };
}

/** Makes a pending retry due now (instead of waiting for its minute); the worker polls every 2 s. */
const retryNow = (eventId: string) => runJobNow(t.database.db, deliverEventJobKey(eventId));

describe("webhook delivery", () => {
  // How soon it arrives is a performance figure (bench/), not something a test on two busy cores can promise.
  it("a receiver registered in the Sandbox gets a correctly signed payment_received after the registration's ping, and again with the same id after answering 500 once", async () => {
    const s = await setup();
    const path = `/${uniqueRef("done")}`;
    const registered = await s.registerWebhook(path, "integration-token-0123456789");
    expect(registered.verification).toEqual({ status: "ok" }); // the registration's ping
    const secret = await s.secret();

    const first = await s.charge();
    const paid = await s.admin.simulate({ cvu: first.CVU, amount: 1000 });
    expect(paid.json).toMatchObject({ conciliated: true, webhookWillFire: true });
    const [ping, event] = await receiver.waitFor(2, { path });
    expect(ping!.json).toEqual({ event: "ping" });
    expect(event!.method).toBe("POST");
    expect(event!.headers["content-type"]).toBe("application/json");
    expect(event!.json).toMatchObject({
      event: "payment_request.payment_received",
      stateType: "total_payment",
      referenceId: first.referenceId,
      livemode: false,
    });
    const signature = event!.headers["x-service-signature"] as string;
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifyWebhookSignature(event!.rawBody, signature, secret, { now: t.clock.now() })).toBe(true);
    expect(verifyWebhookSignature(event!.rawBody, signature, "whsec_another-secret-entirely", { now: t.clock.now() })).toBe(false);
    const [stored] = await s.eventsOf(first.paymentRequestId);
    expect(event!.headers["x-service-webhook-id"]).toBe(stored!.eventId);
    expect(event!.headers["validation-token"]).toBe("integration-token-0123456789");
    await s.waitForDelivery(stored!.eventId, "delivered");

    // Answer 500 once: the retry carries the same id and the same body, signed again.
    receiver.answerNext({ status: 500 });
    const second = await s.charge();
    await s.admin.simulate({ cvu: second.CVU, amount: 400 });
    const [event2] = await s.eventsOf(second.paymentRequestId);
    await receiver.waitFor(3, { path });
    // The receiver has answered; the worker records that answer just after.
    const pendingEvent = async () =>
      (await s.adminCall("GET", "/my-integration/events?delivered=false")).json.items.find((item: { eventId: string }) => item.eventId === event2!.eventId);
    await expect.poll(async () => (await pendingEvent())?.attempts?.[0]?.responseStatus, { timeout: 5000 }).toBe(500);
    const listed = await pendingEvent();
    expect(listed).toMatchObject({
      deliveryStatus: "pending",
      webhookId: event2!.eventId,
      targetUrl: receiver.url(path),
      attempts: [{ attempt: 1, responseStatus: 500, error: "non_2xx" }],
    });
    expect(new Date(listed.nextAttemptAt).getTime() - new Date(listed.attempts[0].attemptedAt).getTime()).toBe(60_000);

    await retryNow(event2!.eventId);
    const requests = await receiver.waitFor(4, { path });
    const [failed, retried] = requests.slice(2);
    expect(retried!.headers["x-service-webhook-id"]).toBe(event2!.eventId);
    expect(failed!.headers["x-service-webhook-id"]).toBe(event2!.eventId);
    expect(retried!.rawBody).toBe(failed!.rawBody);
    expect(verifyWebhookSignature(retried!.rawBody, retried!.headers["x-service-signature"] as string, secret, { now: t.clock.now() })).toBe(true);
    await s.waitForDelivery(event2!.eventId, "delivered");
    const delivered = await s.adminCall("GET", "/my-integration/events?delivered=true");
    expect(delivered.json.items.find((item: { eventId: string }) => item.eventId === event2!.eventId)).toMatchObject({
      deliveryStatus: "delivered",
      attempts: [
        { attempt: 1, responseStatus: 500, error: "non_2xx" },
        { attempt: 2, responseStatus: 200 },
      ],
    });
  });

  it("rule 1: a charge's own webhookUrl gets its payment_request.* events, without validation-token, even when the merchant is in a tenant", async () => {
    const s = await setup();
    const integrationPath = `/${uniqueRef("integration")}`;
    const tenantPath = `/${uniqueRef("tenant")}`;
    const chargePath = `/${uniqueRef("charge")}`;
    await s.registerWebhook(integrationPath, "integration-token-0123456789");
    await t.database.db.updateTable("integration_clients").set({ type: "multitenant" }).where("id", "=", s.integrationId).execute();
    const key = uniqueRef("t");
    const tenant = await s.adminCall("POST", "/my-integration/tenant", {
      key,
      name: "Centro",
      webhook_url: receiver.url(tenantPath),
      webhook_validation_token: "tenant-token-0123456789",
    });
    expect(tenant.status).toBe(201);
    expect((await s.m.call("PUT", "/my-integration/tenant", { tenantKey: key })).status).toBe(200);

    const own = await s.charge({ webhookUrl: receiver.url(chargePath) });
    await s.admin.simulate({ cvu: own.CVU, amount: 1000 });
    const [event] = await receiver.waitFor(1, { path: chargePath });
    expect(event!.json).toMatchObject({ event: "payment_request.payment_received", referenceId: own.referenceId });
    expect(event!.headers).not.toHaveProperty("validation-token");
    const [stored] = await s.eventsOf(own.paymentRequestId);
    expect((await s.waitForDelivery(stored!.eventId, "delivered")).targetUrl).toBe(receiver.url(chargePath));

    // Rule 2: another charge of the same merchant, without webhookUrl: the tenant's URL and token.
    const plain = await s.charge();
    await s.admin.simulate({ cvu: plain.CVU, amount: 1000 });
    const [toTenant] = await receiver.waitFor(1, { path: tenantPath });
    expect(toTenant!.json).toMatchObject({ referenceId: plain.referenceId });
    expect(toTenant!.headers["validation-token"]).toBe("tenant-token-0123456789");

    // payment.unmatched never uses a charge's webhookUrl: a late transfer to the paid charge's CVU (the pool gave it
    // to the second charge too) goes to the tenant.
    await s.adminCall("PUT", "/my-integration/webhook-subscriptions", { enabledEvents: ["payment_request.payment_received", "payment.unmatched"] });
    const late = await s.admin.simulate({ cvu: own.CVU, amount: 10 });
    expect(late.json).toMatchObject({ conciliated: false, webhookEvent: "payment.unmatched", webhookWillFire: true });
    const toTenantAgain = await receiver.waitFor(2, { path: tenantPath });
    expect(toTenantAgain[1]!.json).toMatchObject({ event: "payment.unmatched", reason: "already_paid", cvu: own.CVU });
    expect(receiver.at(chargePath)).toHaveLength(1);
    expect(receiver.at(integrationPath).filter((request) => request.json.event !== "ping")).toHaveLength(0);
  });

  it("rule 3 and 4: without a tenant the integration's URL; without any URL the event is not sent and not retried", async () => {
    const s = await setup();
    const nowhere = await s.charge();
    await s.admin.simulate({ cvu: nowhere.CVU, amount: 1000 });
    const [lost] = await s.eventsOf(nowhere.paymentRequestId);
    expect(await s.waitForDelivery(lost!.eventId, "not_sent")).toMatchObject({ notSentReason: "no_target" });
    const row = await t.database.db.selectFrom("event_deliveries").select("attempts_made").where("event_id", "=", lost!.eventId).executeTakeFirstOrThrow();
    expect(row.attempts_made).toBe(0);
    // The worker removes the finished job just after the row is written; a retry would be a job that stays.
    const pendingJobs = async () =>
      (
        await sql<{ n: number }>`select count(*)::int as n from graphile_worker._private_jobs where key = ${deliverEventJobKey(lost!.eventId)}`.execute(
          t.database.db,
        )
      ).rows[0]!.n;
    await expect.poll(pendingJobs, { timeout: 5000 }).toBe(0);
    const listed = await s.adminCall("GET", "/my-integration/events");
    expect(listed.json.items.find((item: { eventId: string }) => item.eventId === lost!.eventId)).toMatchObject({
      deliveryStatus: "not_sent",
      notSentReason: "no_target",
      attempts: [],
    });

    const path = `/${uniqueRef("own")}`;
    await s.registerWebhook(path);
    const reached = await s.charge();
    await s.admin.simulate({ cvu: reached.CVU, amount: 1000 });
    const requests = await receiver.waitFor(2, { path });
    expect(requests[1]!.json).toMatchObject({ referenceId: reached.referenceId });
    expect(requests[1]!.headers).not.toHaveProperty("validation-token");

    // The lost event can be resent now that a destination exists: same id, delivered.
    const resent = await s.adminCall("POST", `/my-integration/events/${lost!.eventId}/resend`);
    expect(resent.status).toBe(202);
    expect(resent.json).toMatchObject({ eventId: lost!.eventId, webhookId: lost!.eventId, deliveryStatus: "pending", targetUrl: receiver.url(path) });
    const again = await receiver.waitFor(3, { path });
    expect(again[2]!.headers["x-service-webhook-id"]).toBe(lost!.eventId);
    expect(again[2]!.json).toMatchObject({ referenceId: nowhere.referenceId });
    await s.waitForDelivery(lost!.eventId, "delivered");
  });

  it("rule 3 after a delete: deleting the webhook URL that receives the events hands them to the previous one", async () => {
    const s = await setup();
    const previous = `/${uniqueRef("previous")}`;
    const latest = `/${uniqueRef("latest")}`;
    const kept = await s.registerWebhook(previous);
    t.clock.advance(1000);
    const dropped = await s.registerWebhook(latest);
    const first = await s.charge();
    await s.admin.simulate({ cvu: first.CVU, amount: 1000 });
    const [, toLatest] = await receiver.waitFor(2, { path: latest });
    expect(toLatest!.json).toMatchObject({ referenceId: first.referenceId });

    expect((await s.adminCall("DELETE", `/my-integration/urls/${dropped.clientUrlId}`)).status).toBe(204);
    const listed = await s.adminCall("GET", "/my-integration/urls");
    expect(listed.json.items).toEqual([expect.objectContaining({ clientUrlId: kept.clientUrlId, receivesEvents: true })]);
    const second = await s.charge();
    await s.admin.simulate({ cvu: second.CVU, amount: 1000 });
    const [, toPrevious] = await receiver.waitFor(2, { path: previous }); // its registration's ping, then the event
    expect(toPrevious!.json).toMatchObject({ event: "payment_request.payment_received", referenceId: second.referenceId });
    const [event] = await s.eventsOf(second.paymentRequestId);
    expect(await s.waitForDelivery(event!.eventId, "delivered")).toMatchObject({ targetUrl: receiver.url(previous) });
    expect(receiver.at(latest)).toHaveLength(2);
  });

  it("the subscription gate: an event not in enabledEvents is not sent; payment.unmatched is off by default", async () => {
    const s = await setup();
    const path = `/${uniqueRef("gate")}`;
    await s.registerWebhook(path);
    const paid = await s.charge();
    await s.adminCall("PUT", "/my-integration/webhook-subscriptions", { enabledEvents: [] });
    await s.admin.simulate({ cvu: paid.CVU, amount: 1000 });
    const [silenced] = await s.eventsOf(paid.paymentRequestId);
    expect(await s.waitForDelivery(silenced!.eventId, "not_sent")).toMatchObject({ notSentReason: "not_subscribed" });

    // Default subscription: payment_received on, unmatched off.
    await s.adminCall("PUT", "/my-integration/webhook-subscriptions", { enabledEvents: ["payment_request.payment_received", "payment_request.expired"] });
    const late = await s.admin.simulate({ cvu: paid.CVU, amount: 10 });
    expect(late.json).toMatchObject({ webhookEvent: "payment.unmatched", webhookWillFire: false });
    const [unmatched] = await s.admin.events("payment.unmatched");
    expect(unmatched, "the payment.unmatched event").toBeDefined();
    expect(await s.waitForDelivery(unmatched!.eventId, "not_sent")).toMatchObject({ notSentReason: "not_subscribed" });
    expect(receiver.at(path).map((request) => request.json.event)).toEqual(["ping"]);

    const byName = await s.adminCall("GET", "/my-integration/events?event=payment.unmatched");
    expect(byName.json).toMatchObject({
      total: 1,
      limit: 20,
      offset: 0,
      items: [{ eventId: unmatched!.eventId, event: "payment.unmatched", deliveryStatus: "not_sent", notSentReason: "not_subscribed" }],
    });
    const pages = [await s.adminCall("GET", "/my-integration/events?limit=1&offset=0"), await s.adminCall("GET", "/my-integration/events?limit=1&offset=1")];
    expect(pages[1]!.json).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(pages.flatMap((page) => page.json.items.map((item: { eventId: string }) => item.eventId)).sort()).toEqual(
      [silenced!.eventId, unmatched!.eventId].sort(),
    );

    // Resend applies the gate of now: 409 while still unsubscribed.
    const refused = await s.adminCall("POST", `/my-integration/events/${unmatched!.eventId}/resend`);
    expect(refused.status).toBe(409);
    expect(refused.json).toMatchObject({ code: "EventNotDeliverableError", cause: expect.stringContaining("not_subscribed") });
  });

  it("a redirect is a failed attempt and is never followed", async () => {
    const s = await setup();
    const path = `/${uniqueRef("moved")}`;
    const target = `/${uniqueRef("target")}`;
    await s.registerWebhook(path);
    receiver.answerNext({ status: 307, headers: { location: receiver.url(target) } });
    const paid = await s.charge();
    await s.admin.simulate({ cvu: paid.CVU, amount: 1000 });
    const [event] = await s.eventsOf(paid.paymentRequestId);
    await receiver.waitFor(2, { path });
    const deadline = Date.now() + 5000;
    let attempts: Array<{ error?: string; responseStatus?: number }> = [];
    while (attempts.length === 0 && Date.now() < deadline) {
      const listed = await s.adminCall("GET", "/my-integration/events?delivered=false");
      attempts = listed.json.items.find((item: { eventId: string }) => item.eventId === event!.eventId)?.attempts ?? [];
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(attempts).toEqual([expect.objectContaining({ attempt: 1, responseStatus: 307, error: "redirect" })]);
    expect(receiver.at(target)).toHaveLength(0);
  });

  it("payment_request.expired of a charge with a time is enqueued by the set-based transition and delivered", async () => {
    const s = await setup();
    const path = `/${uniqueRef("expired")}`;
    await s.registerWebhook(path);
    const dueAt = new Date(t.clock.now().getTime() + 2 * 3600_000).toISOString().slice(0, 16);
    const shortLived = await s.charge({ dueDates: [`${dueAt}Z`] });
    const advanced = await s.admin.advanceClock({ advanceBy: "PT3H" });
    expect(advanced.status).toBe(200);
    const requests = await receiver.waitFor(2, { path });
    expect(requests[1]!.json).toMatchObject({ event: "payment_request.expired", referenceId: shortLived.referenceId, stateType: "overdue" });
    const [expired] = await s.eventsOf(shortLived.paymentRequestId);
    expect(requests[1]!.headers["x-service-webhook-id"]).toBe(expired!.eventId);
  });
});
