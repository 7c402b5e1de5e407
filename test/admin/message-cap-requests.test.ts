// Raising an integration's daily chat-message cap over real HTTP: the integration admin asks, a platform
// admin approves or rejects, the next creates count against the new cap, and the outcome reaches the
// admin who asked on a real SMTP server.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cuilCandidatesOfDni } from "../../domain/tax-id.ts";
import { serviceForFile, type TestService } from "../helpers/service.ts";
import { sandboxIntegration, signedInAdmin, type SignedInAdmin } from "../helpers/sandbox-admin.ts";
import { startSmtpServer, type TestSmtpServer } from "../helpers/smtp-server.ts";
import { chargeBody } from "../helpers/charges.ts";

const generalError = (code: string) => ({ code, message: expect.any(String), id: expect.any(String) });
const MISSING_ID = "00000000-0000-4000-8000-000000000000";
const REASON = "Enviamos los avisos de expensas de 300 consorcios el día 1 de cada mes.";

let dni = 31_000_000;
const payer = () => cuilCandidatesOfDni(String(++dni))[0]!;
const phone = { countryCode: "+54", number: "91123456789" };
const whatsappItem = () =>
  chargeBody({ amount: 42000, sendWhatsappNotification: true, customer: { name: "Juan Pérez", taxDocument: payer(), phoneNumber: phone } });

function expectValidation(result: { status: number; json: any }, field: string) {
  expect(result.status, JSON.stringify(result.json)).toBe(400);
  expect(result.json).toEqual({ code: "ValidationError", message: expect.any(String), id: expect.any(String), validationDetails: expect.any(Array) });
  const fields: string[] = result.json.validationDetails.map((detail: { field: string }) => detail.field);
  expect(
    fields.some((name) => name.includes(field)),
    `${field} in ${fields.join(", ")}`,
  ).toBe(true);
}

/** A fresh Sandbox integration with its integration admin, a platform admin, and its requests as stored. */
async function integrationWithAdmins(t: TestService) {
  const integration = await sandboxIntegration(t);
  const platform = await signedInAdmin(t, integration.merchant.sandbox.platformAdmin);
  const me = await integration.admin.call("GET", "/my-integration/me");
  const integrationClientId: string = me.json.integrationClientId;
  const storedRequests = () => t.database.db.selectFrom("message_cap_requests").selectAll().where("integration_client_id", "=", integrationClientId).execute();
  return { ...integration, platform, integrationClientId, integrationAdminEmail: integration.merchant.sandbox.integrationAdmin.email, storedRequests };
}

async function ask(admin: SignedInAdmin, requestedPerDay: number, reason = REASON) {
  const created = await admin.call("POST", "/my-integration/message-cap-requests", { requestedPerDay, reason });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  return created.json;
}

describe("message cap requests (Sandbox with SMTP)", () => {
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    await smtp?.close();
  });
  // 12:00 Argentina time on 2026-11-22.
  const t = serviceForFile(() => ({
    start: new Date("2026-11-22T15:00:00Z"),
    env: { COBRO_SMTP_URL: smtp.url, COBRO_MAIL_FROM: "Cobro <avisos@cobro.test>" },
  }));

  it("an approval raises the cap at once: a create past the old cap succeeds, and the outcome is mailed", async () => {
    const { merchant, admin, platform, integrationClientId, integrationAdminEmail, createCharge } = await integrationWithAdmins(t);
    // Exhaust the Sandbox's default 20 messages.
    const bulk = await merchant.call("POST", "/payment-request/bulk", { paymentRequests: Array.from({ length: 20 }, whatsappItem) });
    expect(bulk.status, JSON.stringify(bulk.json)).toBe(201);
    const refused = await merchant.call("POST", "/payment-request", whatsappItem());
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ code: "IntegrationDailyRequestLimitExceededError", maxMessagesPerDay: 20 });

    const request = await ask(admin, 30);
    expect(request).toEqual({
      id: expect.any(String),
      status: "pending",
      requestedPerDay: 30,
      currentPerDay: 20,
      reason: REASON,
      createdAt: "2026-11-22T15:00:00.000Z",
      approvedPerDay: null,
      rejectionReason: null,
      decidedAt: null,
    });

    const queue = await platform.call("GET", "/integration-admin/message-cap-requests?status=pending&limit=100");
    expect(queue.status).toBe(200);
    const queued = queue.json.items.find((item: { id: string }) => item.id === request.id);
    expect(queued).toEqual({
      ...request,
      integrationClientId,
      integrationClientName: merchant.sandbox.integration.name,
      requestedBy: integrationAdminEmail,
      decidedBy: null,
    });

    t.clock.advance(60_000);
    const approved = await platform.call("POST", `/integration-admin/message-cap-requests/${request.id}/approve`, { approvedPerDay: 25 });
    expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    expect(approved.json).toEqual({
      ...queued,
      status: "approved",
      approvedPerDay: 25,
      decidedAt: "2026-11-22T15:01:00.000Z",
      decidedBy: merchant.sandbox.platformAdmin.email,
    });

    // The 21st to the 25th message of the day now fit; the 26th does not.
    await createCharge(whatsappItem());
    const fourMore = await merchant.call("POST", "/payment-request/bulk", { paymentRequests: Array.from({ length: 4 }, whatsappItem) });
    expect(fourMore.status, JSON.stringify(fourMore.json)).toBe(201);
    const past = await merchant.call("POST", "/payment-request", whatsappItem());
    expect(past.status).toBe(429);
    expect(past.json).toMatchObject({ code: "IntegrationDailyRequestLimitExceededError", maxMessagesPerDay: 25 });

    const mine = await admin.call("GET", "/my-integration/message-cap-requests");
    expect(mine.status).toBe(200);
    expect(mine.json).toEqual({
      items: [{ ...request, status: "approved", approvedPerDay: 25, decidedAt: "2026-11-22T15:01:00.000Z" }],
      total: 1,
      limit: 20,
      offset: 0,
      currentPerDay: 25,
    });

    const [mail] = await smtp.waitFor(integrationAdminEmail);
    expect(mail!.subject).toBe("Cobro: aprobamos tu pedido de más mensajes de chat");
    expect(mail!.text).toContain(`Aprobamos el pedido de ${merchant.sandbox.integration.name}`);
    expect(mail!.text).toContain("Límite pedido: 30 mensajes por día");
    expect(mail!.text).toContain("Límite aprobado: 25 mensajes por día");
    expect(mail!.html).toContain("Límite aprobado: 25 mensajes por día");
  });

  it("approving without a body grants the cap asked for", async () => {
    const { admin, platform, integrationClientId } = await integrationWithAdmins(t);
    const request = await ask(admin, 1000);
    const approved = await platform.call("POST", `/integration-admin/message-cap-requests/${request.id}/approve`);
    expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    expect(approved.json).toMatchObject({ status: "approved", approvedPerDay: 1000 });
    const limit = await t.database.db
      .selectFrom("integration_limits")
      .select("max_messages_per_day")
      .where("integration_client_id", "=", integrationClientId)
      .executeTakeFirstOrThrow();
    expect(limit.max_messages_per_day).toBe(1000);
    // The next request starts from the raised cap.
    expect((await ask(admin, 1500)).currentPerDay).toBe(1000);
  });

  it("a rejection leaves the cap unchanged and mails the reason", async () => {
    const { merchant, admin, platform, integrationClientId, integrationAdminEmail } = await integrationWithAdmins(t);
    const request = await ask(admin, 500);
    const rejection = "El volumen pedido no coincide con la cantidad de comercios activos.";
    const rejected = await platform.call("POST", `/integration-admin/message-cap-requests/${request.id}/reject`, { reason: rejection });
    expect(rejected.status, JSON.stringify(rejected.json)).toBe(200);
    expect(rejected.json).toMatchObject({
      id: request.id,
      status: "rejected",
      rejectionReason: rejection,
      approvedPerDay: null,
      decidedBy: merchant.sandbox.platformAdmin.email,
    });
    expect(await t.database.db.selectFrom("integration_limits").selectAll().where("integration_client_id", "=", integrationClientId).execute()).toEqual([]);
    const mine = await admin.call("GET", "/my-integration/message-cap-requests");
    expect(mine.json).toMatchObject({ items: [{ id: request.id, status: "rejected", rejectionReason: rejection }], currentPerDay: 20 });

    const [mail] = await smtp.waitFor(integrationAdminEmail);
    expect(mail!.subject).toBe("Cobro: tu pedido de más mensajes de chat no fue aprobado");
    expect(mail!.text).toContain(`Motivo: ${rejection}`);
    expect(mail!.text).toContain("El límite sigue en 20 mensajes por día.");

    // A decided request no longer blocks a new one.
    expect((await ask(admin, 300)).status).toBe("pending");
  });

  it("lists the integration's requests newest first, and the queue filters by status", async () => {
    const { admin, platform, integrationClientId } = await integrationWithAdmins(t);
    const first = await ask(admin, 100);
    expect((await platform.call("POST", `/integration-admin/message-cap-requests/${first.id}/reject`, { reason: "Todavía no." })).status).toBe(200);
    t.clock.advance(1000);
    const second = await ask(admin, 200);
    const mine = await admin.call("GET", "/my-integration/message-cap-requests?limit=1&offset=0");
    expect(mine.json).toMatchObject({ items: [{ id: second.id }], total: 2, limit: 1, offset: 0 });
    const older = await admin.call("GET", "/my-integration/message-cap-requests?limit=1&offset=1");
    expect(older.json.items.map((item: { id: string }) => item.id)).toEqual([first.id]);

    const ours = (items: Array<{ integrationClientId: string; id: string }>) =>
      items.filter((item) => item.integrationClientId === integrationClientId).map((item) => item.id);
    expect(ours((await platform.call("GET", "/integration-admin/message-cap-requests?limit=100")).json.items)).toEqual([second.id, first.id]);
    expect(ours((await platform.call("GET", "/integration-admin/message-cap-requests?status=rejected&limit=100")).json.items)).toEqual([first.id]);
    expect(ours((await platform.call("GET", "/integration-admin/message-cap-requests?status=pending&limit=100")).json.items)).toEqual([second.id]);
    expect(ours((await platform.call("GET", "/integration-admin/message-cap-requests?status=approved&limit=100")).json.items)).toEqual([]);
    expectValidation(await platform.call("GET", "/integration-admin/message-cap-requests?status=lost"), "status");
  });

  it("400 ValidationError for a request outside the rules, and nothing is stored", async () => {
    const { admin, storedRequests } = await integrationWithAdmins(t);
    const invalid: Array<[unknown, string]> = [
      [{ requestedPerDay: 20, reason: REASON }, "requestedPerDay"],
      [{ requestedPerDay: 10, reason: REASON }, "requestedPerDay"],
      [{ requestedPerDay: 100001, reason: REASON }, "requestedPerDay"],
      [{ requestedPerDay: 50.5, reason: REASON }, "requestedPerDay"],
      [{ requestedPerDay: "50", reason: REASON }, "requestedPerDay"],
      [{ reason: REASON }, "requestedPerDay"],
      [{ requestedPerDay: 50, reason: "" }, "reason"],
      [{ requestedPerDay: 50, reason: "   " }, "reason"],
      [{ requestedPerDay: 50, reason: "x".repeat(501) }, "reason"],
      [{ requestedPerDay: 50 }, "reason"],
    ];
    for (const [body, field] of invalid) expectValidation(await admin.call("POST", "/my-integration/message-cap-requests", body), field);
    expect(await storedRequests()).toEqual([]);
    // The ceiling itself is accepted.
    expect((await ask(admin, 100000)).requestedPerDay).toBe(100000);
  });

  it("409 MessageCapRequestAlreadyPendingError while a request is pending; the first one stays", async () => {
    const { admin, storedRequests } = await integrationWithAdmins(t);
    const first = await ask(admin, 40);
    const again = await admin.call("POST", "/my-integration/message-cap-requests", { requestedPerDay: 60, reason: REASON });
    expect(again.status).toBe(409);
    expect(again.json).toEqual(generalError("MessageCapRequestAlreadyPendingError"));
    expect((await storedRequests()).map((row) => [row.id, row.requested_per_day, row.status])).toEqual([[first.id, 40, "pending"]]);
  });

  it("deciding: 404 for an unknown id, 409 once decided, 400 for a grant not above the cap, and nothing changes", async () => {
    const { admin, platform, integrationClientId, storedRequests } = await integrationWithAdmins(t);
    for (const [action, body] of [
      ["approve", undefined],
      ["reject", { reason: "No." }],
    ] as const) {
      const unknown = await platform.call("POST", `/integration-admin/message-cap-requests/${MISSING_ID}/${action}`, body);
      expect(unknown.status).toBe(404);
      expect(unknown.json).toEqual(generalError("MessageCapRequestNotFoundError"));
    }
    const notAnId = await platform.call("POST", "/integration-admin/message-cap-requests/not-a-uuid/approve");
    expect(notAnId.status).toBe(400);
    expect(notAnId.json).toEqual({ code: "ValidationError", message: expect.any(String), id: expect.any(String), validationDetails: expect.any(Array) });

    const request = await ask(admin, 50);
    expectValidation(await platform.call("POST", `/integration-admin/message-cap-requests/${request.id}/approve`, { approvedPerDay: 20 }), "approvedPerDay");
    expectValidation(
      await platform.call("POST", `/integration-admin/message-cap-requests/${request.id}/approve`, { approvedPerDay: 100001 }),
      "approvedPerDay",
    );
    expectValidation(await platform.call("POST", `/integration-admin/message-cap-requests/${request.id}/reject`, {}), "reason");
    expectValidation(await platform.call("POST", `/integration-admin/message-cap-requests/${request.id}/reject`, { reason: "  " }), "reason");
    expect((await storedRequests()).map((row) => row.status)).toEqual(["pending"]);
    expect(await t.database.db.selectFrom("integration_limits").selectAll().where("integration_client_id", "=", integrationClientId).execute()).toEqual([]);

    expect((await platform.call("POST", `/integration-admin/message-cap-requests/${request.id}/approve`)).status).toBe(200);
    for (const [action, body] of [
      ["approve", { approvedPerDay: 900 }],
      ["reject", { reason: "Tarde." }],
    ] as const) {
      const decided = await platform.call("POST", `/integration-admin/message-cap-requests/${request.id}/${action}`, body);
      expect(decided.status).toBe(409);
      expect(decided.json).toEqual(generalError("MessageCapRequestNotPendingError"));
    }
    const [row] = await storedRequests();
    expect([row!.status, row!.approved_per_day, row!.rejection_reason]).toEqual(["approved", 50, null]);
    const limit = await t.database.db
      .selectFrom("integration_limits")
      .select("max_messages_per_day")
      .where("integration_client_id", "=", integrationClientId)
      .executeTakeFirstOrThrow();
    expect(limit.max_messages_per_day).toBe(50);
  });

  it("403 ForbiddenError for the other role", async () => {
    const { admin, platform, storedRequests } = await integrationWithAdmins(t);
    const request = await ask(admin, 70);
    const forbidden = [
      await platform.call("POST", "/my-integration/message-cap-requests", { requestedPerDay: 80, reason: REASON }),
      await platform.call("GET", "/my-integration/message-cap-requests"),
      await admin.call("GET", "/integration-admin/message-cap-requests"),
      await admin.call("POST", `/integration-admin/message-cap-requests/${request.id}/approve`),
      await admin.call("POST", `/integration-admin/message-cap-requests/${request.id}/reject`, { reason: "No." }),
    ];
    for (const answer of forbidden) {
      expect(answer.status).toBe(403);
      expect(answer.json).toEqual(generalError("ForbiddenError"));
    }
    expect((await storedRequests()).map((row) => row.status)).toEqual(["pending"]);
  });

  it("a mail the server refuses is logged and the decision stands", async () => {
    const { admin, platform, integrationAdminEmail, storedRequests } = await integrationWithAdmins(t);
    const request = await ask(admin, 90);
    smtp.refuse(integrationAdminEmail, { code: 550, message: "Mailbox unavailable" });
    const approved = await platform.call("POST", `/integration-admin/message-cap-requests/${request.id}/approve`);
    expect(approved.status).toBe(200);
    expect((await storedRequests()).map((row) => row.status)).toEqual(["approved"]);
    expect(
      t.logLines.some((line) => line.messageCapRequestId === request.id && line.msg === "the message cap decision mail was not accepted by the mail server"),
    ).toBe(true);
  });
});

describe("message cap requests (Production without SMTP)", () => {
  const t = serviceForFile({ env: { SERVICE_ENV: "production" } });

  it("starts from Production's 200 and decides without a mail server, logging the unsent mail", async () => {
    const sandbox = await t.sandbox();
    const admin = await signedInAdmin(t, sandbox.integrationAdmin);
    const platform = await signedInAdmin(t, sandbox.platformAdmin);
    expect((await admin.call("GET", "/my-integration/message-cap-requests")).json).toEqual({ items: [], total: 0, limit: 20, offset: 0, currentPerDay: 200 });
    expectValidation(await admin.call("POST", "/my-integration/message-cap-requests", { requestedPerDay: 200, reason: REASON }), "requestedPerDay");
    const request = await ask(admin, 2000);
    expect(request.currentPerDay).toBe(200);
    const approved = await platform.call("POST", `/integration-admin/message-cap-requests/${request.id}/approve`);
    expect(approved.status, JSON.stringify(approved.json)).toBe(200);
    expect((await admin.call("GET", "/my-integration/message-cap-requests")).json.currentPerDay).toBe(2000);
    expect(t.logLines.some((line) => line.messageCapRequestId === request.id && String(line.msg).includes("no mail server configured"))).toBe(true);
  });
});
