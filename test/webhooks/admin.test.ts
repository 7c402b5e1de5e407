// The Admin API's webhook operations over real HTTP: the subscription, the signing secret, the catalog,
// tenants (every rule and error), client URLs with their non-blocking verification, which one receives
// the events and their deletion (a redirect URI then refused at /authorize), the SSRF guard at
// registration, every status of the Sandbox's test webhook, and what Production refuses.
import { randomUUID } from "node:crypto";
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhookSignature } from "../../sdk/src/webhook-signature.ts";
import { bearerCaller, read, servicesForFile, type TestService } from "../helpers/service.ts";
import { sandboxAdmin } from "../helpers/sandbox-admin.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { authorizeUrl } from "../helpers/oauth.ts";

const { sandbox: t, production } = servicesForFile({
  sandbox: { env: { COBRO_ALLOW_LOOPBACK_URLS: "true" } },
  production: { env: { SERVICE_ENV: "production", COBRO_ALLOW_LOOPBACK_URLS: "true" } },
});
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

/** A fresh integration of `service` and its admin's calls. */
async function integrationAdmin(service: TestService) {
  const sandbox = await service.sandbox();
  const { call } = await sandboxAdmin(service, sandbox);
  const integration = await service.database.db
    .selectFrom("integration_clients")
    .select("id")
    .where("provider_client_id", "=", sandbox.integration.clientId)
    .executeTakeFirstOrThrow();
  const makeMultitenant = () => service.database.db.updateTable("integration_clients").set({ type: "multitenant" }).where("id", "=", integration.id).execute();
  return { sandbox, call, integrationId: integration.id, makeMultitenant };
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("subscription, secret and catalog", () => {
  it("the subscription defaults to payment_received and expired, is replaced whole, and refuses names outside the catalog with 422", async () => {
    const { call } = await integrationAdmin(t);
    expect((await call("GET", "/my-integration/webhook-subscriptions")).json).toEqual({
      enabledEvents: ["payment_request.payment_received", "payment_request.expired"],
    });
    const unknown = await call("PUT", "/my-integration/webhook-subscriptions", { enabledEvents: ["payment.unmatched", "charge.refunded"] });
    expect(unknown.status).toBe(422);
    expect(unknown.json).toMatchObject({ code: "UnknownWebhookEventError", cause: expect.stringContaining("charge.refunded"), id: expect.any(String) });
    expect((await call("GET", "/my-integration/webhook-subscriptions")).json.enabledEvents).not.toContain("payment.unmatched");
    expect((await call("PUT", "/my-integration/webhook-subscriptions", { enabledEvents: ["payment.unmatched", "payment.unmatched"] })).status).toBe(400);
    expect((await call("PUT", "/my-integration/webhook-subscriptions", {})).status).toBe(400);
    const replaced = await call("PUT", "/my-integration/webhook-subscriptions", { enabledEvents: ["payment.unmatched"] });
    expect(replaced).toMatchObject({ status: 200, json: { enabledEvents: ["payment.unmatched"] } });
    const empty = await call("PUT", "/my-integration/webhook-subscriptions", { enabledEvents: [] });
    expect(empty).toMatchObject({ status: 200, json: { enabledEvents: [] } });
  });

  it("the signing secret: 404 until one exists, created by rotate, returned in clear, replaced by the next rotation", async () => {
    const { call } = await integrationAdmin(t);
    const missing = await call("GET", "/my-integration/webhook-signing-secret");
    expect(missing).toMatchObject({ status: 404, json: { code: "WebhookSigningSecretNotFoundError" } });
    const created = await call("PUT", "/my-integration/webhook-signing-secret/rotate");
    expect(created.status).toBe(200);
    // `whsec_` and the padded base64 of 32 bytes, as Standard Webhooks libraries read it by default.
    expect(created.json).toEqual({ webhookSigningSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/), scheme: "standard" });
    expect((await call("GET", "/my-integration/webhook-signing-secret")).json).toEqual(created.json);
    const rotated = await call("PUT", "/my-integration/webhook-signing-secret/rotate");
    expect(rotated.json.webhookSigningSecret).not.toBe(created.json.webhookSigningSecret);
    expect((await call("GET", "/my-integration/webhook-signing-secret")).json).toEqual(rotated.json);
  });

  it("the catalog lists the five events with Spanish labels; the returns' are off until subscribed", async () => {
    const { call } = await integrationAdmin(t);
    const catalog = await call("GET", "/my-integration/webhook-events");
    expect(catalog.status).toBe(200);
    expect(catalog.json.map((item: { event: string }) => item.event)).toEqual([
      "payment_request.payment_received",
      "payment_request.expired",
      "payment.unmatched",
      "payment.returned",
      "payment.return_failed",
    ]);
    expect(catalog.json[2]).toMatchObject({ label: "Pago sin imputar", description: expect.any(String) });
    expect(catalog.json.slice(3).map((item: { label: string }) => item.label)).toEqual(["Pago devuelto", "Devolución fallida"]);
    expect((await call("GET", "/my-integration/webhook-subscriptions")).json.enabledEvents).not.toContain("payment.returned");
    const subscribed = await call("PUT", "/my-integration/webhook-subscriptions", { enabledEvents: ["payment.returned", "payment.return_failed"] });
    expect(subscribed).toMatchObject({ status: 200, json: { enabledEvents: ["payment.returned", "payment.return_failed"] } });
  });
});

describe("tenants", () => {
  it("creating requires the multitenant type; the key is unique among active tenants; the token is write-only", async () => {
    const { call, makeMultitenant } = await integrationAdmin(t);
    const body = { key: "sucursal-centro", name: "Sucursal Centro", webhook_url: receiver.url("/centro"), webhook_validation_token: "c3ntr0-v4lid4t10n-t0k3n" };
    const gated = await call("POST", "/my-integration/tenant", body);
    expect(gated).toMatchObject({ status: 403, json: { code: "IntegrationNotMultitenantError" } });
    await makeMultitenant();
    const created = await call("POST", "/my-integration/tenant", body);
    expect(created.status).toBe(201);
    expect(created.json).toEqual({ integrationTenantId: expect.any(String), key: "sucursal-centro", name: "Sucursal Centro" });
    const duplicate = await call("POST", "/my-integration/tenant", { ...body, name: "Otra" });
    expect(duplicate).toMatchObject({ status: 409, json: { code: "TenantDuplicateKeyError", id: expect.any(String) } });
    await call("POST", "/my-integration/tenant", { key: "sucursal-rosario", name: "Sucursal Rosario", webhook_url: receiver.url("/rosario") });
    const list = await call("GET", "/my-integration/tenant");
    expect(list.json).toEqual([
      {
        integrationTenantId: created.json.integrationTenantId,
        key: "sucursal-centro",
        name: "Sucursal Centro",
        webhook_url: receiver.url("/centro"),
        hasValidationToken: true,
      },
      expect.objectContaining({ key: "sucursal-rosario", hasValidationToken: false }),
    ]);
    expect(list.text).not.toContain("c3ntr0-v4lid4t10n-t0k3n");
    const short = await call("POST", "/my-integration/tenant", {
      key: "corto",
      name: "Corto",
      webhook_url: receiver.url("/x"),
      webhook_validation_token: "too-short",
    });
    expect(short).toMatchObject({ status: 400, json: { code: "ValidationError" } });
  });

  it("a webhook_url that points to a private network or cannot be validated is 400 TenantWebhookUrlInvalidError", async () => {
    const { call, makeMultitenant } = await integrationAdmin(t);
    await makeMultitenant();
    for (const url of [
      "https://10.0.0.7/hook",
      "https://192.168.1.10/hook",
      "https://169.254.169.254/latest",
      "https://[fd00::1]/hook",
      "https://[::ffff:10.0.0.1]/hook",
      "https://no-such-host.invalid/hook",
    ]) {
      const refused = await call("POST", "/my-integration/tenant", { key: uniqueRef("k"), name: "Privada", webhook_url: url });
      expect(refused.status, url).toBe(400);
      expect(refused.json.code, url).toBe("TenantWebhookUrlInvalidError");
    }
    const plainHttp = await call("POST", "/my-integration/tenant", { key: uniqueRef("k"), name: "Http", webhook_url: "http://example.com/hook" });
    expect(plainHttp).toMatchObject({ status: 400, json: { code: "ValidationError" } });
  });

  it("update replaces key, name and URL (same rules), validation tokens are set, rotated and removed, unknown tenants are 404", async () => {
    const { call, makeMultitenant } = await integrationAdmin(t);
    await makeMultitenant();
    const a = (await call("POST", "/my-integration/tenant", { key: "a", name: "A", webhook_url: receiver.url("/a") })).json;
    await call("POST", "/my-integration/tenant", { key: "b", name: "B", webhook_url: receiver.url("/b") });
    const updated = await call("PUT", `/my-integration/tenant/${a.integrationTenantId}`, { key: "a2", name: "A dos", webhook_url: receiver.url("/a2") });
    expect(updated).toMatchObject({
      status: 200,
      json: { integrationTenantId: a.integrationTenantId, key: "a2", name: "A dos", webhook_url: receiver.url("/a2"), hasValidationToken: false },
    });
    expect((await call("PUT", `/my-integration/tenant/${a.integrationTenantId}`, { key: "b", name: "A", webhook_url: receiver.url("/a") })).json.code).toBe(
      "TenantDuplicateKeyError",
    );
    expect((await call("PUT", `/my-integration/tenant/${a.integrationTenantId}`, { key: "a2", name: "A", webhook_url: "https://10.1.1.1/a" })).json.code).toBe(
      "TenantWebhookUrlInvalidError",
    );
    const missing = await call("PUT", `/my-integration/tenant/${randomUUID()}`, { key: "z", name: "Z", webhook_url: receiver.url("/z") });
    expect(missing).toMatchObject({
      status: 404,
      json: { code: "TenantNotFoundError", message: "The specified tenant does not exist or was deleted", id: expect.any(String) },
    });

    expect((await call("PUT", `/my-integration/tenant/${a.integrationTenantId}/validation-token`, { webhook_validation_token: "short" })).status).toBe(400);
    const set = await call("PUT", `/my-integration/tenant/${a.integrationTenantId}/validation-token`, {
      webhook_validation_token: "n3w-c3ntr0-v4lid4t10n-t0k3n",
    });
    expect(set.status).toBe(204);
    expect(set.text).toBe("");
    expect((await call("GET", "/my-integration/tenant")).json.find((x: { key: string }) => x.key === "a2").hasValidationToken).toBe(true);
    expect((await call("DELETE", `/my-integration/tenant/${a.integrationTenantId}/validation-token`)).status).toBe(204);
    expect((await call("GET", "/my-integration/tenant")).json.find((x: { key: string }) => x.key === "a2").hasValidationToken).toBe(false);
    expect((await call("DELETE", `/my-integration/tenant/${a.integrationTenantId}/validation-token`)).status).toBe(204);
    expect(
      (await call("PUT", `/my-integration/tenant/${randomUUID()}/validation-token`, { webhook_validation_token: "n3w-c3ntr0-v4lid4t10n-t0k3n" })).status,
    ).toBe(404);
    expect((await call("DELETE", `/my-integration/tenant/${randomUUID()}/validation-token`)).status).toBe(404);
  });

  it("a tenant with assigned merchant accounts cannot be deleted (409); once they leave it can, and its key is free again", async () => {
    const { call, makeMultitenant, sandbox } = await integrationAdmin(t);
    await makeMultitenant();
    const tenant = (await call("POST", "/my-integration/tenant", { key: "bound", name: "Con comercios", webhook_url: receiver.url("/bound") })).json;
    const tokens = await call("POST", "/my-integration/test-tokens");
    const assigned = await bearerCaller(t.integrationUrl, () => tokens.json.idToken)("PUT", "/my-integration/tenant", { tenantKey: "bound" });
    expect(assigned.status).toBe(200);
    const refused = await call("DELETE", `/my-integration/tenant/${tenant.integrationTenantId}`);
    expect(refused).toMatchObject({ status: 409, json: { code: "TenantHasBoundUsersError" } });

    const bound = (await call("GET", "/my-integration/users")).json.items.filter((user: { tenantKey?: string }) => user.tenantKey === "bound");
    expect(bound).toHaveLength(1);
    expect((await call("DELETE", `/my-integration/users/${bound[0].integrationClientUserId}`)).status).toBe(204); // unlink the merchant
    expect((await call("DELETE", `/my-integration/tenant/${tenant.integrationTenantId}`)).status).toBe(204);
    expect((await call("DELETE", `/my-integration/tenant/${tenant.integrationTenantId}`)).status).toBe(404);
    expect((await call("DELETE", "/my-integration/tenant/not-a-uuid")).status).toBe(400);
    expect((await call("GET", "/my-integration/tenant")).json).toEqual([]);
    expect((await call("POST", "/my-integration/tenant", { key: "bound", name: "Otra vez", webhook_url: receiver.url("/bound") })).status).toBe(201);
    expect(sandbox.integration.clientId).toBeTruthy();
  });
});

describe("client URLs", () => {
  it("a webhook URL is registered with a non-blocking verification: ok, non_2xx with httpStatus, unreachable", async () => {
    const { call } = await integrationAdmin(t);
    const path = `/${uniqueRef("hook")}`;
    const created = await call("POST", "/my-integration/urls", { url: receiver.url(path), urlType: "webhook", validationToken: "tok-9f8e7d6c5b4a3210" });
    expect(created).toMatchObject({
      status: 201,
      json: {
        clientUrlId: expect.any(String),
        data: { hasValidationToken: true, urlType: "webhook", url: receiver.url(path) },
        verification: { status: "ok" },
      },
    });
    const [ping] = await receiver.waitFor(1, { path });
    expect(ping!.json).toEqual({ event: "ping" });
    expect(ping!.headers["validation-token"]).toBe("tok-9f8e7d6c5b4a3210");
    const secret = (await call("GET", "/my-integration/webhook-signing-secret")).json.webhookSigningSecret;
    expect(verifyWebhookSignature(ping!.rawBody, ping!.headers["x-service-signature"] as string, secret, { now: t.clock.now() })).toBe(true);

    receiver.answerNext({ status: 404 });
    const moved = await call("PUT", `/my-integration/urls/${created.json.clientUrlId}`, { url: receiver.url(`${path}/v2`) });
    expect(moved).toMatchObject({
      status: 200,
      json: { data: { hasValidationToken: false, url: receiver.url(`${path}/v2`) }, verification: { status: "non_2xx", httpStatus: 404 } },
    });

    receiver.answerNext({ status: 302, headers: { location: "https://example.com/" } });
    expect((await call("POST", `/my-integration/urls/${created.json.clientUrlId}/test`)).json).toEqual({ verification: { status: "unreachable" } });
    expect((await call("POST", `/my-integration/urls/${created.json.clientUrlId}/test`)).json).toEqual({ verification: { status: "ok" } });

    const dead = await call("POST", "/my-integration/urls", { url: `http://127.0.0.1:${await closedPort()}/hook`, urlType: "webhook" });
    expect(dead).toMatchObject({ status: 201, json: { verification: { status: "unreachable" } } });
    expect(dead.json.verification).not.toHaveProperty("httpStatus");

    expect((await call("PUT", `/my-integration/urls/${randomUUID()}`, { url: receiver.url("/x") })).json.code).toBe("ClientUrlNotFoundError");
    expect((await call("POST", `/my-integration/urls/${randomUUID()}/test`)).status).toBe(404);
  });

  it("a webhook URL to an internal address is 400 WebhookUrlBlockedError at registration", async () => {
    const { call } = await integrationAdmin(t);
    for (const url of ["https://10.0.0.1/hook", "https://169.254.169.254/latest/meta-data", "https://[::ffff:192.168.0.1]/hook", "https://100.64.0.1/hook"]) {
      const refused = await call("POST", "/my-integration/urls", { url, urlType: "webhook" });
      expect(refused.status, url).toBe(400);
      expect(refused.json.code, url).toBe("WebhookUrlBlockedError");
    }
  });

  it("redirect URIs are kept in the OAuth list, take no token, are not tested", async () => {
    const { call, integrationId } = await integrationAdmin(t);
    expect(
      (
        await call("POST", "/my-integration/urls", {
          url: "https://app.example.com/callback",
          urlType: "redirect_uri",
          validationToken: "tok-9f8e7d6c5b4a3210",
        })
      ).json.code,
    ).toBe("ValidationError");
    const created = await call("POST", "/my-integration/urls", { url: "https://app.example.com/callback", urlType: "redirect_uri" });
    expect(created).toMatchObject({ status: 201, json: { data: { urlType: "redirect_uri", hasValidationToken: false } } });
    expect(created.json).not.toHaveProperty("verification");
    const uris = async () =>
      (await t.database.db.selectFrom("integration_clients").select("redirect_uris").where("id", "=", integrationId).executeTakeFirstOrThrow()).redirect_uris;
    expect(await uris()).toContain("https://app.example.com/callback");
    const updated = await call("PUT", `/my-integration/urls/${created.json.clientUrlId}`, { url: "https://app.example.com/v2/callback" });
    expect(updated.status).toBe(200);
    expect(await uris()).toContain("https://app.example.com/v2/callback");
    expect(await uris()).not.toContain("https://app.example.com/callback");
    expect((await call("POST", `/my-integration/urls/${created.json.clientUrlId}/test`)).json).toMatchObject({ code: "ClientUrlNotTestableError" });
  });

  it("lists the integration's own URLs, oldest first, without verification and without another integration's", async () => {
    const { call } = await integrationAdmin(t);
    const other = await integrationAdmin(t);
    expect((await call("GET", "/my-integration/urls")).json).toEqual({ items: [], total: 0 });
    const redirect = await call("POST", "/my-integration/urls", { url: "https://app.example.com/callback", urlType: "redirect_uri" });
    const webhook = await call("POST", "/my-integration/urls", { url: receiver.url("/listed"), urlType: "webhook", validationToken: "tok-9f8e7d6c5b4a3210" });
    await other.call("POST", "/my-integration/urls", { url: "https://other.example.com/callback", urlType: "redirect_uri" });
    const listed = await call("GET", "/my-integration/urls");
    expect(listed.status).toBe(200);
    // Oldest first; these two were registered at the same instant of the test's clock, so in no set order.
    expect(listed.json.total).toBe(2);
    expect(listed.json.items).toHaveLength(2);
    expect(listed.json.items).toEqual(
      expect.arrayContaining([
        {
          clientUrlId: redirect.json.clientUrlId,
          data: { urlType: "redirect_uri", url: "https://app.example.com/callback", hasValidationToken: false },
          receivesEvents: false,
        },
        { clientUrlId: webhook.json.clientUrlId, data: { urlType: "webhook", url: receiver.url("/listed"), hasValidationToken: true }, receivesEvents: true },
      ]),
    );
  });
});

describe("which webhook URL receives the events, and deleting URLs", () => {
  const notFoundBody = { code: "ClientUrlNotFoundError", message: expect.any(String), id: expect.any(String) };
  /** `clientUrlId` → `receivesEvents`, as GET /my-integration/urls lists them. */
  async function receiving(call: Awaited<ReturnType<typeof integrationAdmin>>["call"]): Promise<Record<string, boolean>> {
    const listed = await call("GET", "/my-integration/urls");
    expect(listed.status).toBe(200);
    return Object.fromEntries(listed.json.items.map((item: { clientUrlId: string; receivesEvents: boolean }) => [item.clientUrlId, item.receivesEvents]));
  }

  it("receivesEvents is true on the most recently verified (registered or changed, answering 2xx) webhook URL only, never on a redirect URI", async () => {
    const { call } = await integrationAdmin(t);
    const redirect = await call("POST", "/my-integration/urls", { url: "https://app.example.com/callback", urlType: "redirect_uri" });
    expect(redirect.json.receivesEvents).toBe(false);
    const first = await call("POST", "/my-integration/urls", { url: receiver.url("/first"), urlType: "webhook" });
    expect(first.json.receivesEvents).toBe(true);
    t.clock.advance(1000);
    const second = await call("POST", "/my-integration/urls", { url: receiver.url("/second"), urlType: "webhook" });
    expect(second.json.receivesEvents).toBe(true);
    expect(await receiving(call)).toEqual({ [redirect.json.clientUrlId]: false, [first.json.clientUrlId]: false, [second.json.clientUrlId]: true });

    // A change makes the first one the most recent again.
    t.clock.advance(1000);
    const changed = await call("PUT", `/my-integration/urls/${first.json.clientUrlId}`, { url: receiver.url("/first-v2") });
    expect(changed.json.receivesEvents).toBe(true);
    expect(await receiving(call)).toEqual({ [redirect.json.clientUrlId]: false, [first.json.clientUrlId]: true, [second.json.clientUrlId]: false });
    // A redirect URI changed later does not take it.
    t.clock.advance(1000);
    expect((await call("PUT", `/my-integration/urls/${redirect.json.clientUrlId}`, { url: "https://app.example.com/v2/callback" })).json.receivesEvents).toBe(
      false,
    );
    expect((await receiving(call))[first.json.clientUrlId]).toBe(true);
  });

  it("a new webhook URL that does not answer 2xx is kept pending: the events stay with the working receiver until it passes a test", async () => {
    const { call } = await integrationAdmin(t);
    await call("PUT", "/my-integration/webhook-subscriptions", { enabledEvents: ["payment.unmatched"] });
    const working = await call("POST", "/my-integration/urls", { url: receiver.url("/working"), urlType: "webhook" });
    expect(working.json).toMatchObject({ receivesEvents: true, verification: { status: "ok" } });
    t.clock.advance(1000);
    const unreachable = `https://127.0.0.1:${await closedPort()}/hook`;
    const pending = await call("POST", "/my-integration/urls", { url: unreachable, urlType: "webhook" });
    expect(pending).toMatchObject({ status: 201, json: { data: { url: unreachable }, receivesEvents: false, verification: { status: "unreachable" } } });
    expect(await receiving(call)).toEqual({ [working.json.clientUrlId]: true, [pending.json.clientUrlId]: false });
    const sent = await call("POST", "/my-integration/test-webhook", { event: "payment.unmatched", reason: "expired" });
    expect(sent.json).toMatchObject({ status: "delivered", targetUrl: receiver.url("/working") });

    // A URL that answers with an error is pending too; once a test passes, it takes the events.
    t.clock.advance(1000);
    receiver.answerNext({ status: 500 });
    const failing = await call("PUT", `/my-integration/urls/${pending.json.clientUrlId}`, { url: receiver.url("/fixed") });
    expect(failing.json).toMatchObject({ receivesEvents: false, verification: { status: "non_2xx", httpStatus: 500 } });
    expect(await receiving(call)).toEqual({ [working.json.clientUrlId]: true, [pending.json.clientUrlId]: false });
    t.clock.advance(1000);
    expect((await call("POST", `/my-integration/urls/${pending.json.clientUrlId}/test`)).json).toEqual({ verification: { status: "ok" } });
    expect(await receiving(call)).toEqual({ [working.json.clientUrlId]: false, [pending.json.clientUrlId]: true });
    expect((await call("POST", "/my-integration/test-webhook", { event: "payment.unmatched", reason: "expired" })).json.targetUrl).toBe(receiver.url("/fixed"));

    // With no verified URL at all, the most recent one receives the events (and their retries).
    const alone = await integrationAdmin(t);
    const only = await alone.call("POST", "/my-integration/urls", { url: unreachable, urlType: "webhook" });
    expect(only.json).toMatchObject({ receivesEvents: true, verification: { status: "unreachable" } });
  });

  it("the URL verified last takes the events even when the clock has not moved since the active one was verified", async () => {
    // A Sandbox clock standing still gives both verifications one instant; which one is later must not be a
    // coin toss between their ids. Five integrations, so that a toss would show.
    for (let round = 0; round < 5; round++) {
      const { call } = await integrationAdmin(t);
      const working = await call("POST", "/my-integration/urls", { url: receiver.url(`/still-working-${round}`), urlType: "webhook" });
      receiver.answerNext({ status: 500 });
      const later = await call("POST", "/my-integration/urls", { url: receiver.url(`/still-later-${round}`), urlType: "webhook" });
      expect(later.json).toMatchObject({ receivesEvents: false, verification: { status: "non_2xx" } });
      expect((await call("POST", `/my-integration/urls/${later.json.clientUrlId}/test`)).json).toEqual({ verification: { status: "ok" } });
      expect(await receiving(call)).toEqual({ [working.json.clientUrlId]: false, [later.json.clientUrlId]: true });
    }
  });

  it("delete: 204 without a body, gone from the list, the previous webhook URL receives the events; 404 again, 404 for another integration's, 400 for a non-UUID", async () => {
    const { call } = await integrationAdmin(t);
    const other = await integrationAdmin(t);
    const older = await call("POST", "/my-integration/urls", { url: receiver.url("/older"), urlType: "webhook" });
    t.clock.advance(1000);
    const newer = await call("POST", "/my-integration/urls", { url: receiver.url("/newer"), urlType: "webhook" });
    const othersUrl = await other.call("POST", "/my-integration/urls", { url: receiver.url("/others"), urlType: "webhook" });

    const deleted = await call("DELETE", `/my-integration/urls/${newer.json.clientUrlId}`);
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe("");
    expect(await receiving(call)).toEqual({ [older.json.clientUrlId]: true });

    const again = await call("DELETE", `/my-integration/urls/${newer.json.clientUrlId}`);
    expect(again.status).toBe(404);
    expect(again.json).toEqual(notFoundBody);
    const othersOne = await call("DELETE", `/my-integration/urls/${othersUrl.json.clientUrlId}`);
    expect(othersOne.status).toBe(404);
    expect(othersOne.json).toEqual(notFoundBody);
    expect(await receiving(other.call)).toEqual({ [othersUrl.json.clientUrlId]: true });
    const notAnId = await call("DELETE", "/my-integration/urls/not-a-uuid");
    expect(notAnId.status).toBe(400);
    expect(notAnId.json).toEqual({ code: "ValidationError", message: expect.any(String), id: expect.any(String), validationDetails: expect.any(Array) });
    // A deleted URL is no longer changed or tested either.
    expect((await call("PUT", `/my-integration/urls/${newer.json.clientUrlId}`, { url: receiver.url("/x") })).json).toEqual(notFoundBody);
    expect((await call("POST", `/my-integration/urls/${newer.json.clientUrlId}/test`)).status).toBe(404);

    // The last webhook URL deleted: nothing receives the events, and the test webhook says so.
    expect((await call("DELETE", `/my-integration/urls/${older.json.clientUrlId}`)).status).toBe(204);
    expect(await receiving(call)).toEqual({});
    await call("PUT", "/my-integration/webhook-subscriptions", { enabledEvents: ["payment.unmatched"] });
    expect((await call("POST", "/my-integration/test-webhook", { event: "payment.unmatched", reason: "expired" })).json.status).toBe("no_target");
  });

  it("a deleted redirect URI is refused at /authorize, unless another registered redirect URI has the same URL", async () => {
    const { sandbox, call } = await integrationAdmin(t);
    const callback = "https://app.example.com/oauth/callback";
    const authorize = () =>
      fetch(authorizeUrl(t.authUrl, { response_type: "code", client_id: sandbox.integration.clientId, redirect_uri: callback }), { redirect: "manual" }).then(
        read,
      );
    const first = await call("POST", "/my-integration/urls", { url: callback, urlType: "redirect_uri" });
    const twin = await call("POST", "/my-integration/urls", { url: callback, urlType: "redirect_uri" });
    expect((await authorize()).status).toBe(200);

    expect((await call("DELETE", `/my-integration/urls/${first.json.clientUrlId}`)).status).toBe(204);
    expect((await authorize()).status).toBe(200); // the twin still holds it
    expect((await call("DELETE", `/my-integration/urls/${twin.json.clientUrlId}`)).status).toBe(204);
    const refused = await authorize();
    expect(refused.status).toBe(400);
    expect(refused.headers.get("location")).toBeNull();
    expect(refused.json).toEqual({ code: "InvalidRequestError", message: expect.stringContaining("redirect_uri"), id: expect.any(String) });
    // The Sandbox's own redirect URI, never a registered URL row, is untouched.
    const own = await fetch(
      authorizeUrl(t.authUrl, { response_type: "code", client_id: sandbox.integration.clientId, redirect_uri: sandbox.integration.redirectUri }),
      { redirect: "manual" },
    );
    expect(own.status).toBe(200);
  });

  it("deletes and creates at once leave one well-defined receiving URL, and the redirect URI list agrees with the registered rows", async () => {
    const { call, integrationId } = await integrationAdmin(t);
    const callback = "https://app.example.com/race/callback";
    const uris = async () =>
      (await t.database.db.selectFrom("integration_clients").select("redirect_uris").where("id", "=", integrationId).executeTakeFirstOrThrow()).redirect_uris;
    let active = (await call("POST", "/my-integration/urls", { url: receiver.url("/race-0"), urlType: "webhook" })).json.clientUrlId as string;
    let redirect = (await call("POST", "/my-integration/urls", { url: callback, urlType: "redirect_uri" })).json.clientUrlId as string;
    for (let round = 1; round <= 6; round++) {
      t.clock.advance(1000);
      const [removedWebhook, created, removedRedirect, createdRedirect] = await Promise.all([
        call("DELETE", `/my-integration/urls/${active}`),
        call("POST", "/my-integration/urls", { url: receiver.url(`/race-${round}`), urlType: "webhook" }),
        call("DELETE", `/my-integration/urls/${redirect}`),
        call("POST", "/my-integration/urls", { url: callback, urlType: "redirect_uri" }),
      ]);
      expect([removedWebhook.status, created.status, removedRedirect.status, createdRedirect.status]).toEqual([204, 201, 204, 201]);
      const listed = await receiving(call);
      // The new webhook URL is the only one left, and it receives the events whatever order the two committed in.
      expect(listed[created.json.clientUrlId]).toBe(true);
      expect(Object.values(listed).filter(Boolean)).toHaveLength(1);
      // The redirect URI deleted while the same URL was registered again is still accepted.
      expect(await uris()).toContain(callback);
      active = created.json.clientUrlId;
      redirect = createdRedirect.json.clientUrlId;
    }
    expect((await call("DELETE", `/my-integration/urls/${redirect}`)).status).toBe(204);
    expect(await uris()).not.toContain(callback);
  });
});

describe("the test webhook", () => {
  it("not_subscribed, no_target, ambiguous_target, delivered and delivery_failed, each with an actionable Spanish message", async () => {
    const { call, makeMultitenant, integrationId } = await integrationAdmin(t);
    const send = (body: object = {}) => call("POST", "/my-integration/test-webhook", { event: "payment.unmatched", reason: "already_paid", ...body });

    const notSubscribed = await send();
    expect(notSubscribed.json).toEqual({ delivered: false, status: "not_subscribed", message: expect.stringContaining("enabledEvents"), livemode: false });
    await call("PUT", "/my-integration/webhook-subscriptions", { enabledEvents: ["payment.unmatched"] });

    const noTarget = await send();
    expect(noTarget.json).toEqual({ delivered: false, status: "no_target", message: expect.stringContaining("POST /my-integration/urls"), livemode: false });

    await makeMultitenant();
    const centro = `/${uniqueRef("centro")}`;
    await call("POST", "/my-integration/tenant", {
      key: "centro",
      name: "Centro",
      webhook_url: receiver.url(centro),
      webhook_validation_token: "c3ntr0-v4lid4t10n-t0k3n",
    });
    await call("POST", "/my-integration/tenant", { key: "rosario", name: "Rosario", webhook_url: receiver.url(`/${uniqueRef("rosario")}`) });
    const ambiguous = await send();
    expect(ambiguous.json).toMatchObject({ delivered: false, status: "ambiguous_target", message: expect.stringContaining("tenantKey") });
    expect(ambiguous.json).not.toHaveProperty("webhookId");
    const unknownTenant = await send({ tenantKey: "cordoba" });
    expect(unknownTenant.json).toMatchObject({ status: "no_target", message: expect.stringContaining("cordoba") });

    const delivered = await send({ tenantKey: "centro", reason: "no_cuil_match" });
    expect(delivered.json).toEqual({
      delivered: true,
      status: "delivered",
      message: expect.stringContaining("sucursal"),
      webhookId: expect.any(String),
      targetUrl: receiver.url(centro),
      livemode: false,
    });
    const [request] = await receiver.waitFor(1, { path: centro });
    expect(request!.headers["x-service-webhook-id"]).toBe(delivered.json.webhookId);
    expect(request!.headers["validation-token"]).toBe("c3ntr0-v4lid4t10n-t0k3n");
    expect(request!.json).toMatchObject({
      event: "payment.unmatched",
      reason: "no_cuil_match",
      livemode: false,
      test: true,
      cvu: expect.stringMatching(/^\d{22}$/),
    });
    const secret = (await call("GET", "/my-integration/webhook-signing-secret")).json.webhookSigningSecret;
    expect(verifyWebhookSignature(request!.rawBody, request!.headers["x-service-signature"] as string, secret, { now: t.clock.now() })).toBe(true);
    // Not an event of the integration: nothing recorded, nothing retried.
    expect(await t.database.db.selectFrom("events").select("id").where("integration_client_id", "=", integrationId).execute()).toEqual([]);

    // With an integration URL, a test without tenantKey goes there.
    const own = `/${uniqueRef("own")}`;
    receiver.answerNext({ status: 200 }); // the registration's ping
    await call("POST", "/my-integration/urls", { url: receiver.url(own), urlType: "webhook" });
    receiver.answerNext({ status: 503 });
    const failed = await send();
    expect(failed.json).toEqual({
      delivered: false,
      status: "delivery_failed",
      message: expect.stringContaining("503"),
      webhookId: expect.any(String),
      targetUrl: receiver.url(own),
      responseStatus: 503,
      livemode: false,
    });
    expect(failed.text).not.toContain("receiver body");
    expect(JSON.stringify(t.logLines)).not.toContain(secret);
  });

  it("a destination that answers after 6 seconds is delivery_failed after the 5-second deadline", async () => {
    const { call } = await integrationAdmin(t);
    await call("PUT", "/my-integration/webhook-subscriptions", { enabledEvents: ["payment.unmatched"] });
    const path = `/${uniqueRef("slow")}`;
    await call("POST", "/my-integration/urls", { url: receiver.url(path), urlType: "webhook" });
    receiver.answerNext({ status: 200, delayMs: 6000 });
    const started = Date.now();
    const slow = await call("POST", "/my-integration/test-webhook", { event: "payment.unmatched", reason: "expired" });
    const elapsed = Date.now() - started;
    expect(slow.json).toMatchObject({
      delivered: false,
      status: "delivery_failed",
      message: expect.stringContaining("5 segundos"),
      targetUrl: receiver.url(path),
    });
    expect(slow.json).not.toHaveProperty("responseStatus");
    // It waited for the deadline (from below only: how much later it answers depends on a busy machine); that
    // it did not wait for the answer shows in `delivered: false` of a receiver that answers 200.
    expect(elapsed).toBeGreaterThanOrEqual(4900);
  }, 15_000);

  it("an unknown event to resend is 404", async () => {
    const { call } = await integrationAdmin(t);
    expect((await call("POST", `/my-integration/events/${randomUUID()}/resend`)).json.code).toBe("EventNotFoundError");
    expect((await call("GET", "/my-integration/events")).json).toEqual({ items: [], total: 0, limit: 20, offset: 0 });
  });
});

describe("in Production", () => {
  it("the test webhook is 403, and loopback is not a webhook destination whatever the environment variable says", async () => {
    const { call, makeMultitenant } = await integrationAdmin(production);
    const refused = await call("POST", "/my-integration/test-webhook", { event: "payment.unmatched", reason: "canceled" });
    expect(refused).toMatchObject({ status: 403, json: { code: "SandboxOnlyError" } });

    // `localhost` resolves to 127.0.0.1: refused at registration.
    const named = await call("POST", "/my-integration/urls", { url: `https://localhost:${receiver.port}/hook`, urlType: "webhook" });
    expect(named).toMatchObject({ status: 400, json: { code: "WebhookUrlBlockedError" } });
    const plain = await call("POST", "/my-integration/urls", { url: receiver.url("/hook"), urlType: "webhook" });
    expect(plain).toMatchObject({ status: 400, json: { code: "WebhookUrlBlockedError" } });
    await makeMultitenant();
    const tenant = await call("POST", "/my-integration/tenant", { key: "local", name: "Local", webhook_url: `https://localhost:${receiver.port}/hook` });
    expect(tenant).toMatchObject({ status: 400, json: { code: "TenantWebhookUrlInvalidError" } });
    const redirect = await call("POST", "/my-integration/urls", { url: "http://localhost:8080/callback", urlType: "redirect_uri" });
    expect(redirect).toMatchObject({ status: 400, json: { code: "ValidationError" } });
  });
});
