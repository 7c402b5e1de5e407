// The portal in a real browser (Debian's chromium through playwright-core) against a live Sandbox on the
// Admin host: signing in, the forced password change, each page's main action, errors next to their
// fields, a secret shown once, nothing asked of another origin, no console error, and a phone's width.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { launchBrowser, type TestBrowser } from "../../scripts/chromium.ts";
import { chargeBody, dueDateIn } from "../helpers/charges.ts";
import { sandboxIntegration } from "../helpers/sandbox-admin.ts";
import { read, serviceForFile } from "../helpers/service.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { INTEGRATION_ADMIN_MENU, watchPage } from "./watch-page.ts";

// The Admin host forwards the admin sign-in to the Auth API's public URL: here, where it listens.
const t = serviceForFile({ env: { COBRO_AUTH_URL: "" } });
let browser: TestBrowser;
let integration: Awaited<ReturnType<typeof sandboxIntegration>>;

beforeAll(async () => {
  browser = await launchBrowser();
  integration = await sandboxIntegration(t);
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Contraseña", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Ingresar" }).click();
}

describe("the portal on the Admin host", { timeout: 90_000 }, () => {
  it("is one page with a strict CSP, and forwards only the admin session operations", async () => {
    const index = await read(await fetch(`${t.adminUrl}/portal/charges/abc`));
    expect(index.status).toBe(200);
    expect(index.headers.get("content-security-policy")).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
    expect(index.text).toContain('<html lang="es-AR">');
    expect(index.text).toContain('name="viewport"');
    const script = await fetch(`${t.adminUrl}/portal/assets/portal.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/^text\/javascript/);
    const refused = await read(await fetch(`${t.adminUrl}/portal/auth-api/integration/oauth2/token`, { method: "POST" }));
    expect(refused.status).toBe(404);
    expect(refused.json).toMatchObject({ code: "RouteNotFound" });
    const other = await read(await fetch(`${t.adminUrl}/portal/auth-api/integration/admin/password-reset/complete`, { method: "POST" }));
    expect(other.status).toBe(404);
  });

  it("an integration admin signs in, simulates a payment, sees the charge paid, takes test tokens once, moves the clock and signs out", async () => {
    const charge = await integration.createCharge(chargeBody({ referenceId: uniqueRef("PORTAL"), amount: 1500, dueDates: [dueDateIn(t.clock, 10)] }));
    const page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    const watched = watchPage(page, t.adminUrl);
    await page.goto(`${t.adminUrl}/portal/`);
    expect(await page.getAttribute("html", "lang")).toBe("es-AR");

    // A wrong password: the refusal in words, in an alert.
    await signIn(page, integration.merchant.sandbox.integrationAdmin.email, "no-es-la-clave");
    await expect.poll(() => page.getByRole("alert").innerText()).toBe("El email o la contraseña no son correctos.");

    await signIn(page, integration.merchant.sandbox.integrationAdmin.email, integration.merchant.sandbox.integrationAdmin.password);
    await page.getByRole("heading", { name: "Inicio" }).waitFor();
    await expect.poll(() => page.getByTestId("collected-today").innerText()).toBe("$ 0,00");
    expect(await page.getByRole("navigation", { name: "Secciones" }).getByRole("link").allInnerTexts()).toEqual(INTEGRATION_ADMIN_MENU);
    // The refresh token is kept in this tab only, never in the URL.
    const refreshToken = await page.evaluate(() => sessionStorage.getItem("cobro.portal.refreshToken"));
    expect(refreshToken).toMatch(/^rt_/);
    expect(page.url()).not.toContain(refreshToken!);

    // The charge is in the list, pending.
    await page.getByRole("link", { name: "Cobros" }).click();
    await page.getByRole("link", { name: charge.referenceId }).waitFor();
    expect(await page.getByRole("row", { name: new RegExp(charge.referenceId) }).innerText()).toContain("Pendiente");

    // Simulating a payment: a field's error under the field, then the payment matched to the charge.
    await page.getByRole("link", { name: "Sandbox" }).click();
    await page.getByRole("heading", { name: "Simular un pago" }).waitFor();
    const cvuField = page.getByLabel("CVU del cobro");
    await cvuField.fill("123");
    await page.getByLabel("Importe", { exact: true }).fill("1.500,00");
    await page.getByLabel("CBU o CVU del pagador").fill("0000003100000000000017");
    await page.getByLabel("CUIL o CUIT del pagador").fill("20301234563");
    await page.getByLabel("Nombre del pagador", { exact: true }).fill("Juan Pérez");
    await page.getByRole("button", { name: "Simular el pago" }).click();
    await expect.poll(() => cvuField.getAttribute("aria-invalid")).toBe("true");
    const describedBy = (await cvuField.getAttribute("aria-describedby"))!.split(" ");
    const cvuError = page.locator(`[id="${describedBy.at(-1)}"]`);
    expect(await cvuError.innerText()).toBe("El formato no es válido.");
    expect(await page.getByRole("alert").first().innerText()).toContain("Revisá los datos marcados.");

    await cvuField.fill(charge.CVU);
    await page.getByRole("button", { name: "Simular el pago" }).click();
    await expect.poll(() => page.getByRole("status").filter({ hasText: "Transferencia" }).innerText()).toContain("Se imputó al cobro.");
    expect(await cvuField.getAttribute("aria-invalid")).toBeNull();
    await page.getByRole("link", { name: "Ver el cobro" }).click();
    await expect.poll(() => page.getByTestId("charge-status").innerText()).toBe("Pagado");
    await expect.poll(() => page.locator("main").innerText()).toContain("$ 1.500,00");
    await expect.poll(() => page.locator("main").innerText()).toContain("payment_request.payment_received");

    // Test tokens: shown once, gone when the admin says they are saved.
    await page.getByRole("link", { name: "Sandbox" }).click();
    await page.getByRole("button", { name: "Crear tokens de prueba" }).click();
    const idToken = page.locator('[data-secret="idToken"]');
    await idToken.waitFor();
    expect((await idToken.innerText()).split(".")).toHaveLength(3);
    await page.getByRole("button", { name: "Ya lo guardé" }).click();
    expect(await page.locator("[data-secret]").count()).toBe(0);
    await page.getByRole("button", { name: "Crear tokens de prueba" }).waitFor();

    // The Sandbox clock: a count that is not one is refused next to its field (before any request); a day
    // moves it, by its unit; the reset takes it back to real time.
    const count = page.getByLabel("Cantidad");
    await count.fill("mañana");
    await page.getByRole("button", { name: "Mover el reloj" }).click();
    await expect.poll(() => count.getAttribute("aria-invalid")).toBe("true");
    await count.fill("1");
    await page.getByLabel("Unidad").selectOption("days");
    await page.getByRole("button", { name: "Mover el reloj" }).click();
    await expect.poll(() => page.getByTestId("sandbox-offset").innerText()).toBe("1 día adelante");
    // Back to real time, to start over from today.
    await page.getByRole("button", { name: "Volver a la hora real" }).click();
    await expect.poll(() => page.getByTestId("sandbox-offset").innerText()).toBe("En la hora real");
    expect(await page.getByRole("button", { name: "Volver a la hora real" }).count()).toBe(0);

    // A reload keeps the session (a refresh, which replaces the refresh token).
    await page.reload();
    await page.getByRole("heading", { name: "Herramientas del Sandbox" }).waitFor();
    const renewed = await page.evaluate(() => sessionStorage.getItem("cobro.portal.refreshToken"));
    expect(renewed).toMatch(/^rt_/);
    expect(renewed).not.toBe(refreshToken);

    // The page signs out at once and ends the session on the server in the background: wait for that call.
    const loggedOut = page.waitForResponse((response) => response.url().endsWith("/integration/admin/logout"));
    await page.getByRole("button", { name: "Salir" }).click();
    await page.getByRole("heading", { name: "Ingresá al portal de Cobro" }).waitFor();
    expect((await loggedOut).ok()).toBe(true);
    expect(await page.evaluate(() => sessionStorage.getItem("cobro.portal.refreshToken"))).toBeNull();
    // The ended session's refresh token no longer works.
    const reused = await read(
      await fetch(`${t.authUrl}/integration/admin/refresh`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ refreshToken: renewed }),
      }),
    );
    expect(reused.status).toBe(401);

    expect(watched.otherOrigins()).toEqual([]);
    // Chromium logs each refused request (the wrong password, the refused simulation) as a failed load.
    expect(watched.problems({ expectedFailures: 2 })).toEqual([]);
    await page.close();
  });

  it("a platform admin creates an integration (its secret shown once), whose first admin must change the temporary password first", async () => {
    const sandbox = integration.merchant.sandbox;
    const page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    const watched = watchPage(page, t.adminUrl);
    await page.goto(`${t.adminUrl}/portal/`);
    await signIn(page, sandbox.platformAdmin.email, sandbox.platformAdmin.password);
    await page.getByRole("heading", { name: "Integraciones" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/portal/clients");

    // A field the API refuses is marked under that field.
    await page.getByText("Crear una integración").click();
    const firstAdminEmail = `${uniqueRef("primer-admin").toLowerCase()}@example.com`;
    await page.getByLabel("Nombre", { exact: true }).fill("Colegio del Portal");
    await page.getByLabel("Razón social").fill("Colegio del Portal S.A.");
    await page.getByLabel("Email de contacto").fill("no-es-un-email");
    await page.getByLabel("Email del primer administrador").fill(firstAdminEmail);
    await page.getByRole("button", { name: "Crear la integración" }).click();
    const contactEmail = page.getByLabel("Email de contacto");
    await expect.poll(() => contactEmail.getAttribute("aria-invalid")).toBe("true");

    await contactEmail.fill("contacto@example.com");
    await page.getByRole("button", { name: "Crear la integración" }).click();
    const secret = page.locator('[data-secret="clientSecret"]');
    await secret.waitFor();
    const clientSecret = await secret.innerText();
    expect(clientSecret.length).toBeGreaterThan(20);
    await page.getByRole("button", { name: "Ya lo guardé" }).click();
    expect(await page.locator("body").innerText()).not.toContain(clientSecret);

    // The detail: the service commission, applied to the integration's merchant links.
    await page.getByRole("link", { name: "Colegio del Portal" }).first().click();
    await page.getByRole("heading", { name: "Comisión del servicio" }).waitFor();
    const percentage = page.getByLabel("Comisión (%)");
    await percentage.fill("150");
    await page.getByRole("button", { name: "Guardar la comisión" }).click();
    await expect.poll(() => percentage.getAttribute("aria-invalid")).toBe("true");
    await percentage.fill("1,5");
    await page.getByRole("button", { name: "Guardar la comisión" }).click();
    await expect
      .poll(() => page.getByTestId("commission-backfill").innerText())
      .toBe("Vínculos con comercios: 0 actualizados, 0 ya estaban al día, 0 con error, 0 pendientes (de 0).");
    expect(await page.getByRole("button", { name: "Continuar" }).count()).toBe(0);
    await page.getByRole("button", { name: "Salir" }).click();

    // The welcome email (the Sandbox without SMTP logs it) carries the temporary password.
    const welcome = t.logLines.find(
      (line) =>
        typeof line.msg === "string" && line.msg.startsWith("SANDBOX MAIL") && (line.sandboxMail as { to?: string } | undefined)?.to === firstAdminEmail,
    );
    const temporaryPassword = /^Contraseña temporal: (\S+)$/m.exec((welcome!.sandboxMail as { text: string }).text)![1]!;
    await signIn(page, firstAdminEmail, temporaryPassword);
    await page.getByRole("heading", { name: "Elegí tu contraseña" }).waitFor();
    expect(await page.getByRole("navigation").count()).toBe(0);
    await page.getByLabel("Contraseña actual").fill(temporaryPassword);
    const newPassword = page.getByLabel("Contraseña nueva");
    await newPassword.fill("corta");
    await page.getByRole("button", { name: "Guardar la contraseña" }).click();
    await expect.poll(() => newPassword.getAttribute("aria-invalid")).toBe("true");
    await newPassword.fill("una-clave-propia-y-larga");
    await page.getByRole("button", { name: "Guardar la contraseña" }).click();
    await page.getByRole("heading", { name: "Inicio" }).waitFor();
    await expect.poll(() => page.getByTestId("collected-today").innerText()).toBe("$ 0,00");

    expect(watched.otherOrigins()).toEqual([]);
    expect(watched.problems({ expectedFailures: 2 })).toEqual([]);
    await page.close();
  });

  it("an integration admin asks to go live and reads the reasons; the platform admin rejects it with a reason from the queue", async () => {
    const page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    const watched = watchPage(page, t.adminUrl);
    const sandbox = integration.merchant.sandbox;
    await page.goto(`${t.adminUrl}/portal/go-live`);
    await signIn(page, sandbox.integrationAdmin.email, sandbox.integrationAdmin.password);
    await page.getByText("Todavía no pediste la salida a producción.").waitFor();
    await page.getByRole("button", { name: "Pedir la salida a producción" }).click();
    await expect.poll(() => page.getByTestId("go-live-status").innerText()).toBe("En revisión");
    expect(await page.locator('.reasons [data-code="no_webhook_url"]').count()).toBe(1);
    await page.getByRole("button", { name: "Salir" }).click();

    await signIn(page, sandbox.platformAdmin.email, sandbox.platformAdmin.password);
    await page.getByRole("link", { name: "Salidas a producción" }).click();
    const request = page.getByRole("region", { name: sandbox.integration.name });
    await request.getByRole("button", { name: "Rechazar" }).click();
    const reason = request.getByLabel("Motivo del rechazo");
    await expect.poll(() => reason.getAttribute("aria-invalid")).toBe("true");
    await reason.fill("Falta configurar la URL del webhook.");
    await request.getByRole("button", { name: "Rechazar" }).click();
    await expect.poll(() => request.getByRole("status").innerText()).toContain("Solicitud rechazada.");
    await page.getByRole("button", { name: "Salir" }).click();

    await signIn(page, sandbox.integrationAdmin.email, sandbox.integrationAdmin.password);
    await page.getByRole("link", { name: "Salida a producción" }).click();
    await expect.poll(() => page.getByTestId("go-live-status").innerText()).toBe("Rechazada");
    expect(await page.locator("main").innerText()).toContain("Motivo del rechazo: Falta configurar la URL del webhook.");

    expect(watched.otherOrigins()).toEqual([]);
    // The refused empty reason (the page asks for the integration's requests, an empty list while it never asked: no 404).
    expect(watched.problems({ expectedFailures: 1 })).toEqual([]);
    await page.close();
  });

  it("fits a phone's screen: no sideways scrolling, the menu behind a button", async () => {
    const page = await browser.context.newPage();
    page.setDefaultTimeout(10_000);
    const watched = watchPage(page, t.adminUrl);
    await page.setViewportSize({ width: 375, height: 667 });
    await page.goto(`${t.adminUrl}/portal/`);
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
    await signIn(page, integration.merchant.sandbox.integrationAdmin.email, integration.merchant.sandbox.integrationAdmin.password);
    await page.getByRole("heading", { name: "Inicio" }).waitFor();
    for (const [menuLabel, heading] of [
      ["Cobros", "Cobros"],
      ["Sandbox", "Herramientas del Sandbox"],
      ["Salida a producción", "Salida a producción"],
      ["Inicio", "Inicio"],
    ] as const) {
      const toggle = page.getByRole("button", { name: "Menú" });
      expect(await page.getByRole("link", { name: menuLabel, exact: true }).isVisible()).toBe(false);
      await toggle.click();
      expect(await toggle.getAttribute("aria-expanded")).toBe("true");
      await page.getByRole("link", { name: menuLabel, exact: true }).click();
      await page.getByRole("heading", { name: heading, exact: true, level: 1 }).waitFor();
      await page.locator(".loading").first().waitFor({ state: "detached" });
      expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
    }
    expect(watched.otherOrigins()).toEqual([]);
    // GET /my-integration/go-live answers 404 while the integration has never asked: "no request yet".
    expect(watched.problems({ expectedFailures: 1 })).toEqual([]);
    await page.close();
  });
});
