// `/v1/payments` on the Integration API host: checkout charges created with the secret key through the
// same use case as POST /payment-request, read by the widget with the publishable key, and CORS from the
// integration's allowed origins.
import { describe, expect, it } from "vitest";
import { serviceForFile } from "../helpers/service.ts";
import { chargeBody } from "../helpers/charges.ts";
import { widgetIntegration } from "./widget-integration.ts";

const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") }); // 12:00 in Argentina

const generalError = (code: string) => ({ code, message: expect.any(String), id: expect.any(String) });
const chargeCount = async () =>
  Number(
    (
      await t.database.db
        .selectFrom("charges")
        .select((eb) => eb.fn.countAll().as("n"))
        .executeTakeFirstOrThrow()
    ).n,
  );

describe("POST /v1/payments", () => {
  it("creates a checkout charge for a linked merchant account: 201 with the charge, its CVU and expiry; the merchant's API sees it", async () => {
    const w = await widgetIntegration(t);
    const created = await w.v1(
      "POST",
      "/payments",
      w.secretKey,
      w.paymentBody({ referenceId: "ORDER-000001", customer: { name: "Ana Gómez", email: "ana@example.com" }, metadata: { cartId: "C-1" } }),
    );
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({
      type: "checkout",
      referenceId: "ORDER-000001",
      amount: 1234.56,
      description: "Pedido de la tienda",
      state: "pending",
      expiresInMinutes: 30,
      conciliationType: "cvu",
      sendWhatsappNotification: false,
      sendEmailNotification: false,
      customer: { name: "Ana Gómez", email: "ana@example.com" },
      metadata: { cartId: "C-1" },
      CVU: expect.stringMatching(/^\d{22}$/),
      bankAccountInfo: { accountHolderName: expect.any(String), accountHolderTaxId: expect.any(String), bankName: expect.any(String) },
      expiresAt: "2026-11-22T15:30:00.000Z",
    });
    const seen = await w.merchant.call("GET", "/payment-request/ORDER-000001");
    expect(seen.json).toMatchObject({ type: "checkout", paymentRequestId: created.json.paymentRequestId, CVU: created.json.CVU, state: "pending" });
  });

  it("expiresInMinutes from 3 to 60; without customer the payer is Comprador", async () => {
    const w = await widgetIntegration(t);
    const short = await w.createPayment({ expiresInMinutes: 3 });
    expect(short).toMatchObject({ expiresInMinutes: 3, expiresAt: "2026-11-22T15:03:00.000Z", customer: { name: "Comprador" } });
    expect((await w.createPayment({ expiresInMinutes: 60 })).expiresAt).toBe("2026-11-22T16:00:00.000Z");
  });

  it("400 ValidationError for bad input (expiry out of 3 to 60, bad amount, short description, missing field, unknown field): nothing created", async () => {
    const w = await widgetIntegration(t);
    const before = await chargeCount();
    const bodies = [
      w.paymentBody({ expiresInMinutes: 2 }),
      w.paymentBody({ expiresInMinutes: 61 }),
      w.paymentBody({ amount: 0 }),
      w.paymentBody({ amount: 10.555 }),
      w.paymentBody({ description: "ab" }),
      w.paymentBody({ referenceId: "short" }),
      w.paymentBody({ dueDates: ["2026-12-01"] }),
      { ...w.paymentBody(), merchantUserId: undefined },
      w.paymentBody({ merchantUserId: "not-a-uuid" }),
      w.paymentBody({ customer: { name: "A" } }),
    ];
    for (const body of bodies) {
      const refused = await w.v1("POST", "/payments", w.secretKey, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.json).toEqual({
        ...generalError("ValidationError"),
        validationDetails: expect.arrayContaining([
          expect.objectContaining({ field: expect.any(String), rule: expect.any(String), message: expect.any(String) }),
        ]),
      });
    }
    expect(await chargeCount()).toBe(before);
  });

  it("409 ReferenceIdAlreadyExists for a referenceId already used, by /v1/payments or /payment-request: nothing created", async () => {
    const w = await widgetIntegration(t);
    const first = await w.createPayment();
    const standard = await w.createCharge(chargeBody());
    const before = await chargeCount();
    for (const referenceId of [first.referenceId, standard.referenceId]) {
      const refused = await w.v1("POST", "/payments", w.secretKey, w.paymentBody({ referenceId }));
      expect(refused.status).toBe(409);
      expect(refused.json).toEqual({ error: "ReferenceIdAlreadyExists", message: expect.any(String), referenceId });
    }
    expect(await chargeCount()).toBe(before);
  });

  it("422 MerchantUserNotLinkedError for an unknown merchant account, another integration's, or one that unlinked: nothing created", async () => {
    const w = await widgetIntegration(t);
    const other = await widgetIntegration(t);
    const before = await chargeCount();
    for (const merchantUserId of ["0b7e4f3a-9c2d-4e8b-a1f6-3d5c7b9e2a10", other.merchantUserId]) {
      const refused = await w.v1("POST", "/payments", w.secretKey, w.paymentBody({ merchantUserId }));
      expect(refused.status).toBe(422);
      expect(refused.json).toEqual(generalError("MerchantUserNotLinkedError"));
    }
    const users = (await w.admin.call("GET", "/my-integration/users")).json.items as Array<{ userId: string; integrationClientUserId: string }>;
    const link = users.find((user) => user.userId === w.merchantUserId)!;
    expect((await w.admin.call("DELETE", `/my-integration/users/${link.integrationClientUserId}`)).status).toBe(204);
    const unlinked = await w.v1("POST", "/payments", w.secretKey, w.paymentBody());
    expect(unlinked.status).toBe(422);
    expect(unlinked.json).toEqual(generalError("MerchantUserNotLinkedError"));
    expect(await chargeCount()).toBe(before);
  });

  it("422 MerchantUserNotLinkedError while the merchant account is suspended at the provider; active again, it collects", async () => {
    const w = await widgetIntegration(t);
    const before = await chargeCount();
    const setStatus = (status: "active" | "suspended") =>
      t.database.db.updateTable("merchant_accounts").set({ status }).where("id", "=", w.merchantUserId).execute();
    await setStatus("suspended");
    const refused = await w.v1("POST", "/payments", w.secretKey, w.paymentBody());
    expect(refused.status).toBe(422);
    expect(refused.json).toEqual(generalError("MerchantUserNotLinkedError"));
    expect(await chargeCount()).toBe(before);
    await setStatus("active");
    expect((await w.v1("POST", "/payments", w.secretKey, w.paymentBody())).status).toBe(201);
  });

  it("401 WidgetKeyInvalidError without a key, with the publishable key, an unknown or replaced secret key, or a merchant idToken: nothing created", async () => {
    const w = await widgetIntegration(t);
    const replaced = w.secretKey;
    const rotated = await w.admin.call("POST", "/my-integration/api-keys/rotate-secret");
    const before = await chargeCount();
    for (const key of [undefined, w.publishableKey, replaced, "sk_test_unknownunknownunknownunknownunknownunk", w.merchant.idToken]) {
      const refused = await w.v1("POST", "/payments", key, w.paymentBody());
      expect(refused.status, String(key)).toBe(401);
      expect(refused.json).toEqual(generalError("WidgetKeyInvalidError"));
    }
    expect(await chargeCount()).toBe(before);
    expect((await w.v1("POST", "/payments", rotated.json.secretKey, w.paymentBody())).status).toBe(201);
  });

  it("400 InsufficientActiveAccountsError when the merchant account's CVU pool is full: nothing created", async () => {
    const w = await widgetIntegration(t);
    await t.database.db
      .insertInto("cvu_accounts")
      .values(
        Array.from({ length: 100 }, (_, i) => ({
          merchant_account_id: w.merchantUserId,
          cvu: `7${String(i).padStart(4, "0")}${w.merchantUserId.replace(/\D/g, "").slice(0, 17).padEnd(17, "0")}`,
          holding: "exclusive" as const,
          open_charges: 1,
        })),
      )
      .execute();
    const before = await chargeCount();
    const refused = await w.v1("POST", "/payments", w.secretKey, w.paymentBody());
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual(generalError("InsufficientActiveAccountsError"));
    expect(await chargeCount()).toBe(before);
  });

  it("404 IntegrationNotReadyToCollectError while the platform has the integration suspended: nothing created", async () => {
    const w = await widgetIntegration(t);
    await t.database.db
      .updateTable("integration_clients")
      .set({ suspended_at: new Date(), suspension_reason: "Revisión" })
      .where("provider_client_id", "=", w.merchant.sandbox.integration.clientId)
      .execute();
    const before = await chargeCount();
    const refused = await w.v1("POST", "/payments", w.secretKey, w.paymentBody());
    expect(refused.status).toBe(404);
    expect(refused.json).toEqual({ message: expect.any(String) });
    expect(await chargeCount()).toBe(before);
  });

  it("413 PayloadTooLarge for a body over the limit", async () => {
    const w = await widgetIntegration(t);
    const refused = await w.v1("POST", "/payments", w.secretKey, w.paymentBody({ description: "x".repeat(t.config.maxBodyBytes + 1) }));
    expect(refused.status).toBe(413);
    expect(refused.json).toEqual(generalError("PayloadTooLarge"));
  });
});

describe("GET /v1/payments/{paymentRequestId}", () => {
  it("the widget's view with the publishable key: amount, CVU, holder, expiry; nothing about the buyer", async () => {
    const w = await widgetIntegration(t);
    const created = await w.createPayment({ customer: { name: "Ana Gómez", email: "ana@example.com" }, expiresInMinutes: 10 });
    const seen = await w.v1("GET", `/payments/${created.paymentRequestId}`, w.publishableKey);
    expect(seen.status).toBe(200);
    expect(seen.json).toEqual({
      paymentRequestId: created.paymentRequestId,
      referenceId: created.referenceId,
      description: "Pedido de la tienda",
      amount: 1234.56,
      paidAmount: 0,
      state: "pending",
      CVU: created.CVU,
      bankAccountInfo: created.bankAccountInfo,
      expiresAt: "2026-11-22T15:10:00.000Z",
      secondsUntilExpiry: 600,
    });
    expect(seen.text).not.toContain("Ana");
    expect(seen.text).not.toContain("ana@example.com");
  });

  it("404 PaymentRequestNotFoundError for another integration's charge, a standard charge, or an unknown id", async () => {
    const w = await widgetIntegration(t);
    const other = await widgetIntegration(t);
    const foreign = await other.createPayment();
    const standard = await w.createCharge(chargeBody());
    for (const id of [foreign.paymentRequestId, standard.paymentRequestId, "0b7e4f3a-9c2d-4e8b-a1f6-3d5c7b9e2a10"]) {
      const missing = await w.v1("GET", `/payments/${id}`, w.publishableKey);
      expect(missing.status).toBe(404);
      expect(missing.json).toEqual({ message: "Payment request not found" });
    }
  });

  it("400 ValidationError for an id that is not a UUID", async () => {
    const w = await widgetIntegration(t);
    const refused = await w.v1("GET", "/payments/not-a-uuid", w.publishableKey);
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      code: "ValidationError",
      validationDetails: [expect.objectContaining({ field: expect.stringContaining("paymentRequestId") })],
    });
  });

  it("401 WidgetKeyInvalidError without a key, with the secret key, or an unknown publishable key", async () => {
    const w = await widgetIntegration(t);
    const created = await w.createPayment();
    for (const key of [undefined, w.secretKey, "pk_test_unknownunknownunknownunknownunknownunk"]) {
      const refused = await w.v1("GET", `/payments/${created.paymentRequestId}`, key);
      expect(refused.status, String(key)).toBe(401);
      expect(refused.json).toEqual(generalError("WidgetKeyInvalidError"));
    }
  });
});

describe("CORS of /v1/", () => {
  const store = "http://127.0.0.1:5555";
  const foreign = "https://otra-tienda.example.com";

  it("the actual answer allows only the key's allowed origins; POST never; the preflight says only what /v1/ takes", async () => {
    const w = await widgetIntegration(t, { allowedOrigins: [store] });
    const created = await w.createPayment();
    const path = `/payments/${created.paymentRequestId}`;
    const allowed = await w.v1("GET", path, w.publishableKey, undefined, { origin: store });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("access-control-allow-origin")).toBe(store);
    expect(allowed.headers.get("vary")).toMatch(/Origin/i);

    const refused = await w.v1("GET", path, w.publishableKey, undefined, { origin: foreign });
    expect(refused.status).toBe(200); // answered, but a browser on that origin cannot read it
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();

    // An error of an allowed origin is readable too; a bad key's is not (no integration to ask).
    expect(
      (await w.v1("GET", "/payments/0b7e4f3a-9c2d-4e8b-a1f6-3d5c7b9e2a10", w.publishableKey, undefined, { origin: store })).headers.get(
        "access-control-allow-origin",
      ),
    ).toBe(store);
    expect((await w.v1("GET", path, "pk_test_unknown", undefined, { origin: store })).headers.get("access-control-allow-origin")).toBeNull();

    const post = await w.v1("POST", "/payments", w.secretKey, w.paymentBody(), { origin: store });
    expect(post.status).toBe(201);
    expect(post.headers.get("access-control-allow-origin")).toBeNull();

    const preflight = await fetch(`${t.integrationUrl}/v1${path}`, {
      method: "OPTIONS",
      headers: { origin: foreign, "access-control-request-method": "GET", "access-control-request-headers": "authorization" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-methods")).toBe("GET");
    expect(preflight.headers.get("access-control-allow-headers")).toBe("Authorization");
  });

  it("an empty list allows any origin", async () => {
    const w = await widgetIntegration(t);
    const created = await w.createPayment();
    const seen = await w.v1("GET", `/payments/${created.paymentRequestId}`, w.publishableKey, undefined, { origin: foreign });
    expect(seen.headers.get("access-control-allow-origin")).toBe(foreign);
  });
});

describe("GET /v1/widget.js and the Sandbox demo page", () => {
  it("serves the script, and the demo page with a strict CSP", async () => {
    const script = await fetch(`${t.integrationUrl}/v1/widget.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(await script.text()).toContain("CobroCheckout");
    const demo = await fetch(`${t.integrationUrl}/v1/widget-demo?publishableKey=pk_test_a%22b&paymentId=x`);
    expect(demo.status).toBe(200);
    expect(demo.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(demo.headers.get("content-security-policy")).not.toContain("unsafe-inline");
    expect(await demo.text()).toContain('data-publishable-key="pk_test_a&#34;b"');
  });
});
