// Details of the portal that a person notices, in a real browser against a live Sandbox: one clock (the
// Sandbox's) wherever the portal says "hoy", the clock's offset in days and hours, Spanish labels with one
// name per thing, the Sandbox's redirect URI shown, a refusal said once, no console error on a page that
// has nothing to show yet, a header that fits a phone, and date inputs that hold the range shown.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Request } from "playwright-core";
import { launchBrowser, type TestBrowser } from "../../scripts/chromium.ts";
import { sandboxIntegration } from "../helpers/sandbox-admin.ts";
import { serviceForFile } from "../helpers/service.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";
import { openSignedIn } from "./watch-page.ts";

const t = serviceForFile({ env: { COBRO_AUTH_URL: "", COBRO_ALLOW_LOOPBACK_URLS: "true" }, parts: ["integration", "auth", "admin"] });
let browser: TestBrowser;
let integration: Awaited<ReturnType<typeof sandboxIntegration>>;
let receiver: WebhookReceiver;

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

describe("details of the portal", { timeout: 90_000 }, () => {
  it("the go-live page of an integration that never asked logs no error to the console", async () => {
    const { page, watched } = await signedInPage("/go-live");
    await page.getByText("Todavía no pediste la salida a producción.").waitFor();
    expect(watched.problems({ expectedFailures: 0 })).toEqual([]);
    await page.close();
  });

  it("at 375 px the header is one row and nothing overflows sideways", async () => {
    const { page } = await signedInPage("/", { width: 375 });
    await page.getByRole("heading", { name: "Inicio", level: 1 }).waitFor();
    // The rows the header's visible children sit on, by their vertical middles (8 px apart at least).
    const rows = await page.evaluate(`new Set([...document.querySelectorAll(".topbar > *")]
      .filter((child) => child.offsetParent !== null && getComputedStyle(child).position !== "absolute")
      .map((child) => Math.round((child.getBoundingClientRect().top + child.getBoundingClientRect().height / 2) / 8))).size`);
    expect(rows).toBe(1);
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
    await page.close();
  });

  it("the profile names the OAuth credentials in Spanish", async () => {
    const { page } = await signedInPage("/profile");
    await page.getByRole("heading", { name: "Secreto del cliente", level: 2 }).waitFor();
    const text = await page.locator("main").innerText();
    expect(text).toContain("ID de cliente");
    expect(text).not.toMatch(/Client secret/i);
    expect(await page.locator("main dt").allInnerTexts()).not.toContain("clientId");
    await page.close();
  });

  it("webhooks: one name for unmatched payments, redirect URIs in Spanish, the Sandbox's redirect URI shown", async () => {
    const { page } = await signedInPage("/webhooks");
    await page.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor();
    await page.getByRole("checkbox", { name: /payment\.unmatched/ }).waitFor();
    const main = page.locator("main");
    expect(await main.innerText()).not.toContain("sin conciliar");
    expect(await main.innerText()).toContain("Pago sin imputar");
    expect(await page.getByLabel("Tipo").locator("option").allInnerTexts()).toEqual(["URL de webhook", "URI de redirección"]);
    expect(await page.getByTestId("sandbox-redirect-uri").innerText()).toContain("http://localhost:8080/callback");

    await page.close();
  });

  it("a webhook URL to a private network is refused once, under its field", async () => {
    const { page } = await signedInPage("/webhooks");
    await page.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor();
    await page.getByLabel("URL", { exact: true }).fill("https://10.0.0.1/hook");
    await page.getByRole("button", { name: "Registrar la URL" }).click();
    const refusal = "Esa URL no se acepta: apunta a una red interna o no usa https.";
    await page.getByText(refusal).first().waitFor();
    expect(await page.getByText(refusal).count()).toBe(1);
    await page.close();
  });

  it("a new webhook URL that fails its test is pending, the working one stays active, and a passing test makes it active", async () => {
    const { page } = await signedInPage("/webhooks");
    await page.getByRole("heading", { name: "Webhooks", level: 1 }).waitFor();
    const register = async (url: string) => {
      await page.getByLabel("URL", { exact: true }).fill(url);
      await page.getByRole("button", { name: "Registrar la URL" }).click();
      const item = page.getByRole("listitem", { name: url });
      await item.locator("[data-verification]").waitFor();
      return item;
    };
    const working = await register(receiver.url("/details-working"));
    await expect.poll(() => working.getByTestId("receives-events").count()).toBe(1);

    receiver.answerNext({ status: 500 });
    const failing = await register(receiver.url("/details-new"));
    expect(await failing.locator("[data-verification]").getAttribute("data-verification")).toBe("non_2xx");
    await expect.poll(() => failing.getByTestId("pending").count()).toBe(1);
    expect(await failing.getByTestId("receives-events").count()).toBe(0);
    expect(await working.getByTestId("receives-events").count()).toBe(1);

    await failing.getByRole("button", { name: "Probar" }).click();
    await expect.poll(() => failing.getByTestId("receives-events").count()).toBe(1);
    expect(await working.getByTestId("receives-events").count()).toBe(0);
    expect(await failing.getByTestId("pending").count()).toBe(0);
    await page.close();
  });

  it("the earnings' date inputs hold the range the report shows", async () => {
    const { page } = await signedInPage("/earnings");
    const range = page.getByTestId("earnings-range");
    await range.waitFor();
    const shown = /Del (\d\d)\/(\d\d)\/(\d{4}) al (\d\d)\/(\d\d)\/(\d{4})/.exec(await range.innerText())!;
    expect(await page.getByLabel("Desde").inputValue()).toBe(`${shown[3]}-${shown[2]}-${shown[1]}`);
    expect(await page.getByLabel("Hasta").inputValue()).toBe(`${shown[6]}-${shown[5]}-${shown[4]}`);
    await page.close();
  });

  it("dates typed while the first report loads stay as typed: the range that report shows does not replace them", async () => {
    const { page } = await signedInPage("/");
    await page.getByRole("button", { name: "Salir" }).waitFor();
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route(/\/my-integration\/earnings(\?|$)/, async (route) => {
      await held;
      await route.continue();
    });
    await page.getByRole("link", { name: "Ganancias" }).click();
    await page.getByLabel("Desde").fill("2026-10-01");
    await page.getByLabel("Hasta").fill("2026-10-31");
    release();
    await page.getByTestId("earnings-range").waitFor();
    expect(await page.getByLabel("Desde").inputValue()).toBe("2026-10-01");
    expect(await page.getByLabel("Hasta").inputValue()).toBe("2026-10-31");
    await page.close();
  });

  // Last: it moves the Sandbox's clock, which the tests above read as today.
  it("with the Sandbox's clock weeks ahead, 'Cobrado hoy' is the Sandbox's today and the clock card says the offset in days and hours", async () => {
    const moved = await integration.admin.call("POST", "/my-integration/sandbox-clock", { advanceBy: "PT562H" });
    expect(moved.status, JSON.stringify(moved.json)).toBe(200);
    const clock = (await integration.admin.call("GET", "/my-integration/sandbox-clock")).json as { today: string };
    const earningsAsked: URL[] = [];
    const onRequest = (request: Request) => {
      const url = new URL(request.url());
      if (url.pathname.endsWith("/earnings")) earningsAsked.push(url);
    };
    browser.context.on("request", onRequest);
    const { page: home } = await signedInPage("/");
    await home.getByTestId("collected-today").waitFor();
    browser.context.off("request", onRequest);
    expect(earningsAsked.map((url) => [url.searchParams.get("startDate"), url.searchParams.get("endDate")])).toEqual([[clock.today, clock.today]]);

    await home.getByRole("navigation", { name: "Secciones" }).getByRole("link", { name: "Sandbox" }).click();
    await home.getByTestId("sandbox-offset").waitFor();
    expect(await home.getByTestId("sandbox-offset").innerText()).toBe("23 días y 10 h adelante");
    await home.close();
  });
});
