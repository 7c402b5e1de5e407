// The checkout widget's keys on the Admin API (/my-integration/api-keys): the publishable key, the secret
// key shown once and stored hashed, its rotation, and the allowed origins.
import { describe, expect, it } from "vitest";
import { serviceForFile, startTestService } from "../helpers/service.ts";
import { sandboxIntegration } from "../helpers/sandbox-admin.ts";
import { sha256 } from "../../domain/secrets/hashing.ts";

const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") });

const adminError = (code: string) => ({ code, message: expect.any(String), id: expect.any(String) });

/** The stored row of the integration whose OAuth clientId is `providerClientId`. */
async function keyRow(providerClientId: string) {
  return t.database.db
    .selectFrom("widget_keys as k")
    .innerJoin("integration_clients as c", "c.id", "k.integration_client_id")
    .selectAll("k")
    .where("c.provider_client_id", "=", providerClientId)
    .executeTakeFirst();
}

describe("widget keys", () => {
  it("none at first; the publishable key alone on create; 409 on a second create, the key unchanged", async () => {
    const { admin } = await sandboxIntegration(t);
    expect((await admin.call("GET", "/my-integration/api-keys")).json).toEqual({
      publishableKey: null,
      secretKeyLast4: null,
      hasKeys: false,
      hasSecretKey: false,
      allowedOrigins: [],
    });

    const created = await admin.call("POST", "/my-integration/api-keys");
    expect(created.status).toBe(201);
    expect(created.json).toEqual({
      publishableKey: expect.stringMatching(/^pk_test_[A-Za-z0-9_-]{43}$/),
      secretKeyLast4: null,
      hasKeys: true,
      hasSecretKey: false,
      allowedOrigins: [],
    });

    const again = await admin.call("POST", "/my-integration/api-keys");
    expect(again.status).toBe(409);
    expect(again.json).toEqual(adminError("ApiKeysAlreadyExistError"));
    expect((await admin.call("GET", "/my-integration/api-keys")).json.publishableKey).toBe(created.json.publishableKey);
  });

  it("409 ApiKeysNotCreatedError when rotating the secret key before the keys exist: nothing stored", async () => {
    const { admin, merchant } = await sandboxIntegration(t);
    const refused = await admin.call("POST", "/my-integration/api-keys/rotate-secret");
    expect(refused.status).toBe(409);
    expect(refused.json).toEqual(adminError("ApiKeysNotCreatedError"));
    expect(await keyRow(merchant.sandbox.integration.clientId)).toBeUndefined();
  });

  it("the secret key is shown once, stored as its SHA-256, and each rotation replaces it", async () => {
    const { admin, merchant } = await sandboxIntegration(t);
    const keyRowOfThis = () => keyRow(merchant.sandbox.integration.clientId);
    await admin.call("POST", "/my-integration/api-keys");
    const first = await admin.call("POST", "/my-integration/api-keys/rotate-secret");
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ secretKey: expect.stringMatching(/^sk_test_[A-Za-z0-9_-]{43}$/), secretKeyLast4: first.json.secretKey.slice(-4) });
    const view = await admin.call("GET", "/my-integration/api-keys");
    expect(view.json).toMatchObject({ secretKeyLast4: first.json.secretKey.slice(-4), hasKeys: true, hasSecretKey: true });
    expect(view.text).not.toContain(first.json.secretKey);
    const row = await keyRowOfThis();
    expect(row?.secret_key_hash).toBe(sha256(first.json.secretKey));
    expect(JSON.stringify(row)).not.toContain(first.json.secretKey);

    const second = await admin.call("POST", "/my-integration/api-keys/rotate-secret");
    expect(second.json.secretKey).not.toBe(first.json.secretKey);
    expect((await keyRowOfThis())?.secret_key_hash).toBe(sha256(second.json.secretKey));
  });

  it("allowed origins replace the whole list, can be set before the keys, and survive key creation", async () => {
    const { admin } = await sandboxIntegration(t);
    const set = await admin.call("PUT", "/my-integration/api-keys/allowed-origins", {
      allowedOrigins: ["https://tienda.example.com", "http://127.0.0.1:8080"],
    });
    expect(set.status).toBe(200);
    expect(set.json).toEqual({
      publishableKey: null,
      secretKeyLast4: null,
      hasKeys: false,
      hasSecretKey: false,
      allowedOrigins: ["https://tienda.example.com", "http://127.0.0.1:8080"],
    });
    expect((await admin.call("POST", "/my-integration/api-keys")).json.allowedOrigins).toEqual(["https://tienda.example.com", "http://127.0.0.1:8080"]);
    const replaced = await admin.call("PUT", "/my-integration/api-keys/allowed-origins", { allowedOrigins: ["https://www.tienda.example.com"] });
    expect(replaced.json.allowedOrigins).toEqual(["https://www.tienda.example.com"]);
    expect(replaced.json.publishableKey).toMatch(/^pk_test_/);
    expect((await admin.call("PUT", "/my-integration/api-keys/allowed-origins", { allowedOrigins: [] })).json.allowedOrigins).toEqual([]);
  });

  it("400 ValidationError for an origin with a path, plain http off loopback, or a repeated origin: the list unchanged", async () => {
    const { admin } = await sandboxIntegration(t);
    await admin.call("PUT", "/my-integration/api-keys/allowed-origins", { allowedOrigins: ["https://tienda.example.com"] });
    for (const allowedOrigins of [["https://tienda.example.com/checkout"], ["http://tienda.example.com"], ["https://a.example.com", "https://a.example.com"]]) {
      const refused = await admin.call("PUT", "/my-integration/api-keys/allowed-origins", { allowedOrigins });
      expect(refused.status, JSON.stringify(allowedOrigins)).toBe(400);
      expect(refused.json).toEqual({
        code: "ValidationError",
        message: expect.any(String),
        id: expect.any(String),
        validationDetails: expect.arrayContaining([expect.objectContaining({ field: expect.any(String) })]),
      });
    }
    expect((await admin.call("GET", "/my-integration/api-keys")).json.allowedOrigins).toEqual(["https://tienda.example.com"]);
  });

  it("413 PayloadTooLarge for a list over the body limit: the list unchanged", async () => {
    const { admin } = await sandboxIntegration(t);
    await admin.call("PUT", "/my-integration/api-keys/allowed-origins", { allowedOrigins: ["https://tienda.example.com"] });
    const refused = await admin.call("PUT", "/my-integration/api-keys/allowed-origins", {
      allowedOrigins: [`https://${"a".repeat(t.config.maxBodyBytes)}.example.com`],
    });
    expect(refused.status).toBe(413);
    expect(refused.json).toEqual(adminError("PayloadTooLarge"));
    expect((await admin.call("GET", "/my-integration/api-keys")).json.allowedOrigins).toEqual(["https://tienda.example.com"]);
  });

  it("each integration sees only its own keys", async () => {
    const a = await sandboxIntegration(t);
    const b = await sandboxIntegration(t);
    const keyOfA = (await a.admin.call("POST", "/my-integration/api-keys")).json.publishableKey;
    expect((await b.admin.call("GET", "/my-integration/api-keys")).json.publishableKey).toBeNull();
    expect((await b.admin.call("POST", "/my-integration/api-keys")).json.publishableKey).not.toBe(keyOfA);
  });
});

describe("widget keys in Production", () => {
  it("are pk_live_ and sk_live_", async () => {
    const production = await startTestService({ env: { SERVICE_ENV: "production" } });
    try {
      const sandbox = await production.sandbox();
      const { signedInAdmin } = await import("../helpers/sandbox-admin.ts");
      const admin = await signedInAdmin(production, sandbox.integrationAdmin);
      expect((await admin.call("POST", "/my-integration/api-keys")).json.publishableKey).toMatch(/^pk_live_/);
      expect((await admin.call("POST", "/my-integration/api-keys/rotate-secret")).json.secretKey).toMatch(/^sk_live_/);
      // The demo page is the Sandbox's only.
      const demo = await fetch(`${production.integrationUrl}/v1/widget-demo?publishableKey=pk_live_x&paymentId=x`);
      expect(demo.status).toBe(404);
      expect(await demo.json()).toEqual({ code: "RouteNotFound", message: expect.any(String), id: expect.any(String) });
    } finally {
      await production.close();
    }
  });
});
