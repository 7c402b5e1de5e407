// The portal shows what its deployment offers: the header names the environment on every page, and in
// Production the Sandbox's tools (its page, going live, the platform's go-live queue, the test webhook)
// are neither in the menu nor reachable by address. In a real browser against a Sandbox and a Production.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { launchBrowser, type TestBrowser } from "../../scripts/chromium.ts";
import { read, servicesForFile, type TestService } from "../helpers/service.ts";
import { INTEGRATION_ADMIN_MENU, watchPage } from "./watch-page.ts";

// The Admin host forwards the admin sign-in to the Auth API's public URL: here, where it listens.
const { sandbox, production } = servicesForFile({
  sandbox: { env: { COBRO_AUTH_URL: "" } },
  production: { env: { COBRO_AUTH_URL: "", SERVICE_ENV: "production" } },
});
let browser: TestBrowser;

beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

async function openSignedIn(t: TestService, credentials: { email: string; password: string }): Promise<Page> {
  const page = await browser.context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${t.adminUrl}/portal/`);
  await page.getByLabel("Email").fill(credentials.email);
  await page.getByLabel("Contraseña", { exact: true }).fill(credentials.password);
  await page.getByRole("button", { name: "Ingresar" }).click();
  await page.getByRole("button", { name: "Salir" }).waitFor();
  return page;
}

const menuOf = (page: Page) => page.getByRole("navigation", { name: "Secciones" }).getByRole("link").allInnerTexts();
const badgeOf = (page: Page) => page.getByRole("banner").getByTestId("environment").innerText();

async function openMenu(page: Page, label: string, heading: string): Promise<void> {
  await page.getByRole("navigation", { name: "Secciones" }).getByRole("link", { name: label, exact: true }).click();
  await page.getByRole("heading", { name: heading, exact: true, level: 1 }).waitFor();
}

describe("the portal's environment", { timeout: 90_000 }, () => {
  it("the page says which environment the deployment is", async () => {
    expect((await read(await fetch(`${sandbox.adminUrl}/portal/`))).text).toContain('<meta name="cobro-environment" content="sandbox">');
    expect((await read(await fetch(`${production.adminUrl}/portal/charges`))).text).toContain('<meta name="cobro-environment" content="production">');
  });

  it("in the Sandbox: the Sandbox badge on every page, the Sandbox's pages in the menu, the test webhook form", async () => {
    const credentials = await sandbox.sandbox();
    const page = await openSignedIn(sandbox, credentials.integrationAdmin);
    const watched = watchPage(page, sandbox.adminUrl);
    await page.getByRole("heading", { name: "Inicio", level: 1 }).waitFor();
    expect(await badgeOf(page)).toBe("Sandbox");
    expect(await menuOf(page)).toEqual(INTEGRATION_ADMIN_MENU);
    await openMenu(page, "Sandbox", "Herramientas del Sandbox");
    expect(await badgeOf(page)).toBe("Sandbox");
    await openMenu(page, "Salida a producción", "Salida a producción");
    await openMenu(page, "Webhooks", "Webhooks");
    await page.getByRole("heading", { name: "Webhook de prueba" }).waitFor();
    expect(await badgeOf(page)).toBe("Sandbox");

    const platform = await openSignedIn(sandbox, credentials.platformAdmin);
    await platform.getByRole("heading", { name: "Integraciones", level: 1 }).waitFor();
    expect(await badgeOf(platform)).toBe("Sandbox");
    expect(await menuOf(platform)).toContain("Salidas a producción");
    // No refused load: going live asks for the integration's requests, an empty list while it never asked.
    expect(watched.problems({ expectedFailures: 0 })).toEqual([]);
    await Promise.all([page.close(), platform.close()]);
  });

  it("in Production: the Producción badge on every page; no Sandbox page, going live, go-live queue or test webhook, by menu or by address", async () => {
    const credentials = await production.sandbox();
    const page = await openSignedIn(production, credentials.integrationAdmin);
    const watched = watchPage(page, production.adminUrl);
    const answers: string[] = [];
    page.on("response", (response) => {
      if (response.status() === 403) answers.push(`${response.status()} ${new URL(response.url()).pathname}`);
    });
    await page.getByRole("heading", { name: "Inicio", level: 1 }).waitFor();
    expect(await badgeOf(page)).toBe("Producción");
    expect(await menuOf(page)).toEqual(INTEGRATION_ADMIN_MENU.filter((label) => label !== "Sandbox" && label !== "Salida a producción"));

    // The Webhooks page without the test webhook form: every other section is there.
    await openMenu(page, "Webhooks", "Webhooks");
    await page.getByRole("heading", { name: "URLs de la integración" }).waitFor();
    expect(await page.getByRole("heading", { level: 2 }).allInnerTexts()).not.toContain("Webhook de prueba");
    expect(await page.getByRole("button", { name: "Enviar el webhook de prueba" }).count()).toBe(0);
    expect(await badgeOf(page)).toBe("Producción");

    // A Sandbox page's address (a bookmark) opens the first page instead.
    for (const path of ["/sandbox", "/go-live"]) {
      await page.goto(`${production.adminUrl}/portal${path}`);
      await page.getByRole("heading", { name: "Inicio", level: 1 }).waitFor();
      expect(new URL(page.url()).pathname).toBe("/portal/");
      expect(await badgeOf(page)).toBe("Producción");
    }

    const platform = await openSignedIn(production, credentials.platformAdmin);
    await platform.getByRole("heading", { name: "Integraciones", level: 1 }).waitFor();
    expect(await badgeOf(platform)).toBe("Producción");
    expect(await menuOf(platform)).not.toContain("Salidas a producción");
    await platform.goto(`${production.adminUrl}/portal/go-live-requests`);
    await platform.getByRole("heading", { name: "Integraciones", level: 1 }).waitFor();

    // Nothing the portal asked for was a Sandbox-only call refused.
    expect(answers).toEqual([]);
    expect(watched.problems({ expectedFailures: 0 })).toEqual([]);
    await Promise.all([page.close(), platform.close()]);
  });
});
