// The platform's client summaries say whether the integration has somewhere to send webhooks: its own
// webhook URL (a client URL of type `webhook`) or an active tenant's URL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceForFile } from "../helpers/service.ts";
import { sandboxAdmin, signedInAdmin } from "../helpers/sandbox-admin.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";

const t = serviceForFile({ env: { COBRO_ALLOW_LOOPBACK_URLS: "true" }, parts: ["auth", "admin"] });
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

/** A fresh Sandbox integration, its admin's Admin API, and its summary as the platform admin lists it. */
async function integration() {
  const sandbox = await t.sandbox();
  const admin = await sandboxAdmin(t, sandbox);
  const platform = await signedInAdmin(t, sandbox.platformAdmin);
  const summary = async () => {
    const list = await platform.call("GET", "/integration-admin/setup/clients?limit=100");
    expect(list.status).toBe(200);
    return (list.json.items as { providerClientId: string; webhookConfigured: boolean }[]).find(
      (client) => client.providerClientId === sandbox.integration.clientId,
    );
  };
  const makeMultitenant = () =>
    t.database.db.updateTable("integration_clients").set({ type: "multitenant" }).where("provider_client_id", "=", sandbox.integration.clientId).execute();
  return { admin, summary, makeMultitenant };
}

describe("webhookConfigured in the platform's client summaries", () => {
  it("is false without a webhook URL and true once the integration registers one", async () => {
    const { admin, summary } = await integration();
    expect(await summary()).toMatchObject({ webhookConfigured: false });
    expect((await admin.call("POST", "/my-integration/urls", { url: "https://app.example.com/oauth/callback", urlType: "redirect_uri" })).status).toBe(201);
    expect(await summary()).toMatchObject({ webhookConfigured: false }); // a redirect URL is not a webhook URL
    expect((await admin.call("POST", "/my-integration/urls", { url: receiver.url("/own"), urlType: "webhook" })).status).toBe(201);
    expect(await summary()).toMatchObject({ webhookConfigured: true });
  });

  it("is true while a tenant (with its webhook URL) exists, and false again once it is deleted", async () => {
    const { admin, summary, makeMultitenant } = await integration();
    await makeMultitenant();
    const tenant = await admin.call("POST", "/my-integration/tenant", { key: "centro", name: "Sucursal Centro", webhook_url: receiver.url("/centro") });
    expect(tenant.status).toBe(201);
    expect(await summary()).toMatchObject({ webhookConfigured: true });
    expect((await admin.call("DELETE", `/my-integration/tenant/${tenant.json.integrationTenantId}`)).status).toBe(204);
    expect(await summary()).toMatchObject({ webhookConfigured: false });
  });
});
