// Every delivery also carries the Standard Webhooks headers (webhook-id, webhook-timestamp,
// webhook-signature), checked here with the `standardwebhooks` receivers' library on real deliveries to a
// loopback receiver: the key is the signing secret's own bytes, given to the library as a raw key.
import { describe, expect, it } from "vitest";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { linkedMerchant } from "../helpers/service.ts";
import { sandboxAdmin } from "../helpers/sandbox-admin.ts";
import { chargeBody, dueDateIn } from "../helpers/charges.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { deliveringServiceForFile, type ReceivedRequest } from "../helpers/webhook-receiver.ts";

const { service: t, receiver } = deliveringServiceForFile();

const standardHeaders = (request: ReceivedRequest) => ({
  "webhook-id": String(request.headers["webhook-id"]),
  "webhook-timestamp": String(request.headers["webhook-timestamp"]),
  "webhook-signature": String(request.headers["webhook-signature"]),
});

describe("Standard Webhooks headers", () => {
  it("a payment_received delivery and the registration's ping verify with the standardwebhooks library, keyed with the signing secret", async () => {
    const m = await linkedMerchant(t);
    const admin = await sandboxAdmin(t, m.sandbox);
    const path = `/${uniqueRef("std")}`;
    const registered = await admin.call("POST", "/my-integration/urls", { url: receiver.url(path), urlType: "webhook" });
    expect(registered.status, registered.text).toBe(201);
    const secret: string = (await admin.call("GET", "/my-integration/webhook-signing-secret")).json.webhookSigningSecret;
    const created = await m.call("POST", "/payment-request", chargeBody({ dueDates: [dueDateIn(t.clock, 5)] }));
    expect(created.status, created.text).toBe(201);
    await admin.simulate({ cvu: created.json.CVU, amount: 1000 });
    const [ping, delivery] = await receiver.waitFor(2, { path });

    const asRawKey = new Webhook(secret, { format: "raw" });
    // The same key in the form Standard Webhooks secrets take (`whsec_` + base64 of the key bytes).
    const asStandardSecret = new Webhook(`whsec_${Buffer.from(secret, "utf8").toString("base64")}`);
    for (const request of [ping!, delivery!]) {
      expect(asRawKey.verify(request.rawBody, standardHeaders(request))).toEqual(request.json);
      expect(asStandardSecret.verify(request.rawBody, standardHeaders(request))).toEqual(request.json);
      expect(request.headers["webhook-id"]).toBe(request.headers["x-service-webhook-id"]);
      expect(request.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      // The same instant as our own signature's `t=`.
      expect(String(request.headers["x-service-signature"])).toContain(`t=${request.headers["webhook-timestamp"]},`);
    }
    expect(ping!.json).toEqual({ event: "ping" });

    // webhook-id is the event's id, as GET /my-integration/events lists it.
    const [event] = (await admin.events("payment_request.payment_received")).filter((listed) => listed.payload.referenceId === created.json.referenceId);
    expect(delivery!.headers["webhook-id"]).toBe(event!.eventId);
    expect(Number(delivery!.headers["webhook-timestamp"])).toBe(Math.floor(t.clock.now().getTime() / 1000));
  });

  it("the signature covers the id, the timestamp and the exact body: changing any of them, or another key, fails verification", async () => {
    const m = await linkedMerchant(t);
    const admin = await sandboxAdmin(t, m.sandbox);
    const path = `/${uniqueRef("std")}`;
    expect((await admin.call("POST", "/my-integration/urls", { url: receiver.url(path), urlType: "webhook" })).status).toBe(201);
    const secret: string = (await admin.call("GET", "/my-integration/webhook-signing-secret")).json.webhookSigningSecret;
    const [ping] = await receiver.waitFor(1, { path });
    const webhook = new Webhook(secret, { format: "raw" });
    const headers = standardHeaders(ping!);
    expect(webhook.verify(ping!.rawBody, headers)).toEqual({ event: "ping" });

    expect(() => webhook.verify(`${ping!.rawBody} `, headers)).toThrow(WebhookVerificationError);
    expect(() => webhook.verify(ping!.rawBody, { ...headers, "webhook-id": `${headers["webhook-id"]}x` })).toThrow(WebhookVerificationError);
    expect(() => webhook.verify(ping!.rawBody, { ...headers, "webhook-timestamp": String(Number(headers["webhook-timestamp"]) - 1) })).toThrow(
      WebhookVerificationError,
    );
    expect(() => new Webhook(`${secret}x`, { format: "raw" }).verify(ping!.rawBody, headers)).toThrow(WebhookVerificationError);
  });
});
