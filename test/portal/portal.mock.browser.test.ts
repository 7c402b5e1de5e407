// The portal as frontend work runs it: `npm run portal:dev` against the Prism mocks of `npm run mock`.
// The pages render from the contract's examples alone, nothing leaves the dev server's origin, and the
// console stays clean: what the portal is written against is exactly what the live server publishes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMocks, type RunningMocks } from "../../scripts/mock.ts";
import { startPortalDevServer, type PortalDevServer } from "../../scripts/portal-dev.ts";
import { createLogger } from "../../runtime/logger.ts";
import { launchBrowser, type TestBrowser } from "../../scripts/chromium.ts";
import { freePorts } from "../../scripts/free-ports.ts";
import { watchPage } from "./watch-page.ts";

let mocks: RunningMocks;
let dev: PortalDevServer;
let browser: TestBrowser;

beforeAll(async () => {
  const [integration, auth, admin] = await freePorts(3);
  [mocks, browser] = await Promise.all([startMocks({ ports: { integration, auth, admin } }), launchBrowser()]);
  dev = await startPortalDevServer({ adminUrl: mocks.urls.admin, authUrl: mocks.urls.auth, logger: createLogger("silent") });
}, 90_000);

afterAll(async () => {
  await Promise.allSettled([browser?.close(), dev?.stop()]);
  await mocks?.stop();
});

describe("the portal against the Prism mocks", { timeout: 60_000 }, () => {
  it("signs in and renders the integration admin's pages from the contract's examples", async () => {
    const page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    const watched = watchPage(page, dev.url);
    await page.goto(`${dev.url}/portal/`);
    await page.getByLabel("Email").fill("admin@gestioncomercios.com.ar");
    await page.getByLabel("Contraseña", { exact: true }).fill("una-clave-segura");
    await page.getByRole("button", { name: "Ingresar" }).click();

    // The example idToken's claims: an integration admin.
    await page.getByRole("heading", { name: "Inicio" }).waitFor();
    expect(await page.locator(".who").innerText()).toBe("admin@gestioncomercios.com.ar");
    await expect.poll(() => page.getByTestId("collected-today").innerText()).toBe("$ 1.000,00");
    await expect.poll(() => page.locator("main").innerText()).toContain("payment_request.payment_received");

    await page.getByRole("link", { name: "Cobros" }).click();
    await page.getByRole("link", { name: "INV-2026-000123" }).click();
    await expect.poll(() => page.getByTestId("charge-status").innerText()).toBe("Pago parcial");
    await expect.poll(() => page.locator("main").innerText()).toContain("$ 5.000,00");

    await page.getByRole("link", { name: "Sandbox" }).click();
    await expect.poll(() => page.getByTestId("sandbox-now").innerText()).toBe("22/11/2026 10:05");
    await page.getByLabel("CVU del cobro").fill("0000253200000000123459");
    await page.getByLabel("Importe", { exact: true }).fill("5000");
    await page.getByLabel("CBU o CVU del pagador").fill("0000003100012345678907");
    await page.getByLabel("CUIL o CUIT del pagador").fill("20301234563");
    await page.getByLabel("Nombre del pagador", { exact: true }).fill("Juan Pérez");
    await page.getByRole("button", { name: "Simular el pago" }).click();
    await expect.poll(() => page.getByRole("status").filter({ hasText: "Transferencia" }).innerText()).toContain("Se imputó al cobro.");

    await page.getByRole("link", { name: "Salida a producción" }).click();
    await expect.poll(() => page.locator("main").innerText()).toContain("La URL de webhook no respondió 2xx en la prueba.");

    // The integration's settings. The example integration is multitenant: its tenants are in the menu.
    await page.getByRole("link", { name: "Webhooks" }).click();
    await page.getByRole("checkbox", { name: /payment\.unmatched/ }).waitFor();
    await page.getByRole("link", { name: "Eventos" }).click();
    await expect.poll(() => page.locator(".event-log").innerText()).toContain("payment_request.payment_received");
    await page.getByRole("link", { name: "Sucursales" }).click();
    await page.getByRole("region", { name: "Sucursal Centro" }).waitFor();
    await page.getByRole("link", { name: "Claves del widget" }).click();
    await expect.poll(() => page.getByTestId("publishable-key").innerText()).toBe("pk_test_51HxQ2aB3cD4eF5gH6iJ7kL8m");
    await page.getByRole("link", { name: "Perfil y logo" }).click();
    await expect.poll(() => page.getByLabel("Razón social").inputValue()).toBe("Gestión Comercios S.A.");

    expect(watched.otherOrigins()).toEqual([]);
    expect(watched.problems({ expectedFailures: 0 })).toEqual([]);
    await page.close();
  });
});
