// The portal's pages of merchants and money (merchants with commission proposals and unlinking, the
// offer, the payout link, earnings with their CSV, the chat cap) and the platform's (a client's profile,
// suspension and admins, the chat-cap queue, the platform's earnings), in a real browser against a live
// Sandbox: each page's main action, errors next to their fields, nothing asked of another origin, no
// console error, and a phone's width.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { launchBrowser, type TestBrowser } from "../../scripts/chromium.ts";
import { chargeBody, dueDateIn } from "../helpers/charges.ts";
import { sandboxIntegration, signedInAdmin } from "../helpers/sandbox-admin.ts";
import { serviceForFile } from "../helpers/service.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { watchPage, type WatchedPage } from "./watch-page.ts";

// The Admin host forwards the admin sign-in to the Auth API's public URL: here, where it listens.
const t = serviceForFile({ env: { COBRO_AUTH_URL: "" } });
let browser: TestBrowser;

beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

async function openSignedIn(credentials: { email: string; password: string }, path = "/"): Promise<{ page: Page; watched: WatchedPage }> {
  const page = await browser.context.newPage();
  page.setDefaultTimeout(10_000);
  const watched = watchPage(page, t.adminUrl);
  await page.goto(`${t.adminUrl}/portal${path}`);
  await page.getByLabel("Email").fill(credentials.email);
  await page.getByLabel("Contraseña", { exact: true }).fill(credentials.password);
  await page.getByRole("button", { name: "Ingresar" }).click();
  await page.getByRole("button", { name: "Salir" }).waitFor();
  return { page, watched };
}

async function openMenu(page: Page, label: string, heading: string): Promise<void> {
  await page.getByRole("navigation", { name: "Secciones" }).getByRole("link", { name: label, exact: true }).click();
  await page.getByRole("heading", { name: heading, exact: true, level: 1 }).waitFor();
}

function mailsTo(email: string): Array<{ subject?: string; text: string }> {
  return t.logLines
    .filter((line) => typeof line.msg === "string" && line.msg.startsWith("SANDBOX MAIL") && (line.sandboxMail as { to?: string } | undefined)?.to === email)
    .map((line) => line.sandboxMail as { subject?: string; text: string });
}

/** A Sandbox integration with one payment of $ 1.500 received today. */
async function integrationWithPayment() {
  const integration = await sandboxIntegration(t);
  const charge = await integration.createCharge(chargeBody({ referenceId: uniqueRef("GANANCIA"), amount: 1500, dueDates: [dueDateIn(t.clock, 10)] }));
  const paid = await integration.admin.simulate({ cvu: charge.CVU, amount: 1500 });
  expect(paid.status, paid.text).toBe(200);
  expect(paid.json.conciliated).toBe(true);
  return { ...integration, charge };
}

describe("the portal's pages of merchants, money and the platform", { timeout: 120_000 }, () => {
  it("an integration admin proposes and withdraws a commission, sets the offer, invites the payout account, reads and downloads earnings, asks for more chat messages and unlinks the merchant", async () => {
    const integration = await integrationWithPayment();
    const sandbox = integration.merchant.sandbox;
    const { page, watched } = await openSignedIn(sandbox.integrationAdmin);
    expect(await page.getByRole("navigation", { name: "Secciones" }).getByRole("link").allInnerTexts()).toEqual(
      expect.arrayContaining(["Comercios", "Oferta", "Cobro de comisiones", "Ganancias", "Mensajes de chat"]),
    );

    // Comercios: the linked merchant; a commission the API refuses is marked under its field.
    await openMenu(page, "Comercios", "Comercios");
    const merchant = page.getByRole("region").filter({ hasText: sandbox.merchant.email });
    expect(await merchant.getByTestId("current-commission").innerText()).toBe("0 %");
    const percentage = merchant.getByLabel("Nueva comisión (%)");
    await percentage.fill("150");
    await merchant.getByRole("button", { name: "Proponer la comisión" }).click();
    await expect.poll(() => percentage.getAttribute("aria-invalid")).toBe("true");
    await percentage.fill("2,5");
    await merchant.getByRole("button", { name: "Proponer la comisión" }).click();
    await expect.poll(() => merchant.getByTestId("pending-commission").innerText()).toContain("2,5 %");
    expect(await page.getByRole("status").first().innerText()).toContain(`Le enviamos a ${sandbox.merchant.email} la propuesta de 2,5 %`);
    expect(mailsTo(sandbox.merchant.email)).toHaveLength(1);
    await merchant.getByRole("button", { name: "Retirar la propuesta" }).click();
    await expect.poll(() => merchant.getByTestId("pending-commission").count()).toBe(0);
    expect(await page.getByRole("status").first().innerText()).toBe(`Se retiró la propuesta de comisión a ${sandbox.merchant.email}.`);

    // Oferta: saved, kept on reload, and emptied.
    await openMenu(page, "Oferta", "Oferta");
    const offerPercentage = page.getByLabel("Porcentaje de cada pago (%)");
    await offerPercentage.fill("150");
    await page.getByRole("button", { name: "Guardar la oferta" }).click();
    await expect.poll(() => offerPercentage.getAttribute("aria-invalid")).toBe("true");
    await offerPercentage.fill("3,5");
    await page.getByLabel("Monto fijo por pago").fill("150,00");
    await page.getByRole("button", { name: "Guardar la oferta" }).click();
    await expect.poll(() => page.getByTestId("offer-saved").innerText()).toBe("Oferta guardada: 3,5 % y $ 150,00 por pago.");
    await page.reload();
    await expect.poll(() => page.getByLabel("Porcentaje de cada pago (%)").inputValue()).toBe("3,5");
    expect(await page.getByLabel("Monto fijo por pago").inputValue()).toBe("150");
    await page.getByLabel("Porcentaje de cada pago (%)").fill("");
    await page.getByLabel("Monto fijo por pago").fill("");
    await page.getByRole("button", { name: "Guardar la oferta" }).click();
    await expect.poll(() => page.getByTestId("offer-saved").innerText()).toBe("Oferta guardada: sin porcentaje y sin monto fijo.");

    // Cuenta de cobro de comisiones: invite, then resend.
    await openMenu(page, "Cobro de comisiones", "Cuenta de cobro de comisiones");
    expect(await page.getByTestId("payout-link-status").innerText()).toBe("Sin invitar");
    const payoutEmail = page.getByLabel("Email de la cuenta que cobra");
    await payoutEmail.fill("no-es-un-email");
    await page.getByRole("button", { name: "Enviar la invitación" }).click();
    await expect.poll(() => payoutEmail.getAttribute("aria-invalid")).toBe("true");
    const payoutTo = `${uniqueRef("cobra").toLowerCase()}@example.com`;
    await payoutEmail.fill(payoutTo);
    await page.getByRole("button", { name: "Enviar la invitación" }).click();
    await expect.poll(() => page.getByTestId("payout-link-status").innerText()).toBe("Invitación pendiente");
    await page.getByRole("button", { name: "Reenviar la invitación" }).click();
    await expect.poll(() => page.getByRole("status").first().innerText()).toBe(`Reenviamos la invitación a ${payoutTo}.`);
    expect(mailsTo(payoutTo)).toHaveLength(2);

    // Ganancias: this month's payment, a range the API refuses, and the CSV with the session's token.
    await openMenu(page, "Ganancias", "Ganancias");
    await expect.poll(() => page.getByTestId("earnings-gross").innerText()).toBe("$ 1.500,00");
    expect(await page.getByTestId("earnings-count").innerText()).toBe("1");
    expect(await page.getByTestId("earnings-range").innerText()).toMatch(/^Del 01\/\d\d\/\d{4} al \d\d\/\d\d\/\d{4}$/);
    expect(await page.getByRole("row", { name: new RegExp(integration.charge.referenceId) }).innerText()).toContain("$ 1.500,00");
    const startDate = page.getByLabel("Desde");
    await startDate.fill("2030-01-10");
    await page.getByLabel("Hasta").fill("2030-01-01");
    await page.getByRole("button", { name: "Ver", exact: true }).click();
    await expect.poll(() => startDate.getAttribute("aria-invalid")).toBe("true");
    await startDate.fill("");
    await page.getByLabel("Hasta").fill("");
    await page.getByRole("button", { name: "Ver", exact: true }).click();
    await expect.poll(() => page.getByTestId("earnings-gross").innerText()).toBe("$ 1.500,00");
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Descargar CSV" }).click()]);
    expect(download.suggestedFilename()).toMatch(/^ganancias-\d{4}-\d\d-01-\d{4}-\d\d-\d\d\.csv$/);
    const csv = readFileSync((await download.path())!, "utf8");
    expect(csv.split("\n")[0]).toContain("paymentId");
    expect(csv).toContain(integration.charge.referenceId);

    // Mensajes de chat: the cap, a figure below it refused next to its field, then a request.
    await openMenu(page, "Mensajes de chat", "Mensajes de chat");
    expect(await page.getByTestId("message-cap").innerText()).toBe("20 mensajes");
    const perDay = page.getByLabel("Mensajes por día");
    await perDay.fill("10");
    await page.getByLabel("Motivo").fill("Más avisos por WhatsApp en época de cuotas.");
    await page.getByRole("button", { name: "Enviar el pedido" }).click();
    await expect.poll(() => perDay.getAttribute("aria-invalid")).toBe("true");
    await perDay.fill("500");
    await page.getByRole("button", { name: "Enviar el pedido" }).click();
    await expect.poll(() => page.locator(".list").innerText()).toContain("500 por día");
    expect(await page.locator(".list").innerText()).toContain("Pendiente");
    // A second one while the first is pending.
    await perDay.fill("600");
    await page.getByLabel("Motivo").fill("Otra campaña.");
    await page.getByRole("button", { name: "Enviar el pedido" }).click();
    await expect.poll(() => page.getByRole("alert").first().innerText()).toContain("Ya tenés un pedido pendiente");

    // Comercios: unlinking says what it does before it happens.
    await openMenu(page, "Comercios", "Comercios");
    await merchant.getByRole("button", { name: "Desvincular" }).click();
    const confirmation = page.getByRole("group", { name: `Desvincular ${sandbox.merchant.email}` });
    expect(await confirmation.innerText()).toContain("sus tokens dejan de funcionar en la API de Integración");
    await confirmation.getByRole("button", { name: "Sí, desvincular" }).click();
    // The Sandbox set's merchant leaves the list; the test tokens' merchant stays.
    await expect.poll(() => page.getByRole("region").filter({ hasText: sandbox.merchant.email }).count()).toBe(0);
    expect(await page.getByRole("region").count()).toBe(1);
    expect(await page.getByRole("status").first().innerText()).toBe(`Se desvinculó ${sandbox.merchant.email}.`);

    expect(watched.otherOrigins()).toEqual([]);
    // Refused on purpose: the commission, the offer, the payout email, the range, the cap twice.
    expect(watched.problems({ expectedFailures: 6 })).toEqual([]);
    await page.close();
  });

  it("a platform admin edits a client, suspends and reinstates it, adds an admin and resends its welcome, decides chat-cap requests and reads the platform's earnings", async () => {
    const integration = await integrationWithPayment();
    const sandbox = integration.merchant.sandbox;
    const askCap = async (requestedPerDay: number) => {
      const asked = await integration.admin.call("POST", "/my-integration/message-cap-requests", { requestedPerDay, reason: "Campaña de cobranza." });
      expect(asked.status, asked.text).toBe(201);
    };
    await askCap(500);
    const { page, watched } = await openSignedIn(sandbox.platformAdmin);

    // The client: its profile edited, with a refused email under its field.
    await page.getByRole("link", { name: sandbox.integration.name, exact: true }).click();
    await page.getByRole("heading", { name: sandbox.integration.name, level: 1 }).waitFor();
    await page.getByText("Editar los datos").click();
    const contactEmail = page.getByLabel("Email de contacto");
    await contactEmail.fill("no-es-un-email");
    await page.getByRole("button", { name: "Guardar los datos" }).click();
    await expect.poll(() => contactEmail.getAttribute("aria-invalid")).toBe("true");
    await contactEmail.fill("cobranzas@example.com");
    await page.getByLabel("Descripción").fill("Cuotas del colegio.");
    await page.getByRole("button", { name: "Guardar los datos" }).click();
    await page.getByText("Datos guardados.").waitFor();
    await expect.poll(() => page.locator(".facts").first().innerText()).toContain("cobranzas@example.com");

    // Suspended with a reason (an empty one refused), then reinstated.
    const suspension = page.getByRole("region", { name: "Suspensión" });
    await suspension.getByRole("button", { name: "Suspender" }).click();
    await expect.poll(() => suspension.getByLabel("Motivo de la suspensión").getAttribute("aria-invalid")).toBe("true");
    await suspension.getByLabel("Motivo de la suspensión").fill("Falta la documentación.");
    await suspension.getByRole("button", { name: "Suspender" }).click();
    await expect
      .poll(() => suspension.getByTestId("suspension").innerText())
      .toMatch(/^Suspendida desde el \d\d\/\d\d\/\d{4} \d\d:\d\d: Falta la documentación\.$/);
    await suspension.getByRole("button", { name: "Reactivar" }).click();
    await suspension.getByRole("button", { name: "Suspender" }).waitFor();

    // Admins: the integration's admin listed; a new one invited, then welcomed again.
    const admins = page.getByRole("region", { name: "Administradores" });
    await expect.poll(() => admins.locator(".list").innerText()).toContain(sandbox.integrationAdmin.email);
    const adminEmail = admins.getByLabel("Email del administrador");
    await adminEmail.fill("no-es-un-email");
    await admins.getByRole("button", { name: "Agregar el administrador" }).click();
    await expect.poll(() => adminEmail.getAttribute("aria-invalid")).toBe("true");
    const newAdmin = `${uniqueRef("admin").toLowerCase()}@example.com`;
    await adminEmail.fill(newAdmin);
    await admins.getByRole("button", { name: "Agregar el administrador" }).click();
    await expect.poll(() => admins.locator(".list").innerText()).toContain(newAdmin);
    expect(await admins.getByRole("listitem").filter({ hasText: newAdmin }).innerText()).toContain("Invitado, sin ingresar");
    expect(mailsTo(newAdmin)).toHaveLength(1);
    await admins.getByRole("button", { name: `Reenviar la bienvenida a ${newAdmin}` }).click();
    await expect.poll(() => admins.getByRole("status").innerText()).toBe(`Enviamos a ${newAdmin} una bienvenida con una contraseña temporal nueva.`);
    expect(mailsTo(newAdmin)).toHaveLength(2);

    // The chat-cap queue: approved with another figure (one below the cap refused), then a second
    // request rejected with a reason.
    await openMenu(page, "Pedidos de mensajes", "Pedidos de mensajes");
    let request = page.getByRole("region", { name: sandbox.integration.name });
    const figure = request.getByLabel("Tope a otorgar");
    await figure.fill("5");
    await request.getByRole("button", { name: "Aprobar" }).click();
    await expect.poll(() => figure.getAttribute("aria-invalid")).toBe("true");
    await figure.fill("800");
    await request.getByRole("button", { name: "Aprobar" }).click();
    await expect.poll(() => request.getByRole("status").innerText()).toBe("Pedido aprobado.");
    expect(await request.locator(".facts").innerText()).toContain("Aprobado: 800 por día");
    await askCap(1000);
    await page.reload();
    request = page.getByRole("region", { name: sandbox.integration.name });
    await expect.poll(() => request.locator(".facts").innerText()).toContain("1.000 mensajes por día");
    await request.getByRole("button", { name: "Rechazar" }).click();
    await expect.poll(() => request.getByLabel("Motivo del rechazo").getAttribute("aria-invalid")).toBe("true");
    await request.getByLabel("Motivo del rechazo").fill("Por ahora alcanza con 800.");
    await request.getByRole("button", { name: "Rechazar" }).click();
    await expect.poll(() => request.getByRole("status").innerText()).toBe("Pedido rechazado.");
    await page.getByLabel("Estado").selectOption("");
    await expect.poll(() => page.getByRole("region", { name: sandbox.integration.name }).count()).toBe(2);
    const integrationAdmin = await signedInAdmin(t, sandbox.integrationAdmin);
    expect((await integrationAdmin.call("GET", "/my-integration/message-cap-requests")).json.currentPerDay).toBe(800);

    // The platform's earnings: this integration's payment, alone when filtered to it.
    await openMenu(page, "Ganancias", "Ganancias de la plataforma");
    await expect.poll(() => page.getByRole("row", { name: new RegExp(sandbox.integration.name) }).innerText()).toContain("$ 1.500,00");
    await page.getByLabel("Integración").selectOption({ label: sandbox.integration.name });
    await page.getByRole("button", { name: "Ver", exact: true }).click();
    await expect.poll(() => page.getByTestId("platform-gross").innerText()).toBe("$ 1.500,00");
    expect(await page.getByTestId("platform-merchant-net").innerText()).toBe("$ 1.500,00");
    expect(await page.getByRole("row").count()).toBe(2);

    expect(watched.otherOrigins()).toEqual([]);
    // Refused on purpose: the contact email, the empty suspension reason, the admin's email, the figure, the empty rejection.
    expect(watched.problems({ expectedFailures: 5 })).toEqual([]);
    await page.close();
  });

  it("a platform admin creates a client with every field the API takes (a wrong URL named by its line), reads each client's setup progress, and changes its logout URLs", async () => {
    const integration = await integrationWithPayment(); // its admin has signed in
    const sandbox = integration.merchant.sandbox;
    const own = await t.database.db
      .selectFrom("integration_clients")
      .select("id")
      .where("provider_client_id", "=", sandbox.integration.clientId)
      .executeTakeFirstOrThrow();
    await t.database.db
      .insertInto("client_urls")
      .values({
        integration_client_id: own.id,
        url_type: "webhook",
        url: "https://app.example.com/webhooks",
        created_at: t.clock.now(),
        updated_at: t.clock.now(),
      })
      .execute();
    const { page, watched } = await openSignedIn(sandbox.platformAdmin);
    await page.getByRole("heading", { name: "Integraciones", level: 1 }).waitFor();

    const name = `Club ${uniqueRef("C").slice(-8)}`;
    const firstAdminEmail = `${uniqueRef("primer").toLowerCase()}@example.com`;
    await page.getByText("Crear una integración").click();
    await page.getByLabel("Nombre", { exact: true }).fill(name);
    await page.getByLabel("Razón social").fill("Club Social S.A.");
    await page.getByLabel("Email de contacto").fill("club@example.com");
    await page.getByLabel("Descripción").fill("Cuotas sociales del club.");
    await page.getByLabel("URL del logo").fill("https://cdn.example.com/club.png");
    await page.getByLabel("Scopes de OAuth").fill("openid\nemail");
    await page.getByLabel("URIs de redirección").fill("https://club.example.com/oauth/callback\nhttp://localhost:8080/callback");
    const logoutField = page.getByLabel("URLs de cierre de sesión");
    await logoutField.fill("https://club.example.com/chau\n\nftp://club.example.com/chau");
    await page.getByLabel("Email del primer administrador").fill(firstAdminEmail);
    await page.getByRole("button", { name: "Crear la integración" }).click();
    await expect.poll(() => logoutField.getAttribute("aria-invalid")).toBe("true");
    const logoutError = page.locator(`[id="${(await logoutField.getAttribute("aria-describedby"))!.split(" ").at(-1)}"]`);
    expect(await logoutError.innerText()).toMatch(/^Línea 2 \(ftp:\/\/club\.example\.com\/chau\): /);
    await logoutField.fill("https://club.example.com/chau");
    await page.getByRole("button", { name: "Crear la integración" }).click();
    await page.locator('[data-secret="clientSecret"]').waitFor();
    await page.getByRole("button", { name: "Ya lo guardé" }).click();

    const created = await t.database.db
      .selectFrom("integration_clients")
      .select(["id", "scopes", "logo_url", "description", "redirect_uris", "logout_urls"])
      .where("name", "=", name)
      .executeTakeFirstOrThrow();
    expect(created).toMatchObject({
      scopes: ["openid", "email"],
      logo_url: "https://cdn.example.com/club.png",
      description: "Cuotas sociales del club.",
      redirect_uris: ["https://club.example.com/oauth/callback", "http://localhost:8080/callback"],
      logout_urls: ["https://club.example.com/chau"],
    });

    // Each client's setup progress, in words.
    const progress = async (clientName: string) => {
      const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: clientName, exact: true }) });
      return Promise.all(
        ["firstAdminEmailSent", "firstAdminLoggedIn", "webhookConfigured"].map((column) => row.locator(`[data-column="${column}"]`).innerText()),
      );
    };
    expect(await page.getByRole("columnheader").allInnerTexts()).toEqual(
      expect.arrayContaining(["Bienvenida enviada", "Un administrador ingresó", "Webhook configurado"]),
    );
    await expect.poll(() => progress(name)).toEqual(["Sí", "No", "No"]);
    expect(await progress(sandbox.integration.name)).toEqual(["No", "Sí", "Sí"]);

    // The logout URLs changed after creation: a wrong line named, then the list replaced.
    await page.getByRole("link", { name, exact: true }).click();
    await page.getByRole("heading", { name, level: 1 }).waitFor();
    await page.getByText("Editar los datos").click();
    const logoutUrls = page.getByLabel("URLs de cierre de sesión");
    expect(await logoutUrls.inputValue()).toBe("https://club.example.com/chau");
    await logoutUrls.fill("https://club.example.com/chau\nhttps://*/adios");
    await page.getByRole("button", { name: "Guardar los datos" }).click();
    await expect.poll(() => logoutUrls.getAttribute("aria-invalid")).toBe("true");
    const editError = page.locator(`[id="${(await logoutUrls.getAttribute("aria-describedby"))!.split(" ").at(-1)}"]`);
    expect(await editError.innerText()).toMatch(/^Línea 2 \(https:\/\/\*\/adios\): /);
    await logoutUrls.fill("https://club.example.com/adios\nhttps://club.example.com/chau");
    await page.getByRole("button", { name: "Guardar los datos" }).click();
    await page.getByText("Datos guardados.").waitFor();
    const platform = await signedInAdmin(t, sandbox.platformAdmin);
    expect((await platform.call("GET", `/integration-admin/setup/clients/${created.id}`)).json.logoutUrls).toEqual([
      "https://club.example.com/adios",
      "https://club.example.com/chau",
    ]);
    await page.reload();
    await page.getByText("Editar los datos").click();
    expect(await page.getByLabel("URLs de cierre de sesión").inputValue()).toBe("https://club.example.com/adios\nhttps://club.example.com/chau");

    expect(watched.otherOrigins()).toEqual([]);
    // Refused on purpose: the ftp logout URL at creation, the wildcard one in the edit.
    expect(watched.problems({ expectedFailures: 2 })).toEqual([]);
    await page.close();
  });

  it("a platform admin adds a merchant account (a wrong CUIT marked under its field), finds it, and suspends it with the same form", async () => {
    const sandbox = await t.sandbox();
    const { page, watched } = await openSignedIn(sandbox.platformAdmin);
    await openMenu(page, "Cuentas de comercio", "Cuentas de comercio");
    const providerMerchantId = uniqueRef("wallet");
    const email = `${uniqueRef("comercio")}@example.com`;
    await page.getByText("Agregar o actualizar una cuenta").click();
    const fill = async (status: string, cuit: string) => {
      await page.getByLabel("Id del proveedor").fill(providerMerchantId);
      await page.getByLabel("Email", { exact: true }).fill(email);
      await page.getByLabel("Razón social").fill("La Espiga S.R.L.");
      await page.getByLabel("CUIT").fill(cuit);
      await page.getByLabel("Nombre de fantasía").fill("Panadería La Espiga");
      await page.getByLabel("Estado", { exact: true }).first().selectOption(status);
      await page.getByRole("button", { name: "Guardar" }).click();
    };
    await fill("active", "30712345672");
    await expect.poll(() => page.getByLabel("CUIT").getAttribute("aria-invalid")).toBe("true");
    await fill("active", "30-71234567-1");
    await page.getByText("Se creó la cuenta Panadería La Espiga").waitFor();
    expect(mailsTo(email)).toHaveLength(1);

    await page.getByLabel("Buscar").fill(providerMerchantId);
    await page.getByRole("button", { name: "Buscar" }).click();
    const row = page.getByRole("row").filter({ hasText: email });
    await expect.poll(() => row.innerText()).toContain("Activa");
    await fill("suspended", "30712345671");
    await page.getByText("Se actualizó la cuenta Panadería La Espiga").waitFor();
    await expect.poll(() => row.innerText()).toContain("Suspendida");

    expect(watched.otherOrigins()).toEqual([]);
    expect(watched.problems({ expectedFailures: 1 })).toEqual([]);
    await page.close();
  });

  it("fits a phone's screen on every new page of both roles", async () => {
    const integration = await integrationWithPayment();
    const sandbox = integration.merchant.sandbox;
    for (const [credentials, pages] of [
      [
        sandbox.integrationAdmin,
        [
          ["Comercios", "Comercios"],
          ["Oferta", "Oferta"],
          ["Cobro de comisiones", "Cuenta de cobro de comisiones"],
          ["Ganancias", "Ganancias"],
          ["Mensajes de chat", "Mensajes de chat"],
        ],
      ],
      [
        sandbox.platformAdmin,
        [
          ["Cuentas de comercio", "Cuentas de comercio"],
          ["Pedidos de mensajes", "Pedidos de mensajes"],
          ["Ganancias", "Ganancias de la plataforma"],
        ],
      ],
    ] as const) {
      const page = await browser.context.newPage();
      page.setDefaultTimeout(10_000);
      await page.setViewportSize({ width: 375, height: 667 });
      const watched = watchPage(page, t.adminUrl);
      await page.goto(`${t.adminUrl}/portal/`);
      await page.getByLabel("Email").fill(credentials.email);
      await page.getByLabel("Contraseña", { exact: true }).fill(credentials.password);
      await page.getByRole("button", { name: "Ingresar" }).click();
      await page.getByRole("button", { name: "Menú" }).waitFor();
      for (const [menuLabel, heading] of pages) {
        await page.getByRole("button", { name: "Menú" }).click();
        await page.getByRole("link", { name: menuLabel, exact: true }).click();
        await page.getByRole("heading", { name: heading, exact: true, level: 1 }).waitFor();
        await page.locator(".loading").first().waitFor({ state: "detached" });
        expect(await page.evaluate("document.documentElement.scrollWidth"), menuLabel).toBeLessThanOrEqual(375);
      }
      if (credentials === sandbox.platformAdmin) {
        await page.goto(`${t.adminUrl}/portal/clients`);
        await page.getByRole("link", { name: sandbox.integration.name, exact: true }).click();
        await page.getByRole("heading", { name: "Administradores" }).waitFor();
        await page.locator(".loading").first().waitFor({ state: "detached" });
        expect(await page.evaluate("document.documentElement.scrollWidth"), "client").toBeLessThanOrEqual(375);
      }
      expect(watched.otherOrigins()).toEqual([]);
      expect(watched.problems({ expectedFailures: 0 })).toEqual([]);
      await page.close();
    }
  });
});
