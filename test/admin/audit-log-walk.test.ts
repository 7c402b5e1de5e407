// The audit log's coverage, over real HTTP and a real PostgreSQL: a walk through every state-changing
// operation of the Admin API's contract and the admins' session operations of the Auth API. Each call
// must leave exactly one entry (found by the response's X-Request-Id) that says who, what and the
// outcome; no secret the walk knows may appear in any entry; and the database refuses to change entries.
import { randomUUID } from "node:crypto";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { read, postJson, serviceForFile } from "../helpers/service.ts";
import { sandboxAdmin, signedInAdmin, type SandboxAdmin, type SignedInAdmin } from "../helpers/sandbox-admin.ts";
import { generatedDocument } from "../helpers/openapi-documents.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { codeBlocks } from "../docs/code-blocks.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";
import { startSmtpServer, type TestSmtpServer } from "../helpers/smtp-server.ts";
import { createPlatformApiKey } from "../../domain/sign-in/platform-api-keys.ts";
import { createPasswordResetLink } from "../../domain/sign-in/password-reset.ts";
import { credentialThrottle } from "../../domain/sign-in/credential-throttle.ts";
import { ADMIN_API_UNAUDITED, AUDITED_ADMIN_SESSION_OPERATIONS } from "../../server/http/audit-policy.ts";
import type { SandboxCredentials } from "../../domain/sandbox/sandbox-bootstrap.ts";

let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(async () => {
  await smtp?.close();
});
const t = serviceForFile({ env: { COBRO_ALLOW_LOOPBACK_URLS: "true" } });
// Production creates the integrations that go live (called by the Sandbox with a platform API key).
const production = serviceForFile(() => ({
  env: { SERVICE_ENV: "production", COBRO_SMTP_URL: smtp.url, COBRO_MAIL_FROM: "Cobro <cuentas@cobro.test>" },
  parts: ["auth", "admin"],
}));
let receiver: WebhookReceiver;

type Answer = Awaited<ReturnType<typeof read>>;
interface Step {
  operation: string;
  answer: Answer;
  /** Called on Production (its own database). */
  production?: boolean;
}

/** Every state-changing operation the contract has, that the audit log must cover. */
function auditedOperationsOfContract(): string[] {
  const operations: string[] = [];
  for (const [api, audited] of [
    ["admin", (id: string, method: string) => !["get", "head"].includes(method) && !ADMIN_API_UNAUDITED.has(id)],
    ["auth", (id: string) => AUDITED_ADMIN_SESSION_OPERATIONS.has(id)],
  ] as const) {
    for (const pathItem of Object.values(generatedDocument(api).paths))
      for (const [method, operation] of Object.entries(pathItem))
        if (operation.operationId && audited(operation.operationId, method)) operations.push(operation.operationId);
  }
  return operations;
}

const steps: Step[] = [];
/** Secrets the walk saw or sent: none may appear in an entry. */
const secrets = new Set<string>();
let sandbox: SandboxCredentials;
let sessionSet: SandboxCredentials;
let platform: SignedInAdmin;
let integration: SandboxAdmin;
let apiKey: { id: string; key: string };
let integrationClientId: string;
let goLiveRequestId: string;

/** Strings under secret-bearing names anywhere in a response body. */
function collectSecrets(value: unknown, name = ""): void {
  if (typeof value === "string") {
    if (/secret|token|password/i.test(name) && value.length >= 8) secrets.add(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectSecrets(item, name);
  } else if (typeof value === "object" && value !== null) for (const [key, item] of Object.entries(value)) collectSecrets(item, key);
}

async function step(operation: string, call: () => Promise<Answer>, options: { production?: boolean } = {}): Promise<Answer> {
  const answer = await call();
  collectSecrets(answer.json);
  steps.push({ operation, answer, ...options });
  return answer;
}

const entriesOf = (requestId: string | null, service = t) =>
  service.database.db
    .selectFrom("audit_log")
    .selectAll()
    .where("request_id", "=", requestId ?? "")
    .execute();

async function withApiKey(method: string, path: string, body: unknown): Promise<Answer> {
  return read(
    await fetch(`${t.adminUrl}${path}`, {
      method,
      headers: { "content-type": "application/json", "x-cobro-api-key": apiKey.key },
      body: JSON.stringify(body),
    }),
  );
}

async function form(path: string, fields: Record<string, string>): Promise<Answer> {
  return read(
    await fetch(`${t.authUrl}${path}`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields) }),
  );
}

async function walkPlatformOperations(): Promise<void> {
  const call = platform.call;
  const tag = uniqueRef("audit");
  const created = await step("createIntegrationClient", () =>
    call("POST", "/integration-admin/setup/clients", {
      name: `Gestión ${tag}`,
      companyName: "Gestión Comercios S.A.",
      contactEmail: `integraciones+${tag}@example.com`,
      redirectUrls: ["https://app.example.com/oauth/callback"],
      firstAdminEmail: `lucia+${tag}@example.com`,
      firstAdminName: "Lucía Fernández",
    }),
  );
  const clientId: string = created.json?.integrationClientId ?? randomUUID();
  await step("updateIntegrationClient", () => call("PATCH", `/integration-admin/setup/clients/${clientId}`, { serviceCommissionPercentage: 0.8 }));
  const admin = await step("createClientAdmin", () =>
    call("POST", `/integration-admin/setup/clients/${clientId}/admins`, {
      email: `martin+${tag}@example.com`,
      clientId: created.json?.providerClientId ?? "cli_unknown",
      name: "Martín González",
    }),
  );
  await step("resendClientAdminWelcome", () =>
    call("POST", `/integration-admin/setup/clients/${clientId}/admins/${admin.json?.integrationClientAdminId ?? randomUUID()}/welcome-email`),
  );
  await step("suspendIntegrationClient", () => call("POST", `/integration-admin/setup/clients/${clientId}/suspend`, { reason: "Contracargos reiterados." }));
  await step("reinstateIntegrationClient", () => call("POST", `/integration-admin/setup/clients/${clientId}/reinstate`));

  const cap = await integration.call("GET", "/my-integration/message-cap-requests");
  const pending = (cap.json?.items ?? []).find((item: { status: string }) => item.status === "pending");
  await step("approveMessageCapRequest", () =>
    call("POST", `/integration-admin/message-cap-requests/${pending?.id ?? randomUUID()}/approve`, { approvedPerDay: 800 }),
  );
  const second = await integration.call("POST", "/my-integration/message-cap-requests", { requestedPerDay: 2000, reason: "Otra temporada." });
  await step("rejectMessageCapRequest", () =>
    call("POST", `/integration-admin/message-cap-requests/${second.json?.id ?? randomUUID()}/reject`, { reason: "No coincide con los comercios activos." }),
  );
  await step("returnPlatformUnmatchedPayment", () =>
    call("POST", `/integration-admin/unmatched-payments/${randomUUID()}/return`, {}, { "Idempotency-Key": randomUUID() }),
  );
  // The integration's request, in review.
  await step("approveGoLiveRequest", () => call("POST", `/integration-admin/go-live-requests/${goLiveRequestId}/approve`));
  // Another integration's request in review, rejected.
  const other = await sandboxAdmin(t, await t.sandbox());
  const asked = await other.call("POST", "/my-integration/go-live");
  await step("rejectGoLiveRequest", () =>
    call("POST", `/integration-admin/go-live-requests/${asked.json?.id ?? randomUUID()}/reject`, { reason: "Falta una URL de webhook." }),
  );

  await step("provisionMerchantAccount", () =>
    withApiKey("PUT", `/integration-admin/merchant-accounts/${uniqueRef("prov")}`, {
      email: `comercio+${tag}@example.com`,
      legalName: "La Espiga S.R.L.",
      cuit: "30712345671",
      tradeName: "Panadería La Espiga",
      status: "active",
    }),
  );
  const productionKey = await createPlatformApiKey(production.database.db, "the Sandbox deployment");
  secrets.add(productionKey.key);
  await step(
    "provisionProductionClient",
    async () =>
      read(
        await fetch(`${production.adminUrl}/integration-admin/production-clients/${randomUUID()}`, {
          method: "PUT",
          headers: { "content-type": "application/json", "x-cobro-api-key": productionKey.key },
          body: JSON.stringify({
            name: `Gestión ${tag}`,
            companyName: "Gestión Comercios S.A.",
            contactEmail: "integraciones@example.com",
            type: "api_direct",
            scopes: ["openid", "email", "profile"],
            redirectUrls: ["https://app.example.com/oauth/callback"],
            logoutUrls: [],
            firstAdminEmail: `lucia.prod+${tag}@example.com`,
          }),
        }),
      ),
    { production: true },
  );
}

async function walkIntegrationOperations(): Promise<void> {
  const call = integration.call;
  await step("updateMyIntegration", () => call("PATCH", "/my-integration", { description: "Gestión y cobranzas", type: "multitenant" }));
  await step("createApiKeys", () => call("POST", "/my-integration/api-keys"));
  await step("replaceAllowedOrigins", () => call("PUT", "/my-integration/api-keys/allowed-origins", { allowedOrigins: ["https://tienda.example.com"] }));
  await step("rotateApiSecretKey", () => call("POST", "/my-integration/api-keys/rotate-secret"));
  await step("rotateClientSecret", () => call("POST", "/my-integration/client-secret/rotate", { graceSeconds: 3600 }));
  await step("rotateWebhookSigningSecret", () => call("PUT", "/my-integration/webhook-signing-secret/rotate"));
  await step("replaceWebhookSubscriptions", () =>
    call("PUT", "/my-integration/webhook-subscriptions", { enabledEvents: ["payment_request.payment_received", "payment.unmatched"] }),
  );
  const png = await sharp({ create: { width: 256, height: 256, channels: 3, background: { r: 200, g: 40, b: 90 } } })
    .png()
    .toBuffer();
  await step("uploadLogo", async () =>
    read(
      await fetch(`${t.adminUrl}/my-integration/logo`, {
        method: "PUT",
        headers: { authorization: `Bearer ${integration.token}`, "content-type": "image/png" },
        body: new Uint8Array(png),
      }),
    ),
  );
  await step("createMessageCapRequest", () => call("POST", "/my-integration/message-cap-requests", { requestedPerDay: 1000, reason: "Expensas del mes." }));
  await step("replaceOffer", () => call("PUT", "/my-integration/offer", { percentage: 1.5, fixedAmount: 25 }));
  await step("invitePayoutLink", () => call("POST", "/my-integration/payout-link/invite", { email: `tesoreria+${uniqueRef("p")}@example.com` }));
  await step("resendPayoutLinkInvite", () => call("POST", "/my-integration/payout-link/resend"));

  const validationToken = "c3ntr0-v4lid4t10n-t0k3n-audit";
  secrets.add(validationToken);
  const tenant = await step("createTenant", () =>
    call("POST", "/my-integration/tenant", {
      key: "sucursal-centro",
      name: "Sucursal Centro",
      webhook_url: receiver.url("/centro"),
      webhook_validation_token: validationToken,
    }),
  );
  const tenantId: string = tenant.json?.integrationTenantId ?? tenant.json?.id ?? randomUUID();
  await step("updateTenant", () =>
    call("PUT", `/my-integration/tenant/${tenantId}`, {
      key: "sucursal-centro",
      name: "Sucursal Centro (Microcentro)",
      webhook_url: receiver.url("/centro-2"),
    }),
  );
  const newValidationToken = "n3w-c3ntr0-v4lid4t10n-t0k3n-audit";
  secrets.add(newValidationToken);
  await step("setTenantValidationToken", () =>
    call("PUT", `/my-integration/tenant/${tenantId}/validation-token`, { webhook_validation_token: newValidationToken }),
  );
  await step("sendTestWebhook", () => call("POST", "/my-integration/test-webhook", { event: "payment.unmatched", reason: "already_paid" }));
  await step("deleteTenantValidationToken", () => call("DELETE", `/my-integration/tenant/${tenantId}/validation-token`));
  await step("deleteTenant", () => call("DELETE", `/my-integration/tenant/${tenantId}`));

  const urlToken = "tok-9f8e7d6c5b4a3210-audit";
  secrets.add(urlToken);
  const url = await step("createClientUrl", () =>
    call("POST", "/my-integration/urls", { url: receiver.url("/hook"), urlType: "webhook", validationToken: urlToken }),
  );
  const urlId: string = url.json?.id ?? url.json?.clientUrlId ?? randomUUID();
  await step("updateClientUrl", () => call("PUT", `/my-integration/urls/${urlId}`, { url: receiver.url("/hook-2"), validationToken: urlToken }));
  await step("testClientUrl", () => call("POST", `/my-integration/urls/${urlId}/test`));

  await step("advanceSandboxClock", () => call("POST", "/my-integration/sandbox-clock", { advanceBy: "PT1H" }));
  await step("resetSandboxClock", () => call("POST", "/my-integration/sandbox-clock/reset"));
  await step("createTestTokens", () => call("POST", "/my-integration/test-tokens"));
  const charge = await step("createTestCharge", () => call("POST", "/my-integration/test-charges", { amount: 1500, description: "Cuota de prueba" }));
  await step("simulatePayment", () =>
    call("POST", "/my-integration/simulate-payment", {
      externalAccountCvu: "0000003100000000000017",
      externalAccountCuil: "20301234563",
      externalAccountName: "Juan Pérez",
      cvu: charge.json?.cvu ?? "0000253200000000123459",
      amount: 1500,
    }),
  );
  // Unmatched money: refused ones leave their entries too.
  await step("assignUnmatchedPayment", () => call("POST", `/my-integration/unmatched-payments/${randomUUID()}/assignment`, { referenceId: "X" }));
  await step("returnUnmatchedPayment", () =>
    call("POST", `/my-integration/unmatched-payments/${randomUUID()}/return`, {}, { "Idempotency-Key": randomUUID() }),
  );
  const events = await call("GET", "/my-integration/events?limit=1");
  await step("resendEvent", () => call("POST", `/my-integration/events/${events.json?.items?.[0]?.eventId ?? randomUUID()}/resend`));
  await step("deleteClientUrl", () => call("DELETE", `/my-integration/urls/${urlId}`));
  const goLive = await step("requestGoLive", () => call("POST", "/my-integration/go-live"));
  goLiveRequestId = goLive.json?.id ?? randomUUID();

  const users = await call("GET", "/my-integration/users");
  const userId: string = users.json?.items?.[0]?.integrationClientUserId ?? randomUUID();
  const proposal = await step("proposeCommissionChange", () => call("POST", `/my-integration/users/${userId}/commission-proposals`, { percentage: 1.25 }));
  await step("withdrawCommissionChange", () =>
    call("DELETE", `/my-integration/users/${userId}/commission-proposals/${proposal.json?.invitationId ?? proposal.json?.id ?? randomUUID()}`),
  );
  await step("unlinkMerchant", () => call("DELETE", `/my-integration/users/${userId}`));
}

async function walkSessionOperations(): Promise<void> {
  const { email, password } = sessionSet.integrationAdmin;
  secrets.add(password);
  const login = await step("adminLogin", async () => read(await postJson(`${t.authUrl}/integration/admin/login`, { email, password })));
  const wrongPassword = "not-the-password-of-anyone";
  secrets.add(wrongPassword);
  await step("adminLogin", async () => read(await postJson(`${t.authUrl}/integration/admin/login`, { email, password: wrongPassword })));
  const unknownEmail = `${uniqueRef("nobody")}@example.com`;
  secrets.add(unknownEmail);
  await step("adminLogin", async () => read(await postJson(`${t.authUrl}/integration/admin/login`, { email: unknownEmail, password: wrongPassword })));
  const refreshed = await step("adminRefresh", async () =>
    read(await postJson(`${t.authUrl}/integration/admin/refresh`, { refreshToken: login.json.refreshToken })),
  );
  const newPassword = "una-clave-nueva-de-auditoria";
  secrets.add(newPassword);
  await step("adminChangePassword", async () =>
    read(
      await postJson(
        `${t.authUrl}/integration/admin/change-password`,
        { currentPassword: password, newPassword },
        { authorization: `Bearer ${refreshed.json.idToken}` },
      ),
    ),
  );
  await step("adminLogout", async () => read(await postJson(`${t.authUrl}/integration/admin/logout`, { refreshToken: refreshed.json.refreshToken })));
  await step("requestAdminPasswordReset", async () => read(await postJson(`${t.authUrl}/integration/admin/password-reset`, { email })));
  // Links opened here directly (their emails are another test's business), then used over HTTP.
  const link = await createPasswordResetLink(t.database.db, t.clock, credentialThrottle(t.database.db, t.clock), { email, clientAddress: "192.0.2.1" });
  secrets.add(link!.token);
  const resetPassword = "otra-clave-nueva-de-auditoria";
  secrets.add(resetPassword);
  await step("completeAdminPasswordReset", async () =>
    read(await postJson(`${t.authUrl}/integration/admin/password-reset/complete`, { token: link!.token, newPassword: resetPassword })),
  );
  const pageLink = await createPasswordResetLink(t.database.db, t.clock, credentialThrottle(t.database.db, t.clock), { email, clientAddress: "192.0.2.1" });
  secrets.add(pageLink!.token);
  const pagePassword = "la-clave-de-la-pagina-de-auditoria";
  secrets.add(pagePassword);
  await step("submitAdminPasswordResetPage", () => form("/integration/admin/password-reset/page", { token: pageLink!.token, newPassword: pagePassword }));
  await step("submitAdminPasswordResetPage", () =>
    form("/integration/admin/password-reset/page", { token: "pr_unknown-token-of-nobody", newPassword: pagePassword }),
  );
}

afterAll(async () => {
  await receiver?.close();
});

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  sandbox = await t.sandbox();
  sessionSet = await t.sandbox();
  for (const credentials of [sandbox.platformAdmin, sandbox.integrationAdmin, sandbox.merchant]) secrets.add(credentials.password);
  secrets.add(sandbox.integration.clientSecret);
  apiKey = await createPlatformApiKey(t.database.db, "the provider's systems");
  secrets.add(apiKey.key);
  platform = await signedInAdmin(t, sandbox.platformAdmin);
  integration = await sandboxAdmin(t, sandbox);
  integrationClientId = (
    await t.database.db.selectFrom("integration_clients").select("id").where("provider_client_id", "=", sandbox.integration.clientId).executeTakeFirstOrThrow()
  ).id;
  await walkIntegrationOperations();
  await walkPlatformOperations();
  await walkSessionOperations();
}, 120_000);

describe("the audit log's walk through the contract", () => {
  it("calls every state-changing operation of the Admin API and every admin-session operation", () => {
    const walked = new Set(steps.map((s) => s.operation));
    expect(auditedOperationsOfContract().filter((operation) => !walked.has(operation))).toEqual([]);
  });

  it("leaves exactly one entry per call, with the operation, the outcome and the status it answered", async () => {
    const summary: string[] = [];
    for (const { operation, answer, production: inProduction } of steps) {
      const requestId = answer.headers.get("x-request-id");
      const entries = await entriesOf(requestId, inProduction ? production : t);
      expect(entries, `${operation} answered ${answer.status} ${answer.text.slice(0, 200)}`).toHaveLength(1);
      const [entry] = entries;
      expect(entry!.operation).toBe(operation);
      if (answer.status < 400) {
        // The status sent, also for the operations that answer 201 or 200 (created, or found).
        expect(entry, operation).toMatchObject({ outcome: "succeeded", error_code: null, status: answer.status });
      } else {
        expect(entry, operation).toMatchObject({ outcome: "refused", status: answer.status });
        if (answer.json?.code) expect(entry!.error_code).toBe(answer.json.code);
      }
      summary.push(
        `${operation} ${answer.status}${answer.status < 400 ? "" : ` ${answer.json?.code ?? ""} ${process.env.AUDIT_WALK_DEBUG ? answer.text.slice(0, 300) : ""}`}`,
      );
    }
    console.log(`audit walk:\n${summary.join("\n")}`);
  });

  it("names the caller: the platform admin, the integration admin (with its integration), the platform API key", async () => {
    const byOperation = async (operation: string) => (await entriesOf(steps.find((s) => s.operation === operation)!.answer.headers.get("x-request-id")))[0]!;
    const platformAdminId = (
      await t.database.db.selectFrom("admin_users").select("id").where("email", "=", sandbox.platformAdmin.email).executeTakeFirstOrThrow()
    ).id;
    const integrationAdminId = (
      await t.database.db.selectFrom("admin_users").select("id").where("email", "=", sandbox.integrationAdmin.email).executeTakeFirstOrThrow()
    ).id;
    expect(await byOperation("updateIntegrationClient")).toMatchObject({
      actor_kind: "platform_admin",
      actor_admin_user_id: platformAdminId,
      integration_client_id: null,
      fields: ["serviceCommissionPercentage"],
      changes: { serviceCommissionPercentage: 0.8 },
    });
    expect(await byOperation("replaceOffer")).toMatchObject({
      actor_kind: "integration_admin",
      actor_admin_user_id: integrationAdminId,
      integration_client_id: integrationClientId,
      method: "PUT",
      route: "/my-integration/offer",
      changes: { percentage: 1.5, fixedAmount: 25 },
    });
    expect(await byOperation("provisionMerchantAccount")).toMatchObject({ actor_kind: "platform_api_key", actor_platform_api_key_id: apiKey.id });
    const suspended = await byOperation("suspendIntegrationClient");
    expect(Object.values(suspended.targets)).toHaveLength(1);
    expect(suspended.client_address).toMatch(/127\.0\.0\.1/);
  });

  it("records sign-ins with who signed in, a refusal for an unknown email without naming anyone, and whose reset was asked for", async () => {
    const logins = await Promise.all(steps.filter((s) => s.operation === "adminLogin").map((s) => entriesOf(s.answer.headers.get("x-request-id"))));
    const sessionAdminId = (
      await t.database.db.selectFrom("admin_users").select("id").where("email", "=", sessionSet.integrationAdmin.email).executeTakeFirstOrThrow()
    ).id;
    expect(logins.map(([entry]) => [entry!.outcome, entry!.actor_kind, entry!.actor_admin_user_id, entry!.error_code])).toEqual([
      ["succeeded", "integration_admin", sessionAdminId, null],
      ["refused", "integration_admin", sessionAdminId, "InvalidCredentialsError"],
      ["refused", "anonymous", null, "InvalidCredentialsError"],
    ]);
    for (const operation of ["adminRefresh", "adminLogout", "adminChangePassword", "completeAdminPasswordReset"]) {
      const [entry] = await entriesOf(steps.find((s) => s.operation === operation)!.answer.headers.get("x-request-id"));
      expect(entry, operation).toMatchObject({ outcome: "succeeded", actor_admin_user_id: sessionAdminId });
    }
    // Nobody is signed in to ask for a reset: the entry names the admin whose email was typed as its target, not the email.
    const [reset] = await entriesOf(steps.find((s) => s.operation === "requestAdminPasswordReset")!.answer.headers.get("x-request-id"));
    expect(reset).toMatchObject({ outcome: "succeeded", actor_kind: "anonymous", targets: { adminUserId: sessionAdminId } });
  });

  it("keeps no secret, password, token or typed email in any entry", async () => {
    const rows = [
      ...(await sql<{ entry: string }>`select row_to_json(audit_log)::text as entry from audit_log`.execute(t.database.db)).rows,
      ...(await sql<{ entry: string }>`select row_to_json(audit_log)::text as entry from audit_log`.execute(production.database.db)).rows,
    ];
    expect(rows.length).toBeGreaterThanOrEqual(steps.length);
    expect(secrets.size).toBeGreaterThan(15);
    const leaks = [...secrets].filter((secret) => rows.some((row) => row.entry.includes(secret)));
    expect(leaks).toEqual([]);
  });
});

describe("requests the contract refuses before any handler runs", () => {
  it("leave a refused entry with the ValidationError, without the unchecked body's field names or values", async () => {
    const offer = await integration.call("PUT", "/my-integration/offer", { percentage: "mucho", fixedAmount: 25, clave: "no-es-un-campo" });
    expect(offer.status).toBe(400);
    expect(await entriesOf(offer.headers.get("x-request-id"))).toEqual([
      expect.objectContaining({ operation: "replaceOffer", outcome: "refused", status: 400, error_code: "ValidationError", fields: [], changes: {} }),
    ]);
    const login = await read(await postJson(`${t.authUrl}/integration/admin/login`, { email: sandbox.platformAdmin.email }));
    expect(login.status).toBe(400);
    expect(await entriesOf(login.headers.get("x-request-id"))).toEqual([
      expect.objectContaining({ operation: "adminLogin", actor_kind: "anonymous", outcome: "refused", error_code: "ValidationError", fields: [] }),
    ]);
  });

  it("leave no entry when no credential names the caller (401), as for a GET", async () => {
    const anonymous = await read(
      await fetch(`${t.adminUrl}/my-integration/offer`, { method: "PUT", headers: { "content-type": "application/json" }, body: "{}" }),
    );
    expect(anonymous.status).toBe(401);
    expect(await entriesOf(anonymous.headers.get("x-request-id"))).toEqual([]);
    const reading = await integration.call("GET", "/my-integration/offer");
    expect(reading.status).toBe(200);
    expect(await entriesOf(reading.headers.get("x-request-id"))).toEqual([]);
  });
});

describe("the audit log's table", () => {
  it("answers the query docs/operations.md shows", async () => {
    const [query] = codeBlocks("docs/operations.md", "sql");
    const { rows } = await sql.raw<{ operation: string; error_code: string }>(query!).execute(t.database.db);
    expect(rows.map((row) => row.operation)).toEqual(expect.arrayContaining(["adminLogin", "submitAdminPasswordResetPage"]));
    expect(rows.every((row) => row.error_code !== undefined)).toBe(true);
  });

  it("refuses UPDATE, DELETE and TRUNCATE, whoever connects", async () => {
    const db = t.database.db;
    const before = await db
      .selectFrom("audit_log")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .executeTakeFirstOrThrow();
    expect(Number(before.n)).toBeGreaterThan(0);
    const refusal = { message: expect.stringContaining("audit_log is append-only"), code: "42501" };
    await expect(db.updateTable("audit_log").set({ outcome: "succeeded" }).execute()).rejects.toMatchObject({
      ...refusal,
      message: expect.stringContaining("UPDATE is refused"),
    });
    await expect(db.deleteFrom("audit_log").execute()).rejects.toMatchObject({ ...refusal, message: expect.stringContaining("DELETE is refused") });
    await expect(sql`truncate audit_log`.execute(db)).rejects.toMatchObject({ ...refusal, message: expect.stringContaining("TRUNCATE is refused") });
    const after = await db
      .selectFrom("audit_log")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .executeTakeFirstOrThrow();
    expect(after.n).toBe(before.n);
  });
});
