// A platform admin suspends and reinstates an integration client over real HTTP: while suspended, new
// charges and payer changes answer 404 IntegrationNotReadyToCollectError, while reads, cancellations and
// payments of charges already open keep working.
import { describe, expect, it } from "vitest";
import { serviceForFile } from "../helpers/service.ts";
import { sandboxIntegration, signedInAdmin } from "../helpers/sandbox-admin.ts";
import { chargeBody } from "../helpers/charges.ts";

const generalError = (code: string) => ({ code, message: expect.any(String), id: expect.any(String) });
const SUSPENDED = { message: "The integration is suspended by the platform: it cannot create charges or change payers until it is reinstated" };
const REASON = "Contracargos reiterados: cobros suspendidos hasta revisar la operatoria.";
const cuilCharge = (taxDocument: string) => chargeBody({ conciliationType: "cuil", customer: { name: "Juan Pérez", taxDocument } });
const bulkItem = (taxDocument: string) => chargeBody({ amount: 42000, customer: { name: "Juan Pérez", taxDocument } });

// 12:00 Argentina time on 2026-11-22.
const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") });

async function integrationWithPlatform() {
  const integration = await sandboxIntegration(t);
  const platform = await signedInAdmin(t, integration.merchant.sandbox.platformAdmin);
  const integrationClientId: string = (await integration.admin.call("GET", "/my-integration/me")).json.integrationClientId;
  const chargeCount = async () => {
    const row = await t.database.db
      .selectFrom("charges")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .where("integration_client_id", "=", integrationClientId)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  };
  return { ...integration, platform, integrationClientId, chargeCount };
}

describe("suspending an integration client", () => {
  it("refuses creates and payer changes while suspended; reads, cancellations and payments go on; reinstating restores creates", async () => {
    const { merchant, admin, platform, integrationClientId, createCharge, chargeCount } = await integrationWithPlatform();
    const open = await createCharge(chargeBody({ amount: 1500 }));
    const toCancel = await createCharge(chargeBody());
    const cuilMode = await createCharge(cuilCharge("20301234563"));

    const suspended = await platform.call("POST", `/integration-admin/setup/clients/${integrationClientId}/suspend`, { reason: REASON });
    expect(suspended.status, JSON.stringify(suspended.json)).toBe(200);
    expect(suspended.json).toMatchObject({ integrationClientId, suspended: true, suspendedAt: "2026-11-22T15:00:00.000Z", suspensionReason: REASON });
    expect((await platform.call("GET", `/integration-admin/setup/clients/${integrationClientId}`)).json).toMatchObject({
      suspended: true,
      suspensionReason: REASON,
    });
    expect((await admin.call("GET", "/my-integration/me")).json).toMatchObject({
      suspended: true,
      suspendedAt: "2026-11-22T15:00:00.000Z",
      suspensionReason: REASON,
    });

    const before = await chargeCount();
    const refused = [
      await merchant.call("POST", "/payment-request", chargeBody()),
      // A payer who could join the shared CVU the first charge holds.
      await merchant.call("POST", "/payment-request", cuilCharge("20123456786")),
      await merchant.call("POST", "/payment-request/bulk", { paymentRequests: [bulkItem("20123456786"), bulkItem("20301234563")] }),
      await merchant.call("PATCH", `/payment-request/${cuilMode.referenceId}/customer`, { taxDocument: "20123456786", name: "María Gómez" }),
    ];
    for (const answer of refused) {
      expect(answer.status, answer.text).toBe(404);
      expect(answer.json).toEqual(SUSPENDED);
    }
    expect(await chargeCount()).toBe(before);
    expect((await merchant.call("GET", `/payment-request/${cuilMode.referenceId}`)).json.customer).toMatchObject({ taxDocument: "20301234563" });

    // Money already on its way: reads, cancellation and payment of open charges keep working.
    expect((await merchant.call("GET", `/payment-request/${open.referenceId}`)).status).toBe(200);
    expect((await merchant.call("POST", `/payment-request/${toCancel.referenceId}/cancel`)).json).toEqual({
      referenceId: toCancel.referenceId,
      state: "canceled",
    });
    const payment = await admin.simulate({ cvu: open.CVU, amount: 1500 });
    expect(payment.status, payment.text).toBe(200);
    expect((await merchant.call("GET", `/payment-request/${open.referenceId}`)).json).toMatchObject({ state: "total_payment" });

    const reinstated = await platform.call("POST", `/integration-admin/setup/clients/${integrationClientId}/reinstate`);
    expect(reinstated.status).toBe(200);
    expect(reinstated.json).toMatchObject({ suspended: false, suspendedAt: null, suspensionReason: null });
    await createCharge(chargeBody());
    expect(
      (await merchant.call("PATCH", `/payment-request/${cuilMode.referenceId}/customer`, { taxDocument: "20123456786", name: "María Gómez" })).status,
    ).toBe(200);
    expect((await admin.call("GET", "/my-integration/me")).json).toMatchObject({ suspended: false, suspendedAt: null, suspensionReason: null });
  });

  it("suspending again keeps when it began and takes the new reason; reinstating an active client changes nothing", async () => {
    const { platform, integrationClientId } = await integrationWithPlatform();
    const active = await platform.call("POST", `/integration-admin/setup/clients/${integrationClientId}/reinstate`);
    expect(active.json).toMatchObject({ suspended: false, suspendedAt: null });
    await platform.call("POST", `/integration-admin/setup/clients/${integrationClientId}/suspend`, { reason: REASON });
    t.clock.advance(60_000);
    const again = await platform.call("POST", `/integration-admin/setup/clients/${integrationClientId}/suspend`, { reason: "Revisión ampliada." });
    expect(again.json).toMatchObject({ suspended: true, suspendedAt: "2026-11-22T15:00:00.000Z", suspensionReason: "Revisión ampliada." });
    const listed = (await platform.call("GET", "/integration-admin/setup/clients?limit=100")).json.items.find(
      (item: { integrationClientId: string }) => item.integrationClientId === integrationClientId,
    );
    expect(listed).toMatchObject({ suspended: true, suspensionReason: "Revisión ampliada." });
  });

  it("400 for a missing or blank reason and 404 for an unknown client, changing nothing", async () => {
    const { platform, integrationClientId } = await integrationWithPlatform();
    for (const body of [{}, { reason: "" }, { reason: "   " }, { reason: "x".repeat(501) }]) {
      const invalid = await platform.call("POST", `/integration-admin/setup/clients/${integrationClientId}/suspend`, body);
      expect(invalid.status, JSON.stringify(body)).toBe(400);
      expect(invalid.json).toEqual({
        code: "ValidationError",
        message: expect.any(String),
        id: expect.any(String),
        validationDetails: [expect.objectContaining({ field: expect.stringContaining("reason") })],
      });
    }
    const client = await t.database.db
      .selectFrom("integration_clients")
      .select(["suspended_at", "suspension_reason"])
      .where("id", "=", integrationClientId)
      .executeTakeFirstOrThrow();
    expect(client).toEqual({ suspended_at: null, suspension_reason: null });
    for (const [action, body] of [
      ["suspend", { reason: REASON }],
      ["reinstate", undefined],
    ] as const) {
      const unknown = await platform.call("POST", `/integration-admin/setup/clients/00000000-0000-4000-8000-000000000000/${action}`, body);
      expect(unknown.status).toBe(404);
      expect(unknown.json).toEqual(generalError("IntegrationClientNotFoundError"));
    }
  });

  it("403 for an integration admin", async () => {
    const { admin, merchant, integrationClientId } = await integrationWithPlatform();
    for (const [action, body] of [
      ["suspend", { reason: REASON }],
      ["reinstate", undefined],
    ] as const) {
      const forbidden = await admin.call("POST", `/integration-admin/setup/clients/${integrationClientId}/${action}`, body);
      expect(forbidden.status).toBe(403);
      expect(forbidden.json).toEqual(generalError("ForbiddenError"));
    }
    expect((await merchant.call("POST", "/payment-request", chargeBody())).status).toBe(201);
  });
});
