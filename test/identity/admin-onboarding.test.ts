// An admin's onboarding over real HTTP and a real SMTP server on loopback: the welcome email with a
// temporary password, the first sign-in that must change it, and the platform's summaries that follow.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearerCaller, postJson, read, serviceForFile, startTestService, type TestService } from "../helpers/service.ts";
import { signedInAdmin } from "../helpers/sandbox-admin.ts";
import { startSmtpServer, type TestSmtpServer } from "../helpers/smtp-server.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

const DAY_MS = 24 * 3600 * 1000;
const generalError = (code: string) => ({ code, message: expect.any(String), id: expect.any(String) });

function temporaryPasswordOf(text: string): string {
  const match = /^Contraseña temporal: (\S+)$/m.exec(text);
  if (!match) throw new Error(`no temporary password in:\n${text}`);
  return match[1]!;
}

async function login(t: TestService, email: string, password: string) {
  return read(await postJson(`${t.authUrl}/integration/admin/login`, { email, password }));
}

describe("admins' welcome emails (Sandbox with SMTP)", () => {
  let smtp: TestSmtpServer;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    await smtp?.close();
  });
  const t = serviceForFile(() => ({ env: { COBRO_SMTP_URL: smtp.url, COBRO_MAIL_FROM: "Cobro <bienvenida@cobro.test>" } }));

  async function createClient(firstAdminEmail: string) {
    const sandbox = await t.sandbox();
    const platform = await signedInAdmin(t, sandbox.platformAdmin);
    const created = await platform.call("POST", "/integration-admin/setup/clients", {
      name: "Gestión Comercios",
      companyName: "Gestión Comercios S.A.",
      contactEmail: "integraciones@example.com",
      redirectUrls: ["https://app.example.com/oauth/callback"],
      firstAdminEmail,
      firstAdminName: "Lucía Fernández",
    });
    expect(created.status).toBe(201);
    const summary = async () => {
      const list = await platform.call("GET", "/integration-admin/setup/clients?limit=100");
      return list.json.items.find((item: { integrationClientId: string }) => item.integrationClientId === created.json.integrationClientId);
    };
    const admins = async () => (await platform.call("GET", `/integration-admin/setup/clients/${created.json.integrationClientId}/admins`)).json.items;
    return { platform, created: created.json, summary, admins };
  }

  it("mails the first admin a temporary password that signs in only to change it; then everything works and the summaries tell the truth", async () => {
    const email = `${uniqueRef("first")}@example.com`;
    const { summary, admins } = await createClient(email);

    const [mail] = await smtp.waitFor(email);
    expect(mail!.from).toBe("bienvenida@cobro.test");
    expect(mail!.subject).toMatch(/Bienvenido a Cobro/);
    expect(mail!.text).toContain(`Ingresá en: ${t.service.publicUrls.admin}/portal/`);
    expect(mail!.text).toMatch(new RegExp(`^Usuario: ${email.replace(/[.+]/g, "\\$&")}$`, "m"));
    const temporaryPassword = temporaryPasswordOf(mail!.text);
    expect(mail!.html).toContain(`Contraseña temporal: ${temporaryPassword}`);
    expect(await summary()).toMatchObject({ firstAdminEmailSent: true, firstAdminLoggedIn: false });
    expect(await admins()).toEqual([expect.objectContaining({ email, status: "pending" })]);

    const session = await login(t, email, temporaryPassword);
    expect(session.status).toBe(200);
    expect(session.json).toMatchObject({ tokenType: "Bearer", passwordChangeRequired: true });
    const call = bearerCaller(t.adminUrl, () => session.json.idToken);
    for (const [method, path] of [
      ["GET", "/my-integration/admins"],
      ["GET", "/my-integration/events"],
      ["GET", "/integration-admin/setup/clients"],
    ] as const) {
      const refused = await call(method, path);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.json).toEqual(generalError("PasswordChangeRequiredError"));
    }
    // Signing in is what makes the admin active, before the change.
    expect(await summary()).toMatchObject({ firstAdminEmailSent: true, firstAdminLoggedIn: true });
    expect(await admins()).toEqual([expect.objectContaining({ email, status: "active" })]);

    const changed = await read(
      await postJson(
        `${t.authUrl}/integration/admin/change-password`,
        { currentPassword: temporaryPassword, newPassword: "una-clave-nueva-y-larga" },
        { authorization: `Bearer ${session.json.idToken}` },
      ),
    );
    expect(changed.status).toBe(204);
    const mine = await call("GET", "/my-integration/admins");
    expect(mine.status).toBe(200);
    expect(mine.json.items).toEqual([expect.objectContaining({ email, status: "active" })]);

    expect((await login(t, email, temporaryPassword)).json).toEqual(generalError("InvalidCredentialsError"));
    const again = await login(t, email, "una-clave-nueva-y-larga");
    expect(again.json).toMatchObject({ passwordChangeRequired: false });
  });

  it("welcomes a client admin the same way; a temporary password past its 7 days no longer signs in", async () => {
    const { platform, created } = await createClient(`${uniqueRef("first")}@example.com`);
    const email = `${uniqueRef("second")}@example.com`;
    const added = await platform.call("POST", `/integration-admin/setup/clients/${created.integrationClientId}/admins`, {
      email,
      clientId: created.providerClientId,
    });
    expect(added.status).toBe(201);
    expect(added.json).toMatchObject({ email, status: "pending" });
    const [mail] = await smtp.waitFor(email);
    const temporaryPassword = temporaryPasswordOf(mail!.text);
    expect(mail!.text).toContain(`Usuario: ${email}`);

    t.clock.advance(7 * DAY_MS + 60_000);
    const expired = await login(t, email, temporaryPassword);
    expect(expired.status).toBe(401);
    expect(expired.json).toEqual(generalError("InvalidCredentialsError"));
  });

  it("a temporary password still signs in on its last day", async () => {
    const email = `${uniqueRef("first")}@example.com`;
    await createClient(email);
    const [mail] = await smtp.waitFor(email);
    t.clock.advance(7 * DAY_MS - 60_000);
    expect((await login(t, email, temporaryPasswordOf(mail!.text))).json).toMatchObject({ passwordChangeRequired: true });
  });

  it("a platform admin sends a welcome again: a new temporary password, the old one and the admin's sessions end", async () => {
    const email = `${uniqueRef("again")}@example.com`;
    const { platform, created, summary, admins } = await createClient(email);
    const [first] = await smtp.waitFor(email);
    const firstPassword = temporaryPasswordOf(first!.text);
    const session = await login(t, email, firstPassword);
    const [admin] = await admins();

    const resent = await platform.call(
      "POST",
      `/integration-admin/setup/clients/${created.integrationClientId}/admins/${admin.integrationClientAdminId}/welcome-email`,
    );
    expect(resent.status).toBe(200);
    expect(resent.json).toEqual(admin); // signed in once: still active
    const [, second] = await smtp.waitFor(email, 2);
    const secondPassword = temporaryPasswordOf(second!.text);
    expect(secondPassword).not.toBe(firstPassword);
    expect((await login(t, email, firstPassword)).json).toEqual(generalError("InvalidCredentialsError"));
    const ended = await bearerCaller(t.adminUrl, () => session.json.idToken)("GET", "/my-integration/admins");
    expect(ended.status).toBe(401);
    expect((await login(t, email, secondPassword)).json).toMatchObject({ passwordChangeRequired: true });
    expect(await summary()).toMatchObject({ firstAdminEmailSent: true });

    const unknownAdmin = await platform.call(
      "POST",
      `/integration-admin/setup/clients/${created.integrationClientId}/admins/00000000-0000-4000-8000-000000000000/welcome-email`,
    );
    expect(unknownAdmin.status).toBe(404);
    expect(unknownAdmin.json).toEqual(generalError("ClientAdminNotFoundError"));
    const unknownClient = await platform.call(
      "POST",
      `/integration-admin/setup/clients/00000000-0000-4000-8000-000000000000/admins/${admin.integrationClientAdminId}/welcome-email`,
    );
    expect(unknownClient.status).toBe(404);
    expect(unknownClient.json).toEqual(generalError("IntegrationClientNotFoundError"));
  });

  it("a welcome the mail server refuses leaves firstAdminEmailSent false; the client exists", async () => {
    const email = `${uniqueRef("refused")}@example.com`;
    smtp.refuse(email, { code: 550, message: "No such user" });
    const { summary } = await createClient(email);
    expect(await summary()).toMatchObject({ firstAdminEmailSent: false, firstAdminLoggedIn: false });
    expect(smtp.to(email)).toEqual([]);
  });
});

describe("admins' welcome emails without SMTP", () => {
  it("the Sandbox writes the welcome to the log, marked as a Sandbox mail, and counts it as sent", async () => {
    const t = await startTestService();
    try {
      const sandbox = await t.sandbox();
      const { call } = await signedInAdmin(t, sandbox.platformAdmin);
      const email = `${uniqueRef("logged")}@example.com`;
      const created = await call("POST", "/integration-admin/setup/clients", {
        name: "Sin correo",
        companyName: "Sin Correo S.A.",
        contactEmail: "a@example.com",
        firstAdminEmail: email,
      });
      expect(created.status).toBe(201);
      const logged = t.logLines.find(
        (line) => typeof line.msg === "string" && line.msg.startsWith("SANDBOX MAIL") && (line.sandboxMail as { to?: string } | undefined)?.to === email,
      );
      expect(logged).toBeDefined();
      const mail = logged!.sandboxMail as { subject: string; text: string };
      expect(mail.subject).toMatch(/Bienvenido a Cobro/);
      expect(mail.text).toContain(`Usuario: ${email}`);
      const session = await login(t, email, temporaryPasswordOf(mail.text));
      expect(session.json).toMatchObject({ passwordChangeRequired: true });
      const list = await call("GET", "/integration-admin/setup/clients?limit=100");
      expect(list.json.items.find((item: { integrationClientId: string }) => item.integrationClientId === created.json.integrationClientId)).toMatchObject({
        firstAdminEmailSent: true,
        firstAdminLoggedIn: true,
      });
    } finally {
      await t.close();
    }
  });

  it("Production answers 503 MailUnavailableError and creates nothing; a client without a first admin is still created", async () => {
    const production = await startTestService({ env: { SERVICE_ENV: "production" } });
    try {
      const sandbox = await production.sandbox();
      const { call } = await signedInAdmin(production, sandbox.platformAdmin);
      const before = (await call("GET", "/integration-admin/setup/clients?limit=1")).json.total;
      const body = { name: "Producción", companyName: "Producción S.A.", contactEmail: "a@example.com", redirectUrls: ["https://app.example.com/cb"] };
      const refused = await call("POST", "/integration-admin/setup/clients", { ...body, firstAdminEmail: `${uniqueRef("prod")}@example.com` });
      expect(refused.status).toBe(503);
      expect(refused.json).toEqual(generalError("MailUnavailableError"));
      expect((await call("GET", "/integration-admin/setup/clients?limit=1")).json.total).toBe(before);

      const created = await call("POST", "/integration-admin/setup/clients", body);
      expect(created.status).toBe(201);
      const admin = await call("POST", `/integration-admin/setup/clients/${created.json.integrationClientId}/admins`, {
        email: `${uniqueRef("prod")}@example.com`,
        clientId: created.json.providerClientId,
      });
      expect(admin.status).toBe(503);
      expect(admin.json).toEqual(generalError("MailUnavailableError"));
      expect((await call("GET", `/integration-admin/setup/clients/${created.json.integrationClientId}/admins`)).json.total).toBe(0);

      const existing = sandbox.integrationAdmin;
      const own = await signedInAdmin(production, existing);
      const clients = (await call("GET", "/integration-admin/setup/clients?limit=100")).json.items;
      const { integrationClientId } = clients.find((client: { providerClientId: string }) => client.providerClientId === sandbox.integration.clientId);
      const [existingAdmin] = (await call("GET", `/integration-admin/setup/clients/${integrationClientId}/admins`)).json.items;
      const resend = await call(
        "POST",
        `/integration-admin/setup/clients/${integrationClientId}/admins/${existingAdmin.integrationClientAdminId}/welcome-email`,
      );
      expect(resend.status).toBe(503);
      expect(resend.json).toEqual(generalError("MailUnavailableError"));
      expect((await login(production, existing.email, existing.password)).json).toMatchObject({ passwordChangeRequired: false }); // nothing changed
      expect((await own.call("GET", "/my-integration/admins")).status).toBe(200); // nor its session
    } finally {
      await production.close();
    }
  });
});
