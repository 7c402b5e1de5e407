// The integration admin's views and the platform admin's management of integration clients.
import { describe, expect, it } from "vitest";
import { linkedMerchant, postJson, read, serviceForFile, startTestService } from "../helpers/service.ts";
import { chargeBody } from "../helpers/charges.ts";
import { sandboxAdmin, signedInAdmin } from "../helpers/sandbox-admin.ts";

const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") });

describe("the integration admin's views", () => {
  it("shows and edits the integration's profile; null is refused", async () => {
    const m = await linkedMerchant(t);
    const { call } = await signedInAdmin(t, m.sandbox.integrationAdmin);
    const me = await call("GET", "/my-integration/me");
    expect(me.json).toMatchObject({
      providerClientId: m.sandbox.integration.clientId,
      name: m.sandbox.integration.name,
      type: "api_direct",
      description: null,
    });
    expect(me.json).not.toHaveProperty("serviceCommissionPercentage");
    const updated = await call("PATCH", "/my-integration", { description: "Gestión de cobros", type: "multitenant" });
    expect(updated.json).toMatchObject({ description: "Gestión de cobros", type: "multitenant" });
    expect((await call("PATCH", "/my-integration", { description: "" })).json.description).toBeNull();
    const withNull = await call("PATCH", "/my-integration", { name: null });
    expect(withNull.status).toBe(400);
    expect(withNull.json.code).toBe("ValidationError");
  });

  it("lists its admins, merchant accounts and charges", async () => {
    const m = await linkedMerchant(t);
    const { call } = await signedInAdmin(t, m.sandbox.integrationAdmin);
    await m.call("POST", "/payment-request", chargeBody({ referenceId: "VIEW-00000001", customer: { name: "Ana", email: "ana@example.com" }, amount: 1500 }));

    const admins = await call("GET", "/my-integration/admins");
    expect(admins.json).toEqual({
      items: [{ integrationClientAdminId: expect.any(String), email: m.sandbox.integrationAdmin.email, status: "active", invitedAt: expect.any(String) }],
      total: 1,
    });

    const users = await call("GET", "/my-integration/users");
    expect(users.json.total).toBe(2); // the sandbox merchant and the test merchant
    expect(users.json.items[0]).toMatchObject({ integrationClientUserId: expect.any(String), userId: expect.any(String), currentCommissionPercentage: 0 });

    const charges = await call("GET", "/my-integration/payment-requests?status=pending");
    expect(charges.json).toEqual({
      items: [
        {
          paymentRequestId: expect.any(String),
          integrationReferenceId: "VIEW-00000001",
          paidAmount: 0,
          payerEmail: "ana@example.com",
          description: "Cuota",
          createdAt: "2026-11-22T15:00:00.000Z",
          status: "pending",
        },
      ],
      total: 1,
      limit: 20,
      offset: 0,
    });
    expect((await call("GET", "/my-integration/payment-requests?status=canceled")).json.total).toBe(0);
  });

  it("shows one charge with its payer, CVU, amounts by due date and payments; 404 for another integration's or an unknown one", async () => {
    const m = await linkedMerchant(t);
    const admin = await sandboxAdmin(t, m.sandbox);
    const created = await m.call(
      "POST",
      "/payment-request",
      chargeBody({
        referenceId: "VIEW-DETAIL-1",
        customer: { name: "Ana Gómez", email: "ana@example.com" },
        amount: 1500,
        dueDates: ["2026-12-01", "2026-12-15"],
        surcharge: { type: "fixed", value: 200 },
      }),
    );
    expect(created.status, created.text).toBe(201);
    const paid = await admin.simulate({ cvu: created.json.CVU, amount: 500, fechaOperacion: "2026-11-22T14:00:00Z" });
    expect(paid.json.conciliated).toBe(true);

    const detail = await admin.call("GET", `/my-integration/payment-requests/${created.json.paymentRequestId}`);
    expect(detail.status).toBe(200);
    expect(detail.json).toEqual({
      paymentRequestId: created.json.paymentRequestId,
      integrationReferenceId: "VIEW-DETAIL-1",
      paidAmount: 500,
      payerEmail: "ana@example.com",
      description: created.json.description,
      createdAt: "2026-11-22T15:00:00.000Z",
      status: "partial_payment",
      customerName: "Ana Gómez",
      conciliationType: "cvu",
      amount: 1500,
      dueDates: ["2026-12-01", "2026-12-15"],
      dueAmounts: [
        { dueDate: "2026-12-01", amount: 1500 },
        { dueDate: "2026-12-15", amount: 1700, surchargeApplied: 200 },
      ],
      cvu: created.json.CVU,
      payments: [
        { transactionId: paid.json.idTransaccion, amount: 500, operatedAt: "2026-11-22T14:00:00.000Z", payerName: "Juan Pérez", payerCuil: "20301234563" },
      ],
    });

    const other = await signedInAdmin(t, (await linkedMerchant(t)).sandbox.integrationAdmin);
    const foreign = await other.call("GET", `/my-integration/payment-requests/${created.json.paymentRequestId}`);
    expect(foreign.status).toBe(404);
    expect(foreign.json).toEqual({ code: "IntegrationPaymentRequestNotFoundError", message: expect.any(String), id: expect.any(String) });
    expect((await admin.call("GET", "/my-integration/payment-requests/0b7e4f3a-9c2d-4e8b-a1f6-3d5c7b9e2a10")).json.code).toBe(
      "IntegrationPaymentRequestNotFoundError",
    );
    const malformed = await admin.call("GET", "/my-integration/payment-requests/not-a-uuid");
    expect(malformed.status).toBe(400);
    expect(malformed.json.validationDetails).toEqual([expect.objectContaining({ field: "paymentRequestId", rule: expect.any(String) })]);
  });

  it("shows each merchant account's commission: the offer it accepted when it linked, kept while linked", async () => {
    const sandbox = await t.sandbox();
    const { call } = await signedInAdmin(t, sandbox.integrationAdmin);
    const testMerchantCommission = async () => {
      const users = await call("GET", "/my-integration/users");
      return users.json.items.find((user: { email: string }) => user.email !== sandbox.merchant.email);
    };
    expect((await call("PUT", "/my-integration/offer", { percentage: 1.5, fixedAmount: 25 })).status).toBe(200);
    expect((await call("POST", "/my-integration/test-tokens")).json.autoLinkAction).toBe("linked");
    const linked = await testMerchantCommission();
    expect(linked.currentCommissionPercentage).toBe(1.5);
    const users = await call("GET", "/my-integration/users");
    expect(users.json.items.find((user: { email: string }) => user.email === sandbox.merchant.email).currentCommissionPercentage).toBe(0); // linked before the offer

    // A new offer applies to links made from now on, not to an active one.
    expect((await call("PUT", "/my-integration/offer", { percentage: 3 })).status).toBe(200);
    expect((await call("POST", "/my-integration/test-tokens")).json.autoLinkAction).toBe("already-linked");
    expect((await testMerchantCommission()).currentCommissionPercentage).toBe(1.5);
    // Linked again after an unlink: the merchant accepted the offer of that moment.
    expect((await call("DELETE", `/my-integration/users/${linked.integrationClientUserId}`)).status).toBe(204);
    expect((await call("POST", "/my-integration/test-tokens")).json.autoLinkAction).toBe("linked");
    expect((await testMerchantCommission()).currentCommissionPercentage).toBe(3);
  });
});

describe("the platform admin", () => {
  it("creates an integration client whose secret works once shown, lists it, changes its commission, adds admins", async () => {
    const sandbox = await t.sandbox();
    const { call } = await signedInAdmin(t, sandbox.platformAdmin);
    const created = await call("POST", "/integration-admin/setup/clients", {
      name: "Gestión Comercios",
      companyName: "Gestión Comercios S.A.",
      contactEmail: "integraciones@example.com",
      redirectUrls: ["https://app.example.com/oauth/callback"],
      firstAdminEmail: `first-${Date.now()}@example.com`,
    });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      name: "Gestión Comercios",
      serviceCommissionPercentage: null,
      providerClientSecret: expect.stringMatching(/^cs_/),
      tokenUrl: `${t.service.publicUrls.auth}/integration/oauth2/token`,
    });
    const id = created.json.integrationClientId;

    const refresh = await read(
      await postJson(`${t.authUrl}/integration/oauth2/refresh`, {
        grantType: "refresh_token",
        refreshToken: "rt_none",
        clientId: created.json.providerClientId,
        clientSecret: created.json.providerClientSecret,
      }),
    );
    expect(refresh.json.code).toBe("InvalidGrantError"); // the client authenticated; the token is what is wrong

    const list = await call("GET", "/integration-admin/setup/clients?limit=100");
    expect(list.json.items.map((c: { integrationClientId: string }) => c.integrationClientId)).toContain(id);

    const commission = await call("PATCH", `/integration-admin/setup/clients/${id}`, { serviceCommissionPercentage: 2.5 });
    expect(commission.json).toMatchObject({
      serviceCommissionPercentage: 2.5,
      commissionBackfill: { pending: 0, failed: 0, skipped: 0, applied: 0, total: 0 },
    });
    expect((await call("PATCH", `/integration-admin/setup/clients/${id}`, { serviceCommissionPercentage: null })).json.serviceCommissionPercentage).toBeNull();

    const admin = await call("POST", `/integration-admin/setup/clients/${id}/admins`, {
      email: `second-${Date.now()}@example.com`,
      clientId: created.json.providerClientId,
    });
    expect(admin.json).toMatchObject({ status: "pending" });
    expect((await call("GET", `/integration-admin/setup/clients/${id}/admins`)).json.total).toBe(2);
    const mismatch = await call("POST", `/integration-admin/setup/clients/${id}/admins`, { email: "x@example.com", clientId: "cli_other" });
    expect(mismatch.status).toBe(400);
    expect(mismatch.json).toEqual({ code: "ClientIdMismatchError", message: expect.stringContaining("clientId"), id: expect.any(String) });

    // The path names the integration: the body need not repeat its OAuth clientId.
    const byPathAlone = await call("POST", `/integration-admin/setup/clients/${id}/admins`, {
      email: `third-${Date.now()}@example.com`,
      name: "Tercera Admin",
    });
    expect(byPathAlone.status, byPathAlone.text).toBe(201);
    expect(byPathAlone.json).toMatchObject({ status: "pending" });
    expect((await call("GET", `/integration-admin/setup/clients/${id}/admins`)).json.total).toBe(3);
  });

  it("404 IntegrationClientNotFoundError for an unknown client", async () => {
    const sandbox = await t.sandbox();
    const { call } = await signedInAdmin(t, sandbox.platformAdmin);
    const result = await call("GET", "/integration-admin/setup/clients/00000000-0000-4000-8000-000000000000");
    expect(result.status).toBe(404);
    expect(result.json).toEqual({ code: "IntegrationClientNotFoundError", message: expect.any(String), id: expect.any(String) });
  });
});

describe("the offer", () => {
  it("is replaced as a whole and shown as the fee on the authorization screen", async () => {
    const sandbox = await t.sandbox();
    const { call } = await signedInAdmin(t, sandbox.integrationAdmin);
    expect((await call("GET", "/my-integration/offer")).json).toEqual({ percentage: null, fixedAmount: null });
    const authorize = `${t.authUrl}/integration/oauth2/authorize?response_type=code&client_id=${sandbox.integration.clientId}&redirect_uri=${encodeURIComponent(sandbox.integration.redirectUri)}`;
    expect(await (await fetch(authorize)).text()).not.toContain("Comisión del servicio");

    expect((await call("PUT", "/my-integration/offer", { percentage: 1.5, fixedAmount: 25 })).json).toEqual({ percentage: 1.5, fixedAmount: 25 });
    expect(await (await fetch(authorize)).text()).toContain("1,5 % + $ 25,00 por cobro");

    expect((await call("PUT", "/my-integration/offer", { percentage: 2 })).json).toEqual({ percentage: 2, fixedAmount: null });
    expect((await call("PUT", "/my-integration/offer", {})).json).toEqual({ percentage: null, fixedAmount: null });
    const bad = await call("PUT", "/my-integration/offer", { fixedAmount: 1.234 });
    expect(bad.status).toBe(400);
    expect(bad.json.validationDetails[0].field).toBe("fixedAmount");
  });
});

describe("in Production", () => {
  it("refuses an http://localhost redirect URI that the Sandbox accepts", async () => {
    const production = await startTestService({ env: { SERVICE_ENV: "production" } });
    try {
      const sandbox = await production.sandbox();
      const { call } = await signedInAdmin(production, sandbox.platformAdmin);
      const result = await call("POST", "/integration-admin/setup/clients", {
        name: "Local",
        companyName: "Local S.A.",
        contactEmail: "local@example.com",
        redirectUrls: ["http://localhost:8080/callback"],
      });
      expect(result.status).toBe(400);
      expect(result.json.validationDetails[0]).toEqual({ field: "redirectUrls[0]", rule: "https", message: expect.stringContaining("https") });
    } finally {
      await production.close();
    }
  });
});
