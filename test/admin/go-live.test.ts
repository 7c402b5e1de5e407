// Going live with two running deployments, as they run for real: a Sandbox (with its worker) and a
// Production, each on its own database, sharing only a mail server. The Sandbox calls Production's Admin
// API with a platform API key made by `npm run platform-api-key:create` in Production.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearerCaller, postJson, read, serviceForFile, startTestService } from "../helpers/service.ts";
import { sandboxIntegration, signedInAdmin, type SandboxAdmin } from "../helpers/sandbox-admin.ts";
import { chargeBody } from "../helpers/charges.ts";
import { cobroEnv, ROOT, runScript } from "../../scripts/cobro-process.ts";
import { startSmtpServer, type TestSmtpServer } from "../helpers/smtp-server.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { runJobNow } from "../helpers/jobs.ts";
import { provisionProductionJobKey } from "../../db/job-queue.ts";

const MAIL = "Cobro <equipo@cobro.example>";
const PROD_REDIRECT = "https://app.gestion.example/oauth/callback";

let smtp: TestSmtpServer;
let receiver: WebhookReceiver;
beforeAll(async () => {
  smtp = await startSmtpServer();
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  await smtp?.close();
});

const production = serviceForFile(() => ({ env: { SERVICE_ENV: "production", COBRO_SMTP_URL: smtp.url, COBRO_MAIL_FROM: MAIL }, parts: ["auth", "admin"] }));

let platformApiKey: string;
beforeAll(async () => {
  const created = await runScript(
    join(ROOT, "scripts", "platform-api-key-create.ts"),
    ["--name", "sandbox-go-live"],
    cobroEnv({ DATABASE_URL: production.database.connectionString, SERVICE_ENV: "production" }),
  );
  expect(created.code, created.stderr).toBe(0);
  platformApiKey = /^(cpk_\S+)$/m.exec(created.stdout)![1]!;
});

const sandbox = serviceForFile(() => ({
  env: {
    COBRO_ALLOW_LOOPBACK_URLS: "true",
    COBRO_SMTP_URL: smtp.url,
    COBRO_MAIL_FROM: MAIL,
    COBRO_PRODUCTION_ADMIN_URL: production.adminUrl,
    COBRO_PRODUCTION_API_KEY: platformApiKey,
  },
  parts: ["integration", "auth", "admin", "worker"],
}));

/** A Sandbox integration that meets every criterion of the automatic check. */
async function readyIntegration() {
  const integration = await sandboxIntegration(sandbox);
  const { admin } = integration;
  expect((await admin.call("POST", "/my-integration/urls", { url: receiver.url("/ready"), urlType: "webhook" })).status).toBe(201);
  expect((await admin.call("POST", "/my-integration/urls", { url: PROD_REDIRECT, urlType: "redirect_uri" })).status).toBe(201);
  expect((await admin.call("PATCH", "/my-integration", { logoUrl: "https://gestion.example/logo.png" })).status).toBe(200);
  const charge = await integration.createCharge(chargeBody({ referenceId: uniqueRef("golive") }));
  expect((await admin.simulate({ cvu: charge.CVU, amount: 1000 })).status).toBe(200);
  return integration;
}

async function provisioned(admin: SandboxAdmin) {
  await expect.poll(async () => (await admin.call("GET", "/my-integration/go-live")).json.provisioning.status, { timeout: 20_000 }).toBe("provisioned");
  return (await admin.call("GET", "/my-integration/go-live")).json;
}

/** The welcome email Production sent to `email`, and its temporary password. */
async function productionWelcome(email: string) {
  await expect.poll(() => smtp.to(email).filter((mail) => mail.subject.startsWith("Bienvenido")).length, { timeout: 10_000 }).toBe(1);
  const welcome = smtp.to(email).find((mail) => mail.subject.startsWith("Bienvenido"))!;
  return { welcome, temporaryPassword: /^Contraseña temporal: (\S+)$/m.exec(welcome.text)![1]! };
}

/** Signs in to Production with the temporary password, changes it, and answers the admin's Admin API calls. */
async function productionAdmin(email: string, temporaryPassword: string) {
  const session = await read(await postJson(`${production.authUrl}/integration/admin/login`, { email, password: temporaryPassword }));
  expect(session.status).toBe(200);
  expect(session.json.passwordChangeRequired).toBe(true);
  const changed = await postJson(
    `${production.authUrl}/integration/admin/change-password`,
    { currentPassword: temporaryPassword, newPassword: "clave-de-produccion-1" },
    { authorization: `Bearer ${session.json.idToken}` },
  );
  expect(changed.status).toBe(204);
  return signedInAdmin(production, { email, password: "clave-de-produccion-1" });
}

describe("going live, approved by the automatic check", () => {
  it("creates the integration in Production with its profile, https URIs and the requesting admin, who gets Production's welcome", async () => {
    const { admin, merchant } = await readyIntegration();
    const adminEmail = merchant.sandbox.integrationAdmin.email;

    const asked = await admin.call("POST", "/my-integration/go-live");
    expect(asked.status).toBe(200);
    expect(asked.json).toMatchObject({ status: "approved", reasons: [], provisioning: { status: "in_progress" } });

    const request = await provisioned(admin);
    expect(request).toMatchObject({ id: asked.json.id, status: "approved", decidedBy: "automatic", requestedByEmail: adminEmail });
    expect(request.provisioning.productionClientId).toMatch(/^cli_/);

    // The Sandbox told the admin; Production sent its own welcome, with Production's sign-in address.
    const outcome = await smtp.waitFor(adminEmail);
    expect(outcome.some((mail) => mail.text.includes("Aprobamos el pase a producción"))).toBe(true);
    const { welcome, temporaryPassword } = await productionWelcome(adminEmail);
    expect(welcome.text).toContain(`Ingresá en: ${production.service.publicUrls.admin}/portal/`);
    expect(outcome.some((mail) => mail.text.includes(`Portal del Sandbox: ${sandbox.service.publicUrls.admin}/portal/`))).toBe(true);

    // In Production: the profile and the https redirect URI only; no merchant, no charge.
    const prod = await productionAdmin(adminEmail, temporaryPassword);
    const mine = await prod.call("GET", "/my-integration/me");
    expect(mine.status).toBe(200);
    expect(mine.json).toMatchObject({
      name: merchant.sandbox.integration.name,
      companyName: "Sandbox S.A.",
      providerClientId: request.provisioning.productionClientId,
    });
    const prodClient = await production.database.db
      .selectFrom("integration_clients")
      .selectAll()
      .where("provider_client_id", "=", request.provisioning.productionClientId)
      .executeTakeFirstOrThrow();
    expect(prodClient.redirect_uris).toEqual([PROD_REDIRECT]);
    expect(prodClient.logo_url).toBeNull();
    expect((await prod.call("GET", "/my-integration/users")).json.items).toEqual([]);
    expect((await prod.call("GET", "/my-integration/payment-requests")).json.total).toBe(0);

    // Asking again answers the approved request; Production still has one integration from it.
    const again = await admin.call("POST", "/my-integration/go-live");
    expect(again.json).toMatchObject({ id: asked.json.id, status: "approved", provisioning: { status: "provisioned" } });
    const fromSandbox = await production.database.db
      .selectFrom("integration_clients")
      .select("id")
      .where("provisioned_from_sandbox_client_id", "=", request.integrationClientId)
      .execute();
    expect(fromSandbox).toHaveLength(1);
  });
});

describe("going live through the platform's review", () => {
  it("sends an incomplete integration to review with its reasons; a rejection is mailed, an approval provisions", async () => {
    const integration = await sandboxIntegration(sandbox);
    const { admin, merchant } = integration;
    const adminEmail = merchant.sandbox.integrationAdmin.email;
    const platform = await signedInAdmin(sandbox, merchant.sandbox.platformAdmin);

    expect((await admin.call("GET", "/my-integration/go-live")).json.code).toBe("GoLiveRequestNotFoundError");
    receiver.answerNext({ status: 500 });
    expect((await admin.call("POST", "/my-integration/urls", { url: receiver.url("/broken"), urlType: "webhook" })).status).toBe(201);
    receiver.answerNext({ status: 500 });
    const asked = await admin.call("POST", "/my-integration/go-live");
    expect(asked.status).toBe(200);
    expect(asked.json.status).toBe("in_review");
    expect(asked.json.reasons.map((reason: { code: string }) => reason.code).sort()).toEqual([
      "incomplete_profile",
      "no_paid_charge",
      "no_redirect_uri",
      "webhook_unreachable",
    ]);
    for (const reason of asked.json.reasons) expect(reason.message).toMatch(/\S/);

    const queue = await platform.call("GET", "/integration-admin/go-live-requests?status=in_review&limit=100");
    expect(queue.status).toBe(200);
    const queued = queue.json.items.find((item: { id: string }) => item.id === asked.json.id);
    expect(queued).toMatchObject({
      status: "in_review",
      integrationName: merchant.sandbox.integration.name,
      requestedByEmail: adminEmail,
      provisioning: { status: "not_started" },
    });

    const rejected = await platform.call("POST", `/integration-admin/go-live-requests/${asked.json.id}/reject`, {
      reason: "Falta una URI de redirección https.",
    });
    expect(rejected.status).toBe(200);
    expect(rejected.json).toMatchObject({
      status: "rejected",
      decidedBy: merchant.sandbox.platformAdmin.email,
      rejectionReason: "Falta una URI de redirección https.",
    });
    const [rejection] = await smtp.waitFor(adminEmail);
    expect(rejection!.text).toContain("Motivo: Falta una URI de redirección https.");

    const decidedAgain = await platform.call("POST", `/integration-admin/go-live-requests/${asked.json.id}/approve`);
    expect(decidedAgain.status).toBe(409);
    expect(decidedAgain.json).toMatchObject({ code: "GoLiveRequestDecidedError", message: expect.any(String), id: expect.any(String) });

    // Asked again: a new request in review, which a platform admin approves.
    const second = await admin.call("POST", "/my-integration/go-live");
    expect(second.json.status).toBe("in_review");
    expect(second.json.id).not.toBe(asked.json.id);
    const approved = await platform.call("POST", `/integration-admin/go-live-requests/${second.json.id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.json).toMatchObject({ status: "approved", decidedBy: merchant.sandbox.platformAdmin.email });
    expect(["in_progress", "provisioned"]).toContain(approved.json.provisioning.status);
    const request = await provisioned(admin);
    expect(request.id).toBe(second.json.id);
    const { temporaryPassword } = await productionWelcome(adminEmail);
    const prod = await productionAdmin(adminEmail, temporaryPassword);
    expect((await prod.call("GET", "/my-integration/me")).json.providerClientId).toBe(request.provisioning.productionClientId);

    const approvedOnly = await platform.call("GET", "/integration-admin/go-live-requests?status=approved&limit=100");
    expect(approvedOnly.json.items.every((item: { status: string }) => item.status === "approved")).toBe(true);
    expect(approvedOnly.json.items.some((item: { id: string }) => item.id === second.json.id)).toBe(true);
  });

  it("marks provisioning failed when Production refuses the admin's email, and says why", async () => {
    const { admin, merchant } = await readyIntegration();
    // Production already has an admin with this email (another integration's): it refuses a second one.
    await production.database.db
      .insertInto("admin_users")
      .values({ email: merchant.sandbox.integrationAdmin.email, password_hash: "x", role: "PLATFORM_ADMIN" })
      .execute();
    const asked = await admin.call("POST", "/my-integration/go-live");
    expect(asked.json.status).toBe("approved");
    await expect.poll(async () => (await admin.call("GET", "/my-integration/go-live")).json.provisioning.status, { timeout: 20_000 }).toBe("failed");
    const request = (await admin.call("GET", "/my-integration/go-live")).json;
    expect(request.provisioning.lastError).toContain("AdminEmailAlreadyExistsError");
  });
});

describe("the go-live operations' errors", () => {
  it("answers the documented errors and writes nothing", async () => {
    const { merchant, admin } = await sandboxIntegration(sandbox);
    const platform = await signedInAdmin(sandbox, merchant.sandbox.platformAdmin);
    const unknown = "00000000-0000-4000-8000-000000000000";

    const notFound = await platform.call("POST", `/integration-admin/go-live-requests/${unknown}/approve`);
    expect(notFound.status).toBe(404);
    expect(notFound.json).toMatchObject({ code: "GoLiveRequestNotFoundError", message: expect.any(String), id: expect.any(String) });
    const notUuid = await platform.call("POST", "/integration-admin/go-live-requests/not-a-uuid/approve");
    expect(notUuid.status).toBe(400);
    expect(notUuid.json.code).toBe("ValidationError");

    // Before asking: the latest request is 404, the integration's list is empty (200: a page can ask without an error).
    expect((await admin.call("GET", "/my-integration/go-live")).json.code).toBe("GoLiveRequestNotFoundError");
    expect(await admin.call("GET", "/my-integration/go-live/requests")).toMatchObject({ status: 200, json: { items: [], total: 0, limit: 20, offset: 0 } });
    const asked = await admin.call("POST", "/my-integration/go-live");
    expect(asked.json.status).toBe("in_review");
    const mine = await admin.call("GET", "/my-integration/go-live/requests?limit=1");
    expect(mine).toMatchObject({ status: 200, json: { items: [{ id: asked.json.id, status: "in_review" }], total: 1, limit: 1, offset: 0 } });
    expect(mine.json.items[0]).toEqual((await admin.call("GET", "/my-integration/go-live")).json);
    expect((await platform.call("GET", "/my-integration/go-live/requests")).status).toBe(403);
    // Asking again while in review repeats the check on the same request, not a second one.
    const again = await admin.call("POST", "/my-integration/go-live");
    expect(again.json).toMatchObject({ id: asked.json.id, status: "in_review" });
    expect(await goLiveRequestCount(merchant.sandbox.integration.clientId)).toBe(1);
    const emptyReason = await platform.call("POST", `/integration-admin/go-live-requests/${asked.json.id}/reject`, { reason: "" });
    expect(emptyReason.status).toBe(400);
    expect(emptyReason.json).toMatchObject({ code: "ValidationError", validationDetails: expect.any(Array) });
    expect((await admin.call("GET", "/my-integration/go-live")).json.status).toBe("in_review");
    const badStatus = await platform.call("GET", "/integration-admin/go-live-requests?status=pending");
    expect(badStatus.status).toBe(400);

    const wrongRole = await admin.call("GET", "/integration-admin/go-live-requests");
    expect(wrongRole.status).toBe(403);
    expect(wrongRole.json.code).toBe("ForbiddenError");
    const platformAsks = await platform.call("POST", "/my-integration/go-live");
    expect(platformAsks.status).toBe(403);

    // Production's provisioning does not exist in the Sandbox.
    const inSandbox = await platform.call("PUT", `/integration-admin/production-clients/${unknown}`, provisionBody(`${uniqueRef("x")}@example.com`));
    expect(inSandbox.status).toBe(403);
    expect(inSandbox.json.code).toBe("ProductionOnlyError");
  });

  it("in Production: going live is the Sandbox's, and provisioning needs a platform API key or a platform admin", async () => {
    const prodSet = await production.sandbox();
    const prodIntegrationAdmin = await signedInAdmin(production, prodSet.integrationAdmin);
    const goLive = await prodIntegrationAdmin.call("POST", "/my-integration/go-live");
    expect(goLive.status).toBe(403);
    expect(goLive.json.code).toBe("SandboxOnlyError");

    const sandboxClientId = crypto.randomUUID();
    const url = `${production.adminUrl}/integration-admin/production-clients/${sandboxClientId}`;
    const put = (headers: Record<string, string>, body: unknown = provisionBody(`${uniqueRef("key")}@example.com`)) =>
      fetch(url, { method: "PUT", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) }).then(read);

    const noKey = await put({});
    expect(noKey.status).toBe(401);
    expect(noKey.json.code).toBe("UnauthorizedError");
    const wrongKey = await put({ "x-cobro-api-key": "cpk_not-a-key" });
    expect(wrongKey.status).toBe(401);
    const integrationAdmin = await put({ authorization: `Bearer ${prodIntegrationAdmin.token}` });
    expect(integrationAdmin.status).toBe(403);
    const httpRedirect = await put(
      { "x-cobro-api-key": platformApiKey },
      { ...provisionBody(`${uniqueRef("http")}@example.com`), redirectUrls: ["http://localhost:8080/callback"] },
    );
    expect(httpRedirect.status).toBe(400);
    expect(httpRedirect.json.code).toBe("ValidationError");
    expect(
      await production.database.db.selectFrom("integration_clients").select("id").where("provisioned_from_sandbox_client_id", "=", sandboxClientId).execute(),
    ).toEqual([]);

    // Created once; the same call again answers the same integration and mails no second welcome.
    const email = `${uniqueRef("once")}@example.com`;
    const first = await put({ "x-cobro-api-key": platformApiKey }, provisionBody(email));
    expect(first.status).toBe(201);
    expect(first.json).toMatchObject({ firstAdminEmailSent: true, providerClientId: expect.stringMatching(/^cli_/) });
    const second = await put({ "x-cobro-api-key": platformApiKey }, provisionBody(email));
    expect(second.status).toBe(200);
    expect(second.json).toEqual(first.json);
    expect(smtp.to(email)).toHaveLength(1);

    // A platform admin may create one by hand.
    const platform = await signedInAdmin(production, prodSet.platformAdmin);
    const byHand = await bearerCaller(production.adminUrl, () => platform.token)(
      "PUT",
      `/integration-admin/production-clients/${crypto.randomUUID()}`,
      provisionBody(`${uniqueRef("hand")}@example.com`),
    );
    expect(byHand.status).toBe(201);
  });
});

describe("Production unreachable for a while", () => {
  it("keeps the approval, shows the error, and provisions once Production answers", async () => {
    // A stand-in for Production's address: down (503) until told, then a pass-through to Production.
    let down = true;
    const standIn = createServer(async (req, res) => {
      if (down) return void res.writeHead(503, { "content-type": "application/json" }).end(JSON.stringify({ code: "Unavailable", message: "maintenance" }));
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const answer = await fetch(`${production.adminUrl}${req.url}`, {
        method: req.method,
        headers: req.headers as Record<string, string>,
        body: Buffer.concat(chunks),
      });
      res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" }).end(await answer.text());
    });
    await new Promise<void>((resolve) => standIn.listen(0, "127.0.0.1", resolve));
    const flaky = await startTestService({
      env: {
        COBRO_ALLOW_LOOPBACK_URLS: "true",
        COBRO_PRODUCTION_ADMIN_URL: `http://127.0.0.1:${(standIn.address() as AddressInfo).port}`,
        COBRO_PRODUCTION_API_KEY: platformApiKey,
      },
      parts: ["admin", "auth", "worker"],
    });
    try {
      const { merchant, admin } = await sandboxIntegration(flaky);
      const platform = await signedInAdmin(flaky, merchant.sandbox.platformAdmin);
      const asked = await admin.call("POST", "/my-integration/go-live");
      expect((await platform.call("POST", `/integration-admin/go-live-requests/${asked.json.id}/approve`)).status).toBe(200);
      await expect
        .poll(async () => (await admin.call("GET", "/my-integration/go-live")).json.provisioning.lastError, { timeout: 20_000 })
        .toContain("Production answered 503");
      expect((await admin.call("GET", "/my-integration/go-live")).json.provisioning.status).toBe("in_progress");

      down = false;
      await runJobNow(flaky.database.db, provisionProductionJobKey(asked.json.id));
      const request = await provisioned(admin);
      expect(request.provisioning).not.toHaveProperty("lastError");
      await productionWelcome(merchant.sandbox.integrationAdmin.email);
    } finally {
      await flaky.close();
      await new Promise((resolve) => standIn.close(resolve));
    }
  });
});

describe("a Sandbox without a Production deployment configured", () => {
  it("records the approval and says what to do by hand", async () => {
    const alone = await startTestService({ env: { COBRO_ALLOW_LOOPBACK_URLS: "true" } });
    try {
      const { merchant, admin } = await sandboxIntegration(alone);
      const platform = await signedInAdmin(alone, merchant.sandbox.platformAdmin);
      const asked = await admin.call("POST", "/my-integration/go-live");
      expect(asked.json.status).toBe("in_review");
      const approved = await platform.call("POST", `/integration-admin/go-live-requests/${asked.json.id}/approve`);
      expect(approved.status).toBe(200);
      expect(approved.json.provisioning).toMatchObject({
        status: "manual",
        instructions: expect.stringContaining("PUT /integration-admin/production-clients/"),
      });
      expect(alone.logLines.some((line) => String(line.msg).includes("create the integration in Production by hand"))).toBe(true);
      // The outcome went to the Sandbox's mail log.
      expect(alone.logLines.some((line) => JSON.stringify(line).includes("Aprobamos el pase a producción"))).toBe(true);
    } finally {
      await alone.close();
    }
  });
});

/** How many go-live requests the Sandbox holds for an integration (by its OAuth clientId). */
async function goLiveRequestCount(providerClientId: string): Promise<number> {
  const rows = await sandbox.database.db
    .selectFrom("go_live_requests as r")
    .innerJoin("integration_clients as c", "c.id", "r.integration_client_id")
    .select("r.id")
    .where("c.provider_client_id", "=", providerClientId)
    .execute();
  return rows.length;
}

function provisionBody(firstAdminEmail: string) {
  return {
    name: "Gestión Comercios",
    companyName: "Gestión Comercios S.A.",
    contactEmail: "integraciones@example.com",
    type: "api_direct",
    scopes: ["openid", "email", "profile"],
    redirectUrls: [PROD_REDIRECT],
    logoutUrls: [],
    firstAdminEmail,
    firstAdminName: "Lucía Fernández",
  };
}
