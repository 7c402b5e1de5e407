// Every form of the portal that a person can get wrong, submitted with bad values in a real browser
// against a live Sandbox: each wrong field is marked, its message under it is Spanish, and no English
// from the API reaches the page. The oracle is twofold: the English phrases the API writes in its
// messages (server/http/validation-details.ts and the service's own rules), and every `message` the API
// actually answered during the test, read from the responses as the browser received them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page, Response } from "playwright-core";
import { launchBrowser, type TestBrowser } from "../../scripts/chromium.ts";
import { sandboxIntegration } from "../helpers/sandbox-admin.ts";
import { serviceForFile } from "../helpers/service.ts";

const t = serviceForFile({ env: { COBRO_AUTH_URL: "" } });
let browser: TestBrowser;

beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

/** Words of the API's English messages (validation details and business rules) that must never be shown. */
const API_ENGLISH = [
  "is required",
  "field not accepted",
  "must be",
  "must have",
  "has an invalid format",
  "must not",
  "is not accepted",
  "must use https",
  "would move the clock",
  "is not a valid",
  "characters",
  "invalid",
  "format",
  "required",
  "only spaces",
  "after today",
  "Argentina time",
  "not found",
  "Unauthorized",
  "Forbidden",
];

interface Watched {
  page: Page;
  /** Every `message` (and validation detail's message) the API answered so far. */
  apiMessages: string[];
}

async function signedIn(credentials: { email: string; password: string }): Promise<Watched> {
  const page = await browser.context.newPage();
  page.setDefaultTimeout(10_000);
  const apiMessages: string[] = [];
  page.on("response", async (response: Response) => {
    if (response.status() < 400) return;
    try {
      const body = (await response.json()) as { message?: unknown; validationDetails?: Array<{ message?: unknown }> };
      if (typeof body.message === "string") apiMessages.push(body.message);
      for (const detail of body.validationDetails ?? []) if (typeof detail.message === "string") apiMessages.push(detail.message);
    } catch {
      // not JSON
    }
  });
  await page.goto(`${t.adminUrl}/portal/`);
  await page.getByLabel("Email").fill(credentials.email);
  await page.getByLabel("Contraseña", { exact: true }).fill(credentials.password);
  await page.getByRole("button", { name: "Ingresar" }).click();
  await page.getByRole("button", { name: "Salir" }).waitFor();
  return { page, apiMessages };
}

async function open(page: Page, path: string, heading: string): Promise<void> {
  await page.goto(`${t.adminUrl}/portal${path}`);
  await page.getByRole("heading", { name: heading, exact: true, level: 1 }).waitFor();
}

/** The message under a field (its last aria-describedby), once the field is marked invalid. */
async function fieldError(page: Page, label: string, scope = page.locator("main")): Promise<string> {
  const field = scope.getByLabel(label, { exact: true });
  await expect.poll(() => field.getAttribute("aria-invalid"), { timeout: 10_000 }).toBe("true");
  const describedBy = (await field.getAttribute("aria-describedby"))!.split(" ");
  return page.locator(`[id="${describedBy.at(-1)}"]`).innerText();
}

/** No English of the API on the page: neither a known phrase nor a message it answered. */
async function expectNoApiEnglish({ page, apiMessages }: Watched): Promise<void> {
  const text = await page.locator("main").innerText();
  // Whole words: Spanish "formato" is not the English "format".
  for (const phrase of API_ENGLISH) expect(text, `"${phrase}" on ${page.url()}`).not.toMatch(new RegExp(`\\b${phrase}\\b`, "i"));
  for (const message of apiMessages) expect(text, `the API's "${message}" on ${page.url()}`).not.toContain(message);
}

describe("the portal's forms, submitted wrong", { timeout: 180_000 }, () => {
  it("show Spanish messages next to the integration admin's fields, and none of the API's English", async () => {
    const integration = await sandboxIntegration(t);
    const watched = await signedIn(integration.merchant.sandbox.integrationAdmin);
    const { page } = watched;
    const main = page.locator("main");

    // Sandbox: a test charge with a past due date, a one-letter payer and a bad email.
    await open(page, "/sandbox", "Herramientas del Sandbox");
    const testCharge = main.locator("section", { has: page.getByRole("heading", { name: "Crear un cobro de prueba" }) });
    await testCharge.getByLabel("Importe del cobro").fill("1500");
    await testCharge.getByLabel("Vencimiento").fill("2020-01-01");
    await testCharge.getByLabel("Nombre del pagador de prueba").fill("A");
    await testCharge.getByLabel("Email del pagador de prueba").fill("no-es-un-email");
    await testCharge.getByRole("button", { name: "Crear el cobro de prueba" }).click();
    expect(await fieldError(page, "Nombre del pagador de prueba", testCharge)).toBe("Tiene que tener al menos 2 caracteres.");
    expect(await fieldError(page, "Email del pagador de prueba", testCharge)).toBe("Ingresá un email válido, por ejemplo nombre@empresa.com.ar.");
    // The due date's rule is the service's own (after today): checked once the schema's problems are fixed.
    await testCharge.getByLabel("Nombre del pagador de prueba").fill("Ana Gómez");
    await testCharge.getByLabel("Email del pagador de prueba").fill("ana@example.com");
    await testCharge.getByRole("button", { name: "Crear el cobro de prueba" }).click();
    expect(await fieldError(page, "Vencimiento", testCharge)).toBe("El valor está fuera de lo permitido.");
    await testCharge.getByLabel("Vencimiento").fill("");
    await testCharge.getByRole("button", { name: "Crear el cobro de prueba" }).click();
    await testCharge.getByTestId("test-charge-cvu").waitFor();
    const cvu = await testCharge.getByTestId("test-charge-cvu").innerText();

    // The simulation starts from the test charge; a blank payer name and a short CBU are marked.
    const simulate = main.locator("section", { has: page.getByRole("heading", { name: "Simular un pago" }) });
    expect(await simulate.getByLabel("CVU del cobro").inputValue()).toBe(cvu);
    expect(await simulate.getByLabel("Importe", { exact: true }).inputValue()).toBe("1500");
    await simulate.getByLabel("CBU o CVU del pagador").fill("123");
    await simulate.getByLabel("CUIL o CUIT del pagador").fill("20301234563");
    await simulate.getByLabel("Nombre del pagador", { exact: true }).fill("");
    await simulate.getByRole("button", { name: "Simular el pago" }).click();
    expect(await fieldError(page, "CBU o CVU del pagador", simulate)).toBe("El formato no es válido.");
    expect(await fieldError(page, "Nombre del pagador", simulate)).toBe("Completá este campo.");

    // The clock: a moment before now is refused in words (a business rule, in the general box).
    const clock = main.locator("section", { has: page.getByRole("heading", { name: "Reloj del Sandbox" }) });
    await clock.getByLabel("Ir a un día y hora").check();
    await clock.getByLabel("Día", { exact: true }).fill("2020-01-01");
    await clock.getByRole("button", { name: "Mover el reloj" }).click();
    await expect.poll(() => clock.getByRole("alert").innerText()).toBe("El reloj del Sandbox solo avanza: elegí un momento posterior al actual.");
    await expectNoApiEnglish(watched);

    // Webhooks: a short validation token.
    await open(page, "/webhooks", "Webhooks");
    const register = main.locator("form", { has: page.getByRole("button", { name: "Registrar la URL" }) });
    await register.getByLabel("URL", { exact: true }).fill("https://example.com/cobro");
    await register.getByLabel("Token de validación (opcional)").fill("corto");
    await register.getByRole("button", { name: "Registrar la URL" }).click();
    expect(await fieldError(page, "Token de validación (opcional)", register)).toBe("Tiene que tener al menos 16 caracteres.");
    await register.getByLabel("Token de validación (opcional)").fill("");
    await register.getByLabel("URL", { exact: true }).fill("http://example.com/cobro");
    await register.getByRole("button", { name: "Registrar la URL" }).click();
    expect(await fieldError(page, "URL", register)).toBe("La URL tiene que empezar con https://.");
    await expectNoApiEnglish(watched);

    // The offer: a percentage above 100.
    await open(page, "/offer", "Oferta");
    await main.getByLabel("Porcentaje de cada pago (%)").fill("150");
    await main.getByRole("button", { name: "Guardar la oferta" }).click();
    expect(await fieldError(page, "Porcentaje de cada pago (%)")).toBe("Tiene que ser 100 o menos.");
    await expectNoApiEnglish(watched);

    // The payout account: an email that is not one.
    await open(page, "/payout-link", "Cuenta de cobro de comisiones");
    await main.getByLabel("Email de la cuenta que cobra").fill("no-es-un-email");
    await main.getByRole("button", { name: "Enviar la invitación" }).click();
    expect(await fieldError(page, "Email de la cuenta que cobra")).toBe("Ingresá un email válido, por ejemplo nombre@empresa.com.ar.");
    await expectNoApiEnglish(watched);

    // More chat messages: a reason of spaces.
    await open(page, "/message-cap", "Mensajes de chat");
    await main.getByLabel("Mensajes por día").fill("5000");
    await main.getByLabel("Motivo").fill("   ");
    await main.getByRole("button", { name: "Enviar el pedido" }).click();
    expect(await fieldError(page, "Motivo")).toMatch(/^(Completá este campo\.|Escribí algo más que espacios\.)$/);
    await expectNoApiEnglish(watched);

    // The profile: a one-letter name and a bad contact email.
    await open(page, "/profile", "Perfil de la integración");
    await main.getByLabel("Nombre", { exact: true }).fill("A");
    await main.getByLabel("Email de contacto").fill("no-es-un-email");
    await main.getByRole("button", { name: "Guardar los datos" }).click();
    expect(await fieldError(page, "Nombre")).toBe("Tiene que tener al menos 2 caracteres.");
    expect(await fieldError(page, "Email de contacto")).toBe("Ingresá un email válido, por ejemplo nombre@empresa.com.ar.");
    await expectNoApiEnglish(watched);
    // The logo's file picker speaks Spanish, whatever the browser's language, and names the chosen file.
    expect(await main.getByTestId("logo-file-name").innerText()).toBe("Ningún archivo elegido");
    expect(await main.getByText("Elegir una imagen").isVisible()).toBe(true);
    await main.getByLabel("Imagen").setInputFiles({ name: "mi-logo.png", mimeType: "image/png", buffer: Buffer.from("x") });
    expect(await main.getByTestId("logo-file-name").innerText()).toBe("mi-logo.png");

    // Earnings: a range whose end comes before its start.
    await open(page, "/earnings", "Ganancias");
    await main.getByLabel("Desde").fill("2026-12-10");
    await main.getByLabel("Hasta").fill("2026-12-01");
    await main.getByRole("button", { name: "Ver", exact: true }).click();
    expect(await fieldError(page, "Desde")).toBe("Las fechas no están en orden: revisá el desde y el hasta.");
    await expectNoApiEnglish(watched);

    // Required fields are marked after their labels, outside the label's own name.
    await open(page, "/sandbox", "Herramientas del Sandbox");
    expect(
      await main
        .locator(".field-label", { has: page.getByText("Importe del cobro", { exact: true }) })
        .locator(".required-mark")
        .count(),
    ).toBe(1);
    expect(
      await main
        .locator(".field-label", { has: page.getByText("Descripción", { exact: true }) })
        .locator(".required-mark")
        .count(),
    ).toBe(0);
    await page.close();
  });

  it("show Spanish messages next to the platform admin's fields", async () => {
    const integration = await sandboxIntegration(t);
    const watched = await signedIn(integration.merchant.sandbox.platformAdmin);
    const { page } = watched;
    const main = page.locator("main");
    await open(page, "/clients", "Integraciones");
    await main.getByText("Crear una integración").click();
    await main.getByLabel("Nombre", { exact: true }).fill("A");
    await main.getByLabel("Razón social").fill("Ejemplo S.A.");
    await main.getByLabel("Email de contacto").fill("no-es-un-email");
    await main.getByRole("button", { name: "Crear la integración" }).click();
    expect(await fieldError(page, "Nombre")).toBe("Tiene que tener al menos 2 caracteres.");
    expect(await fieldError(page, "Email de contacto")).toBe("Ingresá un email válido, por ejemplo nombre@empresa.com.ar.");
    await main.getByLabel("Razón social").fill("");
    await main.getByRole("button", { name: "Crear la integración" }).click();
    expect(await fieldError(page, "Razón social")).toBe("Completá este campo.");
    await expectNoApiEnglish(watched);

    // One client: a commission above 100, an admin whose email is not one, a suspension reason of spaces.
    const integrationClientId: string = (await integration.admin.call("GET", "/my-integration/me")).json.integrationClientId;
    await open(page, `/clients/${integrationClientId}`, integration.merchant.sandbox.integration.name);
    await main.getByLabel("Comisión (%)").fill("150");
    await main.getByRole("button", { name: "Guardar la comisión" }).click();
    expect(await fieldError(page, "Comisión (%)")).toBe("Tiene que ser 100 o menos.");
    await main.getByLabel("Email del administrador").fill("no-es-un-email");
    await main.getByRole("button", { name: "Agregar el administrador" }).click();
    expect(await fieldError(page, "Email del administrador")).toBe("Ingresá un email válido, por ejemplo nombre@empresa.com.ar.");
    await main.getByLabel("Motivo de la suspensión").fill("   ");
    await main.getByRole("button", { name: "Suspender" }).click();
    expect(await fieldError(page, "Motivo de la suspensión")).toMatch(/^(Completá este campo\.|Escribí algo más que espacios\.)$/);
    await expectNoApiEnglish(watched);
    await page.close();
  });
});
