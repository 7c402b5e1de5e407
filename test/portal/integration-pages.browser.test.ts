// The integration's settings in the portal, in a real browser against a live Sandbox: webhooks (URLs with
// their verification, the one that receives the events and deleting it, subscriptions, signing secret, the
// test webhook's statuses), events with resend, the profile with the logo and the client secret, tenants of
// a multitenant integration, and widget keys.
// As in portal.browser.test.ts: nothing leaves the origin, no console error, and a phone's width fits.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import sharp from "sharp";
import { launchBrowser, type TestBrowser } from "../../scripts/chromium.ts";
import { chargeBody, dueDateIn } from "../helpers/charges.ts";
import { sandboxIntegration } from "../helpers/sandbox-admin.ts";
import { read, serviceForFile, TEST_SECRET_KEY } from "../helpers/service.ts";
import { SecretKeyring } from "../../domain/secrets/keyring.ts";
import { placeOf, WEBHOOK_SIGNING_SECRET } from "../../domain/secrets/sealed-columns.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";
import { INTEGRATION_ADMIN_MENU, openSignedIn } from "./watch-page.ts";

const t = serviceForFile({ env: { COBRO_AUTH_URL: "", COBRO_ALLOW_LOOPBACK_URLS: "true" }, parts: ["integration", "auth", "admin", "worker"] });
let browser: TestBrowser;
let receiver: WebhookReceiver;
let integration: Awaited<ReturnType<typeof sandboxIntegration>>;
const testKeyring = SecretKeyring.parse(TEST_SECRET_KEY);

beforeAll(async () => {
  [browser, receiver] = await Promise.all([launchBrowser(), startWebhookReceiver()]);
  integration = await sandboxIntegration(t);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await receiver?.close();
});

/** A new tab signed in as the integration admin, on `path`. */
const signedInPage = (path: string, options: { width?: number } = {}) =>
  openSignedIn(browser, t.adminUrl, integration.merchant.sandbox.integrationAdmin, { path, ...options });

const menuLinks = (page: Page) => page.getByRole("navigation", { name: "Secciones" }).getByRole("link").allInnerTexts();

describe("the integration's settings in the portal", { timeout: 90_000 }, () => {
  it("webhooks: a URL registered and tested, subscriptions, the signing secret revealed and rotated, and the test webhook's statuses", async () => {
    const { page, watched } = await signedInPage("/webhooks");
    await page.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor();
    expect(await menuLinks(page)).toEqual(INTEGRATION_ADMIN_MENU);

    // Not subscribed to payment.unmatched yet: the test says so, in the service's words.
    const testResult = page.getByTestId("test-webhook-result");
    await page.getByLabel("Motivo del pago sin imputar").selectOption("already_paid");
    await page.getByRole("button", { name: "Enviar el webhook de prueba" }).click();
    await expect.poll(() => testResult.locator("[data-status]").getAttribute("data-status")).toBe("not_subscribed");
    expect(await testResult.innerText()).toContain("no está en tus eventos suscriptos");

    // Subscribing with the checkboxes of the catalog.
    const unmatched = page.getByRole("checkbox", { name: /payment\.unmatched/ });
    expect(await unmatched.isChecked()).toBe(false);
    expect(await page.getByRole("checkbox", { name: /payment_request\.payment_received/ }).isChecked()).toBe(true);
    await unmatched.check();
    await page.getByRole("button", { name: "Guardar las suscripciones" }).click();
    await page.getByText("Suscripciones guardadas.").waitFor();

    // No webhook URL: nowhere to send it.
    await page.getByRole("button", { name: "Enviar el webhook de prueba" }).click();
    await expect.poll(() => testResult.locator("[data-status]").getAttribute("data-status")).toBe("no_target");

    // A URL the contract refuses is marked under its field; then the receiver's URL, verified at once.
    const urlField = page.getByLabel("URL", { exact: true });
    await urlField.fill("no-es-una-url");
    await page.getByRole("button", { name: "Registrar la URL" }).click();
    await expect.poll(() => urlField.getAttribute("aria-invalid")).toBe("true");
    await urlField.fill(receiver.url("/portal-hook"));
    await page.getByRole("button", { name: "Registrar la URL" }).click();
    const registered = page.getByRole("listitem", { name: receiver.url("/portal-hook") });
    await expect.poll(() => registered.locator("[data-verification]").getAttribute("data-verification")).toBe("ok");
    expect(await urlField.getAttribute("aria-invalid")).toBeNull();

    // Tested again while the receiver answers 500: the status in words.
    receiver.answerNext({ status: 500 });
    await registered.getByRole("button", { name: "Probar" }).click();
    await expect.poll(() => registered.locator("[data-verification]").getAttribute("data-verification")).toBe("non_2xx");
    expect(await registered.locator("[data-verification]").innerText()).toContain("HTTP 500");

    // Edited to a port where nothing listens: unreachable.
    await registered.getByRole("button", { name: "Editar" }).click();
    await registered.getByLabel("URL nueva").fill("http://127.0.0.1:9/portal-hook");
    await registered.getByRole("button", { name: "Guardar la URL" }).click();
    const edited = page.getByRole("listitem", { name: "http://127.0.0.1:9/portal-hook" });
    await expect.poll(() => edited.locator("[data-verification]").getAttribute("data-verification")).toBe("unreachable");
    await edited.getByRole("button", { name: "Editar" }).click();
    await edited.getByLabel("URL nueva").fill(receiver.url("/portal-hook"));
    await edited.getByRole("button", { name: "Guardar la URL" }).click();
    await expect.poll(() => registered.locator("[data-verification]").getAttribute("data-verification")).toBe("ok");

    // Loaded again, the page lists the registered URL (from GET /my-integration/urls).
    await page.reload();
    await page.getByRole("listitem", { name: receiver.url("/portal-hook") }).waitFor();

    // Delivered to the receiver, signed.
    const before = receiver.at("/portal-hook").length;
    await page.getByRole("button", { name: "Enviar el webhook de prueba" }).click();
    await expect.poll(() => testResult.locator("[data-status]").getAttribute("data-status")).toBe("delivered");
    expect(await testResult.innerText()).toContain("se entregó correctamente");
    const [delivered] = (await receiver.waitFor(before + 1, { path: "/portal-hook" })).slice(before);
    expect(delivered!.json).toMatchObject({ event: "payment.unmatched", test: true });

    // The receiver failing: the status it answered.
    receiver.answerNext({ status: 503 });
    await page.getByRole("button", { name: "Enviar el webhook de prueba" }).click();
    await expect.poll(() => testResult.locator("[data-status]").getAttribute("data-status")).toBe("delivery_failed");
    expect(await testResult.innerText()).toContain("respondió HTTP 503");

    // The signing secret: revealed on request, rotated after a confirmation, the new one shown. A secret
    // issued before Standard Webhooks keying (legacy) comes with a note that asks to rotate it.
    const legacy = `whsec_${randomBytes(24).toString("base64url")}`;
    const integrationId = (
      await t.database.db
        .selectFrom("integration_clients")
        .select("id")
        .where("provider_client_id", "=", integration.merchant.sandbox.integration.clientId)
        .executeTakeFirstOrThrow()
    ).id;
    const legacyRow = { secret: testKeyring.seal(legacy, placeOf(WEBHOOK_SIGNING_SECRET, integrationId)), scheme: "legacy" as const };
    await t.database.db
      .insertInto("webhook_signing_secrets")
      .values({ integration_client_id: integrationId, ...legacyRow, created_at: new Date() })
      .onConflict((oc) => oc.column("integration_client_id").doUpdateSet(legacyRow))
      .execute();
    await page.getByRole("button", { name: "Mostrar el secreto" }).click();
    const secret = page.locator('[data-secret="webhookSigningSecret"]');
    const legacyNote = page.getByTestId("legacy-secret");
    expect(await secret.innerText()).toBe(legacy);
    expect(await legacyNote.innerText()).toContain("Te recomendamos rotarlo");
    await page.getByRole("button", { name: "Rotar el secreto" }).click();
    await page.getByRole("button", { name: "Sí, rotar el secreto" }).click();
    await page.getByText("Secreto rotado").waitFor();
    const rotated = await secret.innerText();
    expect(rotated).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(await legacyNote.count()).toBe(0);

    expect(watched.otherOrigins()).toEqual([]);
    // The refused URL.
    expect(watched.problems({ expectedFailures: 1 })).toEqual([]);
    await page.close();
  });

  it("webhooks: the URL that receives the events is marked; deleted after a confirmation, the mark moves to the previous one", async () => {
    const { page, watched } = await signedInPage("/webhooks");
    const urlField = page.getByLabel("URL", { exact: true });
    const marks = page.getByTestId("receives-events");
    await urlField.waitFor(); // the list is loaded
    // The URL that receives the events before this test (the first test's, when it ran): it gets them back at the end.
    const markedBefore = async () => ((await marks.count()) === 0 ? null : page.locator("li.url-item", { has: marks }).getAttribute("aria-label"));
    const before = await markedBefore();
    const register = async (url: string) => {
      t.clock.advance(1000); // a later registration than any before: it receives the events
      await urlField.fill(url);
      await page.getByRole("button", { name: "Registrar la URL" }).click();
      await expect.poll(() => page.getByRole("listitem", { name: url }).locator("[data-verification]").getAttribute("data-verification")).toBe("ok");
    };
    await register(receiver.url("/portal-previous"));
    await register(receiver.url("/portal-latest"));
    const previous = page.getByRole("listitem", { name: receiver.url("/portal-previous") });
    const latest = page.getByRole("listitem", { name: receiver.url("/portal-latest") });
    await expect.poll(() => marks.count()).toBe(1);
    expect(await latest.getByTestId("receives-events").innerText()).toBe("Activa: recibe los eventos");

    // Asked first; cancelled, nothing changes.
    await latest.getByRole("button", { name: "Eliminar" }).click();
    const confirm = latest.getByRole("group", { name: "Confirmar la eliminación" });
    expect(await confirm.innerText()).toContain("Es la URL activa");
    await confirm.getByRole("button", { name: "Cancelar" }).click();
    expect(await confirm.count()).toBe(0);
    expect(await latest.count()).toBe(1);

    // Deleted: gone, said so, and the previous one now receives the events.
    await latest.getByRole("button", { name: "Eliminar" }).click();
    await confirm.getByRole("button", { name: "Sí, eliminar" }).click();
    await page.getByText(`Se eliminó la URL ${receiver.url("/portal-latest")}.`).waitFor();
    expect(await latest.count()).toBe(0);
    await previous.getByTestId("receives-events").waitFor();
    expect(await marks.count()).toBe(1);
    // The verification seen on registration stays on the page.
    expect(await previous.locator("[data-verification]").getAttribute("data-verification")).toBe("ok");

    // As the service has it.
    await page.reload();
    await page
      .getByRole("listitem", { name: receiver.url("/portal-previous") })
      .getByTestId("receives-events")
      .waitFor();
    expect(await page.getByRole("listitem", { name: receiver.url("/portal-latest") }).count()).toBe(0);
    expect(await page.getByTestId("receives-events").count()).toBe(1);

    // The previous one deleted too: the events go back to where they went before this test.
    const again = page.getByRole("listitem", { name: receiver.url("/portal-previous") });
    await again.getByRole("button", { name: "Eliminar" }).click();
    await again.getByRole("group", { name: "Confirmar la eliminación" }).getByRole("button", { name: "Sí, eliminar" }).click();
    await page.getByText(`Se eliminó la URL ${receiver.url("/portal-previous")}.`).waitFor();
    await expect.poll(markedBefore).toBe(before);

    expect(watched.otherOrigins()).toEqual([]);
    expect(watched.problems({ expectedFailures: 0 })).toEqual([]);
    await page.close();
  });

  it("events: filtered by name, and sent again with resend", async () => {
    const charge = await integration.createCharge(chargeBody({ referenceId: uniqueRef("PORTAL-EV"), amount: 700, dueDates: [dueDateIn(t.clock, 10)] }));
    const before = receiver.at("/portal-hook").length;
    expect((await integration.admin.simulate({ cvu: charge.CVU, amount: 700 })).status).toBe(200);
    await receiver.waitFor(before + 1, { path: "/portal-hook" });

    const { page, watched } = await signedInPage("/events");
    await page.getByRole("heading", { name: "Eventos", level: 1 }).waitFor();
    await page.getByLabel("Evento").selectOption("payment_request.payment_received");
    await expect.poll(() => new URL(page.url()).search).toBe("?event=payment_request.payment_received");
    const item = page.locator(".event-log li").first();
    await expect.poll(() => item.getByTestId("event-status").innerText()).toBe("Entregado");
    expect(await page.locator(".event-log li").count()).toBe(1);

    await item.getByRole("button", { name: "Reenviar" }).click();
    await item.getByText("Reenvío en camino").waitFor();
    const resent = await receiver.waitFor(before + 2, { path: "/portal-hook" });
    expect(resent.at(-1)!.headers["x-service-webhook-id"]).toBe(resent.at(-2)!.headers["x-service-webhook-id"]);

    // The other filter: nothing undelivered.
    await page.getByLabel("Entrega").selectOption("false");
    await page.getByText("No hay eventos con esos filtros.").waitFor();

    expect(watched.otherOrigins()).toEqual([]);
    expect(watched.problems({ expectedFailures: 0 })).toEqual([]);
    await page.close();
  });

  it("profile: the data edited (a wrong email under its field), a logo uploaded (a non-image refused in words), the client secret rotated and shown once", async () => {
    const { page, watched } = await signedInPage("/profile");
    await page.getByRole("heading", { name: "Perfil de la integración" }).waitFor();
    // The integration's admins, with their state.
    const admins = page.getByRole("region", { name: "Administradores" });
    await expect.poll(() => admins.innerText()).toContain(integration.merchant.sandbox.integrationAdmin.email);
    expect(await admins.innerText()).toContain("Activo");
    const email = page.getByLabel("Email de contacto");
    await email.fill("no-es-un-email");
    await page.getByRole("button", { name: "Guardar los datos" }).click();
    await expect.poll(() => email.getAttribute("aria-invalid")).toBe("true");
    await email.fill("integraciones@example.com");
    await page.getByLabel("Nombre", { exact: true }).fill("Colegio Renombrado");
    await page.getByRole("button", { name: "Guardar los datos" }).click();
    await page.getByText("Datos guardados.").waitFor();
    expect((await integration.admin.call("GET", "/my-integration/me")).json).toMatchObject({
      name: "Colegio Renombrado",
      contactEmail: "integraciones@example.com",
    });

    // The logo: a text file called PNG is refused by its bytes; a PNG made here is accepted.
    const logo = page.getByLabel("Imagen");
    await logo.setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: Buffer.from("esto no es una imagen") });
    await page.getByRole("button", { name: "Subir el logo" }).click();
    await expect.poll(() => logo.getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator("#logo-file-error").innerText()).toMatch(/^(El archivo no es una imagen|No se pudo leer la imagen)/);
    const png = await sharp({ create: { width: 64, height: 32, channels: 3, background: { r: 11, g: 92, b: 173 } } })
      .png()
      .toBuffer();
    await logo.setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: png });
    await page.getByRole("img", { name: "El logo elegido" }).waitFor();
    await page.getByRole("button", { name: "Subir el logo" }).click();
    await page.getByText("Logo subido.").waitFor();
    const logoUrl = (await integration.admin.call("GET", "/my-integration/me")).json.logoUrl as string;
    expect(logoUrl).toMatch(/\/integration\/oauth2\/logos\//);
    expect(await logo.getAttribute("aria-invalid")).toBeNull();
    // After a reload, the stored logo is shown from the portal's own origin.
    await page.reload();
    const current = page.getByRole("img", { name: "El logo actual" });
    await current.waitFor();
    await expect.poll(() => current.evaluate((image) => (image as unknown as { complete: boolean; naturalWidth: number }).naturalWidth)).toBe(64);
    expect(await page.getByTestId("logo-url").innerText()).toBe(logoUrl);

    // The client secret: a confirmation, then shown once.
    await page.getByLabel("Período de gracia (minutos, opcional)").fill("5");
    await page.getByRole("button", { name: "Rotar el secreto del cliente" }).click();
    await page.getByRole("button", { name: "Sí, rotar el secreto del cliente" }).click();
    const clientSecret = page.locator('[data-secret="clientSecret"]');
    await clientSecret.waitFor();
    const value = await clientSecret.innerText();
    expect(value.length).toBeGreaterThan(20);
    expect(await page.locator("main").innerText()).toContain("El secreto anterior funciona hasta el");
    await page.getByRole("button", { name: "Ya lo guardé" }).click();
    expect(await page.locator("body").innerText()).not.toContain(value);

    // Made multitenant: the menu gains the tenants.
    await page.getByLabel("Tipo de integración").selectOption("multitenant");
    await page.getByRole("button", { name: "Guardar los datos" }).click();
    await expect.poll(() => menuLinks(page)).toContain("Sucursales");

    expect(watched.otherOrigins()).toEqual([]);
    // The wrong email and the refused logo.
    expect(watched.problems({ expectedFailures: 2 })).toEqual([]);
    await page.close();
  });

  it("the Admin host forwards a logo's GET to the Auth API, and no other GET", async () => {
    const logoUrl = (await integration.admin.call("GET", "/my-integration/me")).json.logoUrl as string;
    const direct = await fetch(logoUrl);
    const forwarded = await fetch(`${t.adminUrl}/portal/auth-api${new URL(logoUrl).pathname}`);
    expect(forwarded.status).toBe(200);
    expect(forwarded.headers.get("content-type")).toBe("image/webp");
    expect(Buffer.from(await forwarded.arrayBuffer())).toEqual(Buffer.from(await direct.arrayBuffer()));
    const unknown = await read(await fetch(`${t.adminUrl}/portal/auth-api/integration/oauth2/logos/9b2f7c4e-1a3d-4e5f-8a6b-7c8d9e0f1a2b`));
    expect(unknown.status).toBe(404);
    const other = await read(await fetch(`${t.adminUrl}/portal/auth-api/integration/oauth2/authorize`));
    expect(other.status).toBe(404);
    expect(other.json).toMatchObject({ code: "RouteNotFound" });
    // Only a logo's id goes through: an encoded way up to another Auth path does not.
    for (const logoId of ["%2E%2E", "..%2Fauthorize", "not-a-logo-id"]) {
      const refused = await read(await fetch(`${t.adminUrl}/portal/auth-api/integration/oauth2/logos/${logoId}`));
      expect(refused.status, logoId).toBe(404);
      expect(refused.json, logoId).toMatchObject({ code: "RouteNotFound" });
    }
  });

  it("tenants of a multitenant integration: created, a repeated key refused, edited, the validation token set and removed, deleted", async () => {
    expect((await integration.admin.call("PATCH", "/my-integration", { type: "multitenant" })).status).toBe(200);
    const { page, watched } = await signedInPage("/tenants");
    await page.getByRole("heading", { name: "Sucursales", level: 1 }).waitFor();
    await page.getByText("Todavía no hay sucursales.").waitFor();

    const create = page.getByRole("region", { name: "Crear una sucursal" });
    const fillTenant = async (key: string, url: string) => {
      await create.getByLabel("Clave").fill(key);
      await create.getByLabel("Nombre").fill("Sucursal Centro");
      await create.getByLabel("URL de webhook").fill(url);
      await create.getByRole("button", { name: "Crear la sucursal" }).click();
    };
    const url = create.getByLabel("URL de webhook");
    await fillTenant("sucursal-centro", "no-es-una-url");
    await expect.poll(() => url.getAttribute("aria-invalid")).toBe("true");
    await fillTenant("sucursal-centro", receiver.url("/centro"));
    const tenant = page.getByRole("region", { name: "Sucursal Centro" });
    await expect.poll(() => tenant.getByTestId("tenant-token").innerText()).toBe("Sin token");
    expect(await url.inputValue()).toBe("");

    await fillTenant("sucursal-centro", receiver.url("/centro"));
    await expect.poll(() => create.getByRole("alert").innerText()).toContain("Ya hay una sucursal con esa clave.");

    await tenant.getByRole("button", { name: "Editar" }).click();
    await tenant.getByLabel("Nombre").fill("Sucursal Centro Norte");
    await tenant.getByRole("button", { name: "Guardar la sucursal" }).click();
    const renamed = page.getByRole("region", { name: "Sucursal Centro Norte" });
    await renamed.waitFor();

    await renamed.getByLabel("Token nuevo").fill("token-de-la-sucursal");
    await renamed.getByRole("button", { name: "Guardar el token" }).click();
    await expect.poll(() => renamed.getByTestId("tenant-token").innerText()).toBe("Configurado");
    await renamed.getByRole("button", { name: "Quitar el token" }).click();
    await expect.poll(() => renamed.getByTestId("tenant-token").innerText()).toBe("Sin token");

    await renamed.getByRole("button", { name: "Eliminar" }).click();
    await renamed.getByRole("button", { name: "Sí, eliminar" }).click();
    await page.getByText("Todavía no hay sucursales.").waitFor();

    expect(watched.otherOrigins()).toEqual([]);
    // The refused URL and the repeated key.
    expect(watched.problems({ expectedFailures: 2 })).toEqual([]);
    await page.close();
  });

  it("widget keys: the publishable key created, the secret key shown once, allowed origins one per line with the wrong line named", async () => {
    const { page, watched } = await signedInPage("/widget-keys");
    await page.getByRole("heading", { name: "Claves del widget", level: 1 }).waitFor();
    await page.getByRole("button", { name: "Crear la clave publicable" }).click();
    await expect.poll(() => page.getByTestId("publishable-key").innerText()).toMatch(/^pk_/);
    expect(await page.getByTestId("secret-key").innerText()).toBe("Todavía no creada");

    await page.getByRole("button", { name: "Crear la clave secreta" }).click();
    const secretKey = page.locator('[data-secret="secretKey"]');
    await secretKey.waitFor();
    const value = await secretKey.innerText();
    await expect.poll(() => page.getByTestId("secret-key").innerText()).toBe(`…${value.slice(-4)}`);
    await page.getByRole("button", { name: "Ya lo guardé" }).click();
    expect(await page.locator("body").innerText()).not.toContain(value);

    // Rotating again asks first.
    await page.getByRole("button", { name: "Rotar la clave secreta" }).click();
    await page.getByRole("button", { name: "Sí, crear la clave nueva" }).click();
    await secretKey.waitFor();
    expect(await secretKey.innerText()).not.toBe(value);
    await page.getByRole("button", { name: "Ya lo guardé" }).click();

    const origins = page.getByLabel("Orígenes", { exact: true });
    await origins.fill("https://tienda.example.com\nno es un origen");
    await page.getByRole("button", { name: "Guardar los orígenes" }).click();
    await expect.poll(() => origins.getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator("#allowed-origins-error").innerText()).toContain("Línea 2 (no es un origen)");
    await origins.fill("https://tienda.example.com\nhttps://otra.example.com");
    await page.getByRole("button", { name: "Guardar los orígenes" }).click();
    await page.getByText("Orígenes guardados.").waitFor();
    expect((await integration.admin.call("GET", "/my-integration/api-keys")).json.allowedOrigins).toEqual([
      "https://tienda.example.com",
      "https://otra.example.com",
    ]);

    expect(watched.otherOrigins()).toEqual([]);
    expect(watched.problems({ expectedFailures: 1 })).toEqual([]);
    await page.close();
  });

  it("fits a phone's screen on every settings page", async () => {
    const { page, watched } = await signedInPage("/", { width: 375 });
    await page.getByRole("heading", { name: "Inicio" }).waitFor();
    for (const [menuLabel, heading] of [
      ["Webhooks", "Webhooks"],
      ["Eventos", "Eventos"],
      ["Sucursales", "Sucursales"],
      ["Claves del widget", "Claves del widget"],
      ["Perfil y logo", "Perfil de la integración"],
    ] as const) {
      await page.getByRole("button", { name: "Menú" }).click();
      await page.getByRole("link", { name: menuLabel, exact: true }).click();
      await page.getByRole("heading", { name: heading, exact: true, level: 1 }).waitFor();
      await expect.poll(() => page.locator(".loading").count()).toBe(0);
      expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
    }
    expect(watched.otherOrigins()).toEqual([]);
    expect(watched.problems({ expectedFailures: 0 })).toEqual([]);
    await page.close();
  });
});
