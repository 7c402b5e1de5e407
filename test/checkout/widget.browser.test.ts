// The embeddable checkout widget in a real browser (Debian's chromium through playwright-core): a store's
// page on its own loopback origin loads /v1/widget.js from Cobro and mounts it on a checkout charge; it
// shows the amount and the CVU, turns paid after a simulated transfer (onPaid), and expired when the
// integration's Sandbox clock passes the expiry (onExpired). A store origin outside allowedOrigins cannot
// read the charge. The Sandbox demo page runs under its strict CSP.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { serviceForFile } from "../helpers/service.ts";
import { launchBrowser, type TestBrowser } from "../../scripts/chromium.ts";
import { widgetIntegration } from "./widget-integration.ts";

interface Store {
  origin: string;
  close(): Promise<void>;
}

/** A store's checkout page: it loads the widget from Cobro and records the callbacks. Its own CSS tries to hide everything. */
async function startStore(integrationUrl: string): Promise<Store> {
  const page = `<!doctype html>
<html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tienda de prueba</title>
<style>section, p, button, output, dd { display: none !important; } * { color: rgb(255, 0, 0) !important; }</style>
</head><body>
<h1>Tu pedido</h1>
<div id="checkout"></div>
<script src="${integrationUrl}/v1/widget.js"></script>
<script>
  var params = new URLSearchParams(location.search);
  window.calls = { paid: 0, expired: 0 };
  CobroCheckout.mount(document.getElementById("checkout"), {
    publishableKey: params.get("pk"),
    paymentId: params.get("id"),
    onPaid: function () { window.calls.paid++; },
    onExpired: function () { window.calls.expired++; }
  });
</script>
</body></html>`;
  const server: Server = createServer((request, response) => {
    if (!request.url?.startsWith("/checkout")) return void response.writeHead(404).end();
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") });
let browser: TestBrowser;
let store: Store;
let foreignStore: Store;

beforeAll(async () => {
  [browser, store, foreignStore] = await Promise.all([
    launchBrowser({ viewport: { width: 375, height: 800 } }),
    startStore(t.integrationUrl),
    startStore(t.integrationUrl),
  ]);
});
afterAll(async () => {
  await Promise.all([browser?.close(), store?.close(), foreignStore?.close()]);
});

const stateOf = (page: Page) => page.locator("#checkout").getByRole("status");
const calls = (page: Page) => page.evaluate(() => (globalThis as unknown as { calls: { paid: number; expired: number } }).calls);
/** A style property of an element as the browser computes it. */
const computed = (node: unknown, name: string) =>
  (globalThis as unknown as { getComputedStyle(node: unknown): Record<string, string> }).getComputedStyle(node)[name];

async function openCheckout(origin: string, publishableKey: string, paymentId: string): Promise<Page> {
  const page = await browser.context.newPage();
  await page.goto(`${origin}/checkout?pk=${encodeURIComponent(publishableKey)}&id=${paymentId}`);
  return page;
}

describe("the checkout widget on a store's page", () => {
  it("shows the amount, the CVU and the holder; turns paid after the transfer and calls onPaid once; fits 375 px", async () => {
    const w = await widgetIntegration(t, { allowedOrigins: [store.origin] });
    const payment = await w.createPayment({ amount: 1234.56, expiresInMinutes: 10 });
    const page = await openCheckout(store.origin, w.publishableKey, payment.paymentRequestId);
    const widget = page.locator("#checkout");
    await expect.poll(() => widget.getByLabel("Monto a transferir").textContent()).toBe("$ 1.234,56");
    expect(await widget.getByLabel("CVU", { exact: true }).inputValue()).toBe(payment.CVU);
    expect(await widget.getByText(payment.bankAccountInfo.accountHolderName, { exact: false }).isVisible()).toBe(true);
    expect(await widget.getByRole("button", { name: "Copiar el CVU" }).isVisible()).toBe(true);
    expect(await stateOf(page).textContent()).toBe("Esperando tu transferencia.");
    expect(await stateOf(page).getAttribute("aria-live")).toBe("polite");
    expect(await widget.getByRole("timer").textContent()).toMatch(/^(10:00|9:5\d)$/);
    // The store's CSS reaches neither the layout nor the colours inside the widget.
    expect(await widget.getByRole("status").evaluate(computed, "color")).not.toBe("rgb(255, 0, 0)");
    expect(
      await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth),
    ).toBeLessThanOrEqual(375);

    expect((await w.admin.simulate({ cvu: payment.CVU, amount: 1234.56 })).status).toBe(200);
    await expect.poll(() => stateOf(page).textContent(), { timeout: 10_000 }).toBe("¡Pago recibido! Gracias.");
    await expect.poll(() => calls(page)).toEqual({ paid: 1, expired: 0 });
    await page.close();
  });

  it("turns expired when the integration's clock passes the expiry, and calls onExpired", async () => {
    const w = await widgetIntegration(t, { allowedOrigins: [store.origin] });
    const payment = await w.createPayment({ expiresInMinutes: 5 });
    const page = await openCheckout(store.origin, w.publishableKey, payment.paymentRequestId);
    await expect.poll(() => stateOf(page).textContent()).toBe("Esperando tu transferencia.");
    expect((await w.admin.advanceClock({ advanceBy: "PT6M" })).status).toBe(200);
    await expect.poll(() => stateOf(page).textContent(), { timeout: 10_000 }).toBe("El tiempo para pagar venció.");
    await expect.poll(() => calls(page)).toEqual({ paid: 0, expired: 1 });
    expect(await page.locator("#checkout").getByRole("timer").textContent()).toBe("Vencido");
    await page.close();
  });

  it("a store origin outside allowedOrigins cannot read the charge: the browser blocks the answer", async () => {
    const w = await widgetIntegration(t, { allowedOrigins: [store.origin] });
    const payment = await w.createPayment();
    const page = await openCheckout(foreignStore.origin, w.publishableKey, payment.paymentRequestId);
    await expect.poll(() => stateOf(page).textContent()).toBe("No pudimos consultar el pago. Reintentando…");
    expect(await page.locator("#checkout").getByLabel("CVU", { exact: true }).inputValue()).toBe("…");
    const direct = await page.evaluate(
      ([url, key]) =>
        fetch(url!, { headers: { authorization: `Bearer ${key}` } }).then(
          (response) => `read ${response.status}`,
          (error: Error) => `failed: ${error.name}`,
        ),
      [`${t.integrationUrl}/v1/payments/${payment.paymentRequestId}`, w.publishableKey],
    );
    expect(direct).toBe("failed: TypeError");
    // From the allowed store the same request is read.
    const allowedPage = await openCheckout(store.origin, w.publishableKey, payment.paymentRequestId);
    const allowed = await allowedPage.evaluate(
      ([url, key]) =>
        fetch(url!, { headers: { authorization: `Bearer ${key}` } }).then(
          (response) => `read ${response.status}`,
          (error: Error) => `failed: ${error.name}`,
        ),
      [`${t.integrationUrl}/v1/payments/${payment.paymentRequestId}`, w.publishableKey],
    );
    expect(allowed).toBe("read 200");
    await Promise.all([page.close(), allowedPage.close()]);
  });
});

describe("the Sandbox demo page", () => {
  it("shows the widget on Cobro's own origin under its strict CSP, without CSP violations", async () => {
    const w = await widgetIntegration(t, { allowedOrigins: [store.origin] });
    const payment = await w.createPayment({ amount: 500 });
    const page = await browser.context.newPage();
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    await page.goto(`${t.integrationUrl}/v1/widget-demo?publishableKey=${encodeURIComponent(w.publishableKey)}&paymentId=${payment.paymentRequestId}`);
    await expect.poll(() => page.locator("#cobro-checkout").getByLabel("Monto a transferir").textContent()).toBe("$ 500,00");
    expect(await page.locator("#cobro-checkout").getByRole("button", { name: "Copiar el CVU" }).evaluate(computed, "backgroundColor")).toBe(
      "rgb(10, 102, 228)",
    );
    expect(violations).toEqual([]);
    await page.close();
  });
});
