// An invited admin finds the portal: the welcome email, taken from a real SMTP server on loopback, links
// the portal's sign-in; in Chromium the link opens it, the temporary password signs in, the forced change
// follows, and the admin lands signed in. A browser that opens the Auth API's admin sign-in, or the Admin
// host's root, is sent to the portal too; API clients keep their documented answers there.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchBrowser, type TestBrowser } from "../../scripts/chromium.ts";
import { signedInAdmin } from "../helpers/sandbox-admin.ts";
import { read, serviceForFile } from "../helpers/service.ts";
import { startSmtpServer, type TestSmtpServer } from "../helpers/smtp-server.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

let smtp: TestSmtpServer;
let browser: TestBrowser;
beforeAll(async () => {
  smtp = await startSmtpServer();
  browser = await launchBrowser({ viewport: { width: 375, height: 667 } });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await smtp?.close();
});

// The Admin host forwards the admin sign-in to the Auth API's public URL: here, where it listens.
const t = serviceForFile(() => ({ env: { COBRO_AUTH_URL: "", COBRO_SMTP_URL: smtp.url, COBRO_MAIL_FROM: "Cobro <bienvenida@cobro.test>" } }));

describe("the welcome email's link", { timeout: 90_000 }, () => {
  it("opens the portal, where the invited admin signs in with the temporary password and chooses a new one", async () => {
    const platform = await signedInAdmin(t, (await t.sandbox()).platformAdmin);
    const email = `${uniqueRef("invited")}@example.com`;
    const created = await platform.call("POST", "/integration-admin/setup/clients", {
      name: "Comercios del Sur",
      companyName: "Comercios del Sur S.R.L.",
      contactEmail: "integraciones@example.com",
      firstAdminEmail: email,
      firstAdminName: "Lucía Fernández",
    });
    expect(created.status).toBe(201);

    const [mail] = await smtp.waitFor(email);
    const link = /^Ingresá en: (\S+)$/m.exec(mail!.text)?.[1];
    expect(link).toBe(`${t.service.publicUrls.admin}/portal/`);
    const temporaryPassword = /^Contraseña temporal: (\S+)$/m.exec(mail!.text)![1]!;

    const page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    await page.goto(link!);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Contraseña", { exact: true }).fill(temporaryPassword);
    await page.getByRole("button", { name: "Ingresar" }).click();
    await page.getByRole("heading", { name: "Elegí tu contraseña" }).waitFor();
    await page.getByLabel("Contraseña actual").fill(temporaryPassword);
    await page.getByLabel("Contraseña nueva").fill("una-clave-propia-y-larga");
    await page.getByRole("button", { name: "Guardar la contraseña" }).click();
    await page.getByRole("heading", { name: "Inicio" }).waitFor();
    expect(await page.getByRole("button", { name: "Salir" }).count()).toBe(1);
    await page.close();
  });

  it("a browser that opens the Auth API's admin sign-in or the Admin host's root reaches the portal; API clients get the API's answers", async () => {
    const page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    for (const url of [`${t.authUrl}/integration/admin/login`, `${t.adminUrl}/`]) {
      await page.goto(url);
      expect(page.url()).toBe(`${t.service.publicUrls.admin}/portal/`);
      await page.getByRole("button", { name: "Ingresar" }).waitFor();
    }
    await page.close();
    const api = await read(await fetch(`${t.authUrl}/integration/admin/login`, { headers: { accept: "application/json" } }));
    expect(api).toMatchObject({ status: 405, json: { code: "MethodNotAllowed" } });
    // A JSON client at the root gets the API's index, as on the other hosts.
    const root = await read(await fetch(`${t.adminUrl}/`, { headers: { accept: "application/json" } }));
    expect(root).toMatchObject({ status: 200, json: { name: "Cobro Admin API", links: { docs: `${t.service.publicUrls.admin}/docs` } } });
  });
});
