// Every delivery also carries the Standard Webhooks headers (webhook-id, webhook-timestamp,
// webhook-signature), checked here on real deliveries to a loopback receiver with Standard Webhooks' own
// libraries for TypeScript (npm `standardwebhooks`) and Python (PyPI `standardwebhooks`, in .venv-test),
// each built with its default constructor and the secret exactly as the Admin API returns it. A secret
// issued before (`legacy`) keeps signing as it did until rotated, and says that rotating is recommended.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { verifyWebhookSignature } from "../../sdk/src/webhook-signature.ts";
import { standardWebhookProblem, verifyWebhook } from "../../sdk/src/standard-webhooks.ts";
import { SecretKeyring } from "../../domain/secrets/keyring.ts";
import { placeOf, WEBHOOK_SIGNING_SECRET } from "../../domain/secrets/sealed-columns.ts";
import { linkedMerchant, TEST_SECRET_KEY } from "../helpers/service.ts";
import { sandboxAdmin } from "../helpers/sandbox-admin.ts";
import { chargeBody, dueDateIn } from "../helpers/charges.ts";
import { pythonWith, runPythonJson } from "../helpers/python-venv.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { deliveringServiceForFile, type ReceivedRequest } from "../helpers/webhook-receiver.ts";

const { service: t, receiver } = deliveringServiceForFile();

const standardHeaders = (request: ReceivedRequest) => ({
  "webhook-id": String(request.headers["webhook-id"]),
  "webhook-timestamp": String(request.headers["webhook-timestamp"]),
  "webhook-signature": String(request.headers["webhook-signature"]),
});

/** A Sandbox integration with a webhook URL on the receiver, its admin, and the URL's path. */
async function integrationWithWebhookUrl() {
  const m = await linkedMerchant(t);
  const admin = await sandboxAdmin(t, m.sandbox);
  const path = `/${uniqueRef("std")}`;
  const registered = await admin.call("POST", "/my-integration/urls", { url: receiver.url(path), urlType: "webhook" });
  expect(registered.status, registered.text).toBe(201);
  return { m, admin, path };
}

/** The Python library's verdict on each request: the parsed payload, or the error it raised. */
const VERIFY_IN_PYTHON = `
import json, sys
from standardwebhooks import Webhook
given = json.load(sys.stdin)
webhook = Webhook(given["secret"])
results = []
for request in given["requests"]:
    try:
        results.append({"payload": webhook.verify(request["body"], request["headers"])})
    except Exception as error:
        results.append({"error": type(error).__name__ + ": " + str(error)})
print(json.dumps(results))
`;

describe("Standard Webhooks headers", () => {
  it("a payment_received delivery and the registration's ping verify with the TypeScript library's default constructor and the secret as returned", async () => {
    const { m, admin, path } = await integrationWithWebhookUrl();
    const read = await admin.call("GET", "/my-integration/webhook-signing-secret");
    expect(read.json).toEqual({ webhookSigningSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/), scheme: "standard" });
    const secret: string = read.json.webhookSigningSecret;
    expect(Buffer.from(secret.slice("whsec_".length), "base64")).toHaveLength(32);
    const created = await m.call("POST", "/payment-request", chargeBody({ dueDates: [dueDateIn(t.clock, 5)] }));
    expect(created.status, created.text).toBe(201);
    await admin.simulate({ cvu: created.json.CVU, amount: 1000 });
    const [ping, delivery] = await receiver.waitFor(2, { path });

    const webhook = new Webhook(secret);
    for (const request of [ping!, delivery!]) {
      expect(webhook.verify(request.rawBody, standardHeaders(request))).toEqual(request.json);
      // Keyed with the decoded bytes, not with the string: the string as a raw key does not verify.
      expect(() => new Webhook(secret, { format: "raw" }).verify(request.rawBody, standardHeaders(request))).toThrow(WebhookVerificationError);
      // X-Service-Signature, beside it, verifies with the same secret string (the SDK's verifier).
      expect(verifyWebhookSignature(request.rawBody, String(request.headers["x-service-signature"]), secret, { now: t.clock.now() })).toBe(true);
      // The SDK's Standard Webhooks verifier agrees, on the request's own headers object, and so does its check of both.
      expect(standardWebhookProblem(request.rawBody, request.headers, secret, { now: t.clock.now() })).toBeUndefined();
      expect(verifyWebhook(request.rawBody, request.headers, secret, { now: t.clock.now() })).toBe(true);
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

  it("the same deliveries verify with the Python library's default constructor, Webhook(secret), and a tampered body does not", async (context) => {
    const python = await pythonWith("standardwebhooks", (reason) => context.skip(reason));
    if (python === undefined) return;
    const { m, admin, path } = await integrationWithWebhookUrl();
    const secret: string = (await admin.call("GET", "/my-integration/webhook-signing-secret")).json.webhookSigningSecret;
    const created = await m.call("POST", "/payment-request", chargeBody({ dueDates: [dueDateIn(t.clock, 5)] }));
    expect(created.status, created.text).toBe(201);
    await admin.simulate({ cvu: created.json.CVU, amount: 1000 });
    const [ping, delivery] = await receiver.waitFor(2, { path });

    const requests = [ping!, delivery!].map((request) => ({ body: request.rawBody, headers: standardHeaders(request) }));
    const tampered = { body: `${delivery!.rawBody} `, headers: standardHeaders(delivery!) };
    const results = await runPythonJson(python, VERIFY_IN_PYTHON, { secret, requests: [...requests, tampered] });
    expect(results).toEqual([{ payload: { event: "ping" } }, { payload: delivery!.json }, { error: "WebhookVerificationError: No matching signature found" }]);
    expect(delivery!.json).toMatchObject({ event: "payment_request.payment_received", referenceId: created.json.referenceId });
  }, 120_000);

  it("the signature covers the id, the timestamp and the exact body: changing any of them, or another key, fails verification", async () => {
    const { admin, path } = await integrationWithWebhookUrl();
    const secret: string = (await admin.call("GET", "/my-integration/webhook-signing-secret")).json.webhookSigningSecret;
    const [ping] = await receiver.waitFor(1, { path });
    const webhook = new Webhook(secret);
    const headers = standardHeaders(ping!);
    expect(webhook.verify(ping!.rawBody, headers)).toEqual({ event: "ping" });

    expect(() => webhook.verify(`${ping!.rawBody} `, headers)).toThrow(WebhookVerificationError);
    expect(() => webhook.verify(ping!.rawBody, { ...headers, "webhook-id": `${headers["webhook-id"]}x` })).toThrow(WebhookVerificationError);
    expect(() => webhook.verify(ping!.rawBody, { ...headers, "webhook-timestamp": String(Number(headers["webhook-timestamp"]) - 1) })).toThrow(
      WebhookVerificationError,
    );
    expect(() => new Webhook(`whsec_${randomBytes(32).toString("base64")}`).verify(ping!.rawBody, headers)).toThrow(WebhookVerificationError);
  });

  it("a secret issued before keeps signing as before (its UTF-8 bytes as the key), says rotating is recommended, and the rotation gives a standard one", async () => {
    const { m, admin, path } = await integrationWithWebhookUrl();
    await receiver.waitFor(1, { path }); // the registration's ping
    const integration = await t.database.db
      .selectFrom("integration_clients")
      .select("id")
      .where("provider_client_id", "=", m.sandbox.integration.clientId)
      .executeTakeFirstOrThrow();
    // A secret as they were issued before: `whsec_` and the base64url of 24 random bytes, stored as `legacy`
    // (what migration 2026_11_27_0029 makes of every row it finds).
    const legacy = `whsec_${randomBytes(24).toString("base64url")}`;
    await t.database.db
      .updateTable("webhook_signing_secrets")
      .set({ secret: SecretKeyring.parse(TEST_SECRET_KEY).seal(legacy, placeOf(WEBHOOK_SIGNING_SECRET, integration.id)), scheme: "legacy" })
      .where("integration_client_id", "=", integration.id)
      .execute();
    expect((await admin.call("GET", "/my-integration/webhook-signing-secret")).json).toEqual({ webhookSigningSecret: legacy, scheme: "legacy" });

    const before = receiver.at(path).length;
    const created = await m.call("POST", "/payment-request", chargeBody({ dueDates: [dueDateIn(t.clock, 5)] }));
    expect(created.status, created.text).toBe(201);
    await admin.simulate({ cvu: created.json.CVU, amount: 1000 });
    const [delivery] = (await receiver.waitFor(before + 1, { path })).slice(before);
    expect(delivery!.json).toMatchObject({ referenceId: created.json.referenceId });
    // Both signatures keyed as before: the seed's with the string, Standard Webhooks' with its UTF-8 bytes (a raw key).
    expect(verifyWebhookSignature(delivery!.rawBody, String(delivery!.headers["x-service-signature"]), legacy, { now: t.clock.now() })).toBe(true);
    expect(new Webhook(legacy, { format: "raw" }).verify(delivery!.rawBody, standardHeaders(delivery!))).toEqual(delivery!.json);
    // The SDK's verifier, told the secret's scheme, accepts both; read as a standard secret, it refuses the Standard Webhooks one.
    expect(verifyWebhook(delivery!.rawBody, delivery!.headers, legacy, { now: t.clock.now(), scheme: "legacy" })).toBe(true);
    // Read as a standard secret it is refused: not base64 (a TypeError), or, when its base64url has no `-` or `_`, another key.
    let asStandard: string | undefined;
    try {
      asStandard = standardWebhookProblem(delivery!.rawBody, delivery!.headers, legacy, { now: t.clock.now() });
    } catch (error) {
      asStandard = error instanceof TypeError ? "not_base64" : String(error);
    }
    expect(["not_base64", "signature_mismatch"]).toContain(asStandard);

    const rotated = await admin.call("PUT", "/my-integration/webhook-signing-secret/rotate");
    expect(rotated).toMatchObject({ status: 200, json: { webhookSigningSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/), scheme: "standard" } });
    const secret: string = rotated.json.webhookSigningSecret;
    expect((await admin.call("GET", "/my-integration/webhook-signing-secret")).json).toEqual(rotated.json);
    const row = await t.database.db
      .selectFrom("webhook_signing_secrets")
      .select(["scheme", "rotated_at"])
      .where("integration_client_id", "=", integration.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ scheme: "standard", rotated_at: expect.any(Date) });

    // The resend is signed with the new secret, which the default constructor reads.
    const [event] = (await admin.events("payment_request.payment_received")).filter((listed) => listed.payload.referenceId === created.json.referenceId);
    expect((await admin.call("POST", `/my-integration/events/${event!.eventId}/resend`)).status).toBe(202);
    const [resent] = (await receiver.waitFor(before + 2, { path })).slice(before + 1);
    expect(resent!.headers["webhook-id"]).toBe(event!.eventId);
    expect(new Webhook(secret).verify(resent!.rawBody, standardHeaders(resent!))).toEqual(delivery!.json);
    expect(verifyWebhookSignature(resent!.rawBody, String(resent!.headers["x-service-signature"]), secret, { now: t.clock.now() })).toBe(true);
    expect(() => new Webhook(legacy, { format: "raw" }).verify(resent!.rawBody, standardHeaders(resent!))).toThrow(WebhookVerificationError);
  });
});
