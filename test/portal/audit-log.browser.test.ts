// The portal's audit log pages in a real browser against a live Sandbox: the integration admin reads what
// its own admins did (and only that), filters by operation, result and who, and pages; the platform admin
// reads every integration's and narrows to one; both fit a phone's screen, ask nothing of another
// origin and log no console error.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { launchBrowser, type TestBrowser } from "../../scripts/chromium.ts";
import { sandboxAdmin, signedInAdmin } from "../helpers/sandbox-admin.ts";
import { serviceForFile } from "../helpers/service.ts";
import { watchPage, type WatchedPage } from "./watch-page.ts";
import type { SandboxCredentials } from "../../domain/sandbox/sandbox-bootstrap.ts";

// The Admin host forwards the admin sign-in to the Auth API's public URL: here, where it listens.
const t = serviceForFile({ env: { COBRO_AUTH_URL: "" } });
let browser: TestBrowser;
let setA: SandboxCredentials;
let setB: SandboxCredentials;

beforeAll(async () => {
  browser = await launchBrowser();
  setA = await t.sandbox();
  setB = await t.sandbox();
  const adminA = await sandboxAdmin(t, setA);
  // 23 offers (one more than a page of 20 with the sign-ins), one refusal, and another integration's change.
  for (let cents = 0; cents < 23; cents++)
    expect((await adminA.call("PUT", "/my-integration/offer", { percentage: 1, fixedAmount: 10 + cents / 100 })).status).toBe(200);
  expect((await adminA.call("DELETE", `/my-integration/urls/${crypto.randomUUID()}`)).status).toBe(404);
  const adminB = await signedInAdmin(t, setB.integrationAdmin);
  expect((await adminB.call("PUT", "/my-integration/webhook-subscriptions", { enabledEvents: ["payment.unmatched"] })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

async function openSignedIn(credentials: { email: string; password: string }, width?: number): Promise<{ page: Page; watched: WatchedPage }> {
  const page = await browser.context.newPage();
  page.setDefaultTimeout(10_000);
  if (width) await page.setViewportSize({ width, height: 740 });
  const watched = watchPage(page, t.adminUrl);
  await page.goto(`${t.adminUrl}/portal/`);
  await page.getByLabel("Email").fill(credentials.email);
  await page.getByLabel("Contraseña", { exact: true }).fill(credentials.password);
  await page.getByRole("button", { name: "Ingresar" }).click();
  await page.getByRole("button", { name: "Salir" }).waitFor();
  return { page, watched };
}

async function openAuditLog(page: Page, phone = false): Promise<void> {
  if (phone) await page.getByRole("button", { name: "Menú" }).click();
  await page.getByRole("navigation", { name: "Secciones" }).getByRole("link", { name: "Auditoría", exact: true }).click();
  await page.getByRole("heading", { name: "Registro de auditoría", exact: true, level: 1 }).waitFor();
  await page.locator(".loading").first().waitFor({ state: "detached" });
}

const rows = (page: Page) => page.getByTestId("audit-entry");
const pagerText = (page: Page) => page.getByRole("navigation", { name: "Páginas" }).innerText();

describe("the audit log pages", { timeout: 120_000 }, () => {
  it("the integration admin reads its own admins' actions, filters by operation, result and who, and pages", async () => {
    const { page, watched } = await openSignedIn(setA.integrationAdmin);
    await openAuditLog(page);
    // 23 offers, the refusal, and three sign-ins (the setup's, the browser's is the newest).
    await expect.poll(() => pagerText(page)).toContain("Página 1 de 2 · 26 acciones");
    expect(await rows(page).count()).toBe(20);
    expect(await rows(page).first().innerText()).toContain("Ingresó al portal");
    const table = await page.getByRole("group", { name: "Tabla de acciones registradas" }).innerText();
    expect(table).toContain(setA.integrationAdmin.email);
    expect(table).not.toContain(setB.integrationAdmin.email);
    expect(table).not.toContain("Cambió los eventos suscriptos");
    expect(table).not.toContain(setA.integrationAdmin.password);

    await page.getByRole("button", { name: "Siguiente" }).click();
    await expect.poll(() => pagerText(page)).toContain("Página 2 de 2");
    await expect.poll(() => rows(page).count()).toBe(6);
    expect(page.url()).toContain("page=2");

    await page.getByLabel("Resultado").selectOption({ label: "Rechazadas" });
    await expect.poll(() => pagerText(page)).toContain("Página 1 de 1 · 1 acción");
    expect(await rows(page).first().innerText()).toContain("Rechazada: ClientUrlNotFoundError");

    await page.getByLabel("Resultado").selectOption({ label: "Todos" });
    await page.getByLabel("Operación").selectOption({ label: "Cambió la oferta" });
    await expect.poll(() => pagerText(page)).toContain("23 acciones");
    expect(await rows(page).first().innerText()).toContain("Valores: fixedAmount: 10.22 · percentage: 1");

    // Who: clicking the admin keeps only that admin's actions (all of them here), shown above the table.
    await page.getByLabel("Operación").selectOption({ label: "Todas" });
    await rows(page).first().getByRole("button", { name: setA.integrationAdmin.email, exact: false }).click();
    await expect.poll(() => page.getByText("Sólo las acciones de").count()).toBe(1);
    await expect.poll(() => pagerText(page)).toContain("26 acciones");
    await page.getByRole("button", { name: "Ver todas" }).click();
    await expect.poll(() => page.getByText("Sólo las acciones de").count()).toBe(0);

    // Days: tomorrow onwards has nothing yet.
    const tomorrow = new Date(Date.now() + 36 * 3600 * 1000).toISOString().slice(0, 10);
    await page.getByLabel("Desde").fill(tomorrow);
    await page.getByText("No hay acciones con esos filtros.").waitFor();

    expect(watched.otherOrigins()).toEqual([]);
    expect(watched.problems({ expectedFailures: 0 })).toEqual([]);
    await page.close();
  });

  it("the platform admin reads every integration's actions and narrows to one integration", async () => {
    const { page, watched } = await openSignedIn(setA.platformAdmin);
    await openAuditLog(page);
    await page.getByLabel("Operación").selectOption({ label: "Cambió los eventos suscriptos" });
    // Only B's admin changed its subscriptions.
    await expect.poll(() => pagerText(page)).toContain("· 1 acción");
    const entry = rows(page).filter({ hasText: setB.integrationAdmin.email });
    await entry.getByRole("button", { name: "(integración)" }).click();
    await page.getByText("Sólo de la integración").waitFor();
    await page.getByLabel("Operación").selectOption({ label: "Todas" });
    // B's admin signed in once and changed the subscriptions once.
    await expect.poll(() => pagerText(page)).toContain("2 acciones");
    const table = await page.getByRole("group", { name: "Tabla de acciones registradas" }).innerText();
    expect(table).toContain(setB.integrationAdmin.email);
    expect(table).not.toContain(setA.integrationAdmin.email);
    expect(watched.otherOrigins()).toEqual([]);
    expect(watched.problems({ expectedFailures: 0 })).toEqual([]);
    await page.close();
  });

  it("fits a phone's screen for both roles", async () => {
    for (const credentials of [setA.integrationAdmin, setA.platformAdmin]) {
      const { page, watched } = await openSignedIn(credentials, 375);
      await openAuditLog(page, true);
      await expect.poll(() => rows(page).count()).toBeGreaterThan(0);
      expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
      for (const filter of ["Desde", "Hasta", "Operación", "Resultado"]) expect(await page.getByLabel(filter).isVisible(), filter).toBe(true);
      expect(watched.problems({ expectedFailures: 0 })).toEqual([]);
      await page.close();
    }
  });
});
