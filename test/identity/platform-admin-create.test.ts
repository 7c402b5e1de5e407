// `npm run platform-admin:create` as an operator runs it: its own process, against the database a running
// Cobro uses (DATABASE_URL), with and without SMTP; the admin it creates signs in through that Cobro.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearerCaller, postJson, read, serviceForFile, type TestService } from "../helpers/service.ts";
import { cobroEnv, ROOT, runScript, type ScriptRun } from "../../scripts/cobro-process.ts";
import { startSmtpServer, type TestSmtpServer } from "../helpers/smtp-server.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

const SCRIPT = join(ROOT, "scripts", "platform-admin-create.ts");

function createPlatformAdmin(args: string[], env: Record<string, string>): Promise<ScriptRun> {
  return runScript(SCRIPT, args, cobroEnv(env));
}

async function signInAndChange(t: TestService, email: string, temporaryPassword: string) {
  const session = await read(await postJson(`${t.authUrl}/integration/admin/login`, { email, password: temporaryPassword }));
  expect(session.json).toMatchObject({ passwordChangeRequired: true });
  const call = bearerCaller(t.adminUrl, () => session.json.idToken);
  expect((await call("GET", "/integration-admin/setup/clients")).json.code).toBe("PasswordChangeRequiredError");
  const changed = await read(
    await postJson(
      `${t.authUrl}/integration/admin/change-password`,
      { currentPassword: temporaryPassword, newPassword: "la-clave-de-produccion" },
      { authorization: `Bearer ${session.json.idToken}` },
    ),
  );
  expect(changed.status).toBe(204);
  const clients = await call("GET", "/integration-admin/setup/clients");
  expect(clients.status).toBe(200);
}

describe("npm run platform-admin:create", () => {
  const t = serviceForFile({ env: { SERVICE_ENV: "production" } });
  let smtp: TestSmtpServer;
  let databaseEnv: Record<string, string>;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    databaseEnv = {
      DATABASE_URL: t.database.connectionString,
      SERVICE_ENV: "production",
      COBRO_AUTH_URL: "https://auth.cobro.example",
      COBRO_ADMIN_URL: "https://admin.cobro.example",
    };
  });
  afterAll(async () => {
    await smtp?.close();
  });

  it("mails the welcome when SMTP is configured, and prints no password", async () => {
    const email = `${uniqueRef("platform")}@example.com`;
    const result = await createPlatformAdmin(["--email", email], {
      ...databaseEnv,
      COBRO_SMTP_URL: smtp.url,
      COBRO_MAIL_FROM: "Cobro <bienvenida@cobro.example>",
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`platform admin ${email} created; the welcome email with the temporary password was sent`);
    const [mail] = await smtp.waitFor(email);
    expect(mail!.text).toContain("Ingresá en: https://admin.cobro.example/portal/");
    expect(mail!.text).toContain(`Usuario: ${email}`);
    const temporaryPassword = /^Contraseña temporal: (\S+)$/m.exec(mail!.text)![1]!;
    expect(result.stdout).not.toContain(temporaryPassword);
    await signInAndChange(t, email, temporaryPassword);
  });

  it("prints the temporary password once without SMTP; the same email again is refused", async () => {
    const email = `${uniqueRef("platform")}@example.com`;
    const result = await createPlatformAdmin(["--email", email], databaseEnv);
    expect(result.code, result.stderr).toBe(0);
    const temporaryPassword = /^Temporary password \(shown only now, valid 7 days\): (\S+)$/m.exec(result.stdout)?.[1];
    expect(temporaryPassword, result.stdout).toBeDefined();
    expect(smtp.to(email)).toEqual([]);
    await signInAndChange(t, email, temporaryPassword!);

    const again = await createPlatformAdmin(["--email", email], databaseEnv);
    expect(again.code).toBe(1);
    expect(again.stderr).toBe(`cobro: an admin with email ${email} already exists\n`);
  });

  it("refuses a missing or malformed --email with its usage", async () => {
    for (const args of [[], ["--email", "not-an-address"]]) {
      const result = await createPlatformAdmin(args, databaseEnv);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^cobro: --email must be an email address\nusage: npm run platform-admin:create/);
    }
  });
});
