// Test charges from the Sandbox tools: a charge for the integration's test merchant account, made by an
// admin in the portal without code, under the Integration API's rules.
import { describe, expect, it } from "vitest";
import { sql } from "kysely";
import { sandboxIntegration, signedInAdmin } from "../helpers/sandbox-admin.ts";
import { serviceForFile } from "../helpers/service.ts";

// 12:00 Argentina time on 2026-11-22.
const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") });

describe("a test charge", () => {
  it("is created for the test merchant with defaults, read back with its CVU, and paid by a simulated transfer", async () => {
    const { admin } = await sandboxIntegration(t);
    const created = await admin.call("POST", "/my-integration/test-charges", { amount: 1500 });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toEqual({
      paymentRequestId: expect.any(String),
      integrationReferenceId: expect.stringMatching(/^PRUEBA-[0-9A-F]{8}$/),
      paidAmount: 0,
      description: "Cobro de prueba",
      createdAt: "2026-11-22T15:00:00.000Z",
      status: "pending",
      customerName: "Pagador de prueba",
      conciliationType: "cvu",
      amount: 1500,
      dueDates: ["2026-12-02"],
      dueAmounts: [{ dueDate: "2026-12-02", amount: 1500 }],
      cvu: expect.stringMatching(/^\d{22}$/),
      payments: [],
    });
    const users = await admin.call("GET", "/my-integration/users");
    expect(users.json.items.map((user: { email: string }) => user.email)).toEqual(expect.arrayContaining([expect.stringMatching(/^test-merchant\+/)]));

    const paid = await admin.simulate({ cvu: created.json.cvu, amount: 1500 });
    expect(paid.json).toMatchObject({ conciliated: true, paymentRequestId: created.json.paymentRequestId });
    const read = await admin.call("GET", `/my-integration/payment-requests/${created.json.paymentRequestId}`);
    expect(read.json).toMatchObject({ status: "total_payment", paidAmount: 1500, payments: [expect.objectContaining({ amount: 1500 })] });
  });

  it("is paid by a simulated transfer whose audit entry commits with it, in the transaction that records the transfer", async () => {
    const { admin } = await sandboxIntegration(t);
    const created = await admin.call("POST", "/my-integration/test-charges", { amount: 1500 });
    const paid = await admin.simulate({ cvu: created.json.cvu, amount: 600 });
    expect(paid.status, paid.text).toBe(200);
    // xmin: the id of the transaction that wrote the row.
    const written = await sql<{ table: string; xmin: string }>`
      select 'transfer' as table, xmin::text from transfers where transaction_id = ${paid.json.idTransaccion}
      union all
      select 'audit entry', xmin::text from audit_log where request_id = ${paid.headers.get("x-request-id")} and operation = 'simulatePayment' and outcome = 'succeeded'
    `.execute(t.database.db);
    expect(written.rows.map((row) => row.table).sort()).toEqual(["audit entry", "transfer"]);
    expect(written.rows[0]!.xmin).toBe(written.rows[1]!.xmin);
  });

  it("takes a description, a due date and a payer with an email", async () => {
    const { admin } = await sandboxIntegration(t);
    const created = await admin.call("POST", "/my-integration/test-charges", {
      amount: 99.5,
      description: "Cuota de prueba",
      dueDate: "2026-12-20",
      customerName: "Ana Gómez",
      customerEmail: "ana@example.com",
    });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ description: "Cuota de prueba", dueDates: ["2026-12-20"], customerName: "Ana Gómez", payerEmail: "ana@example.com" });
  });

  it("reports the charge rules on its own fields: a due date that is not after today on dueDate", async () => {
    const { admin } = await sandboxIntegration(t);
    const today = await admin.call("POST", "/my-integration/test-charges", { amount: 1500, dueDate: "2026-11-22" });
    expect(today.status).toBe(400);
    expect(today.json).toEqual({
      code: "ValidationError",
      message: "dueDate must be after today (2026-11-22, Argentina time)",
      id: expect.any(String),
      validationDetails: [{ field: "dueDate", rule: "outOfRange", message: "dueDate must be after today (2026-11-22, Argentina time)" }],
    });
    const bad = await admin.call("POST", "/my-integration/test-charges", { amount: 0, customerName: "A", dueDate: "mañana" });
    expect(bad.status).toBe(400);
    expect(bad.json.validationDetails.map((detail: { field: string; rule: string }) => `${detail.field}:${detail.rule}`).sort()).toEqual(
      expect.arrayContaining(["amount:minimum", "customerName:minLength"]),
    );
    expect(bad.json.validationDetails.some((detail: { field: string }) => detail.field === "dueDate")).toBe(true);
  });

  it("is refused with 404 {message} while the platform has the integration suspended", async () => {
    const integration = await sandboxIntegration(t);
    const platform = await signedInAdmin(t, integration.merchant.sandbox.platformAdmin);
    const integrationClientId: string = (await integration.admin.call("GET", "/my-integration/me")).json.integrationClientId;
    const suspended = await platform.call("POST", `/integration-admin/setup/clients/${integrationClientId}/suspend`, { reason: "Revisión de la operatoria." });
    expect(suspended.status).toBe(200);
    const refused = await integration.admin.call("POST", "/my-integration/test-charges", { amount: 1500 });
    expect(refused.status).toBe(404);
    expect(refused.json).toEqual({ message: expect.stringContaining("suspended") });
  });
});
