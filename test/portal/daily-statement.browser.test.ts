// "Resumen diario" in a real browser at a phone's width against a live Sandbox: the integration's day (its
// Sandbox clock's today) with a transfer that paid its charge and one to a canceled charge's CVU shows totals
// that add up (received = matched + unresolved here) and one line per transfer saying what became of it; the
// merchant filter keeps both, an earlier day has none; "Descargar CSV" saves the API's CSV under the API's name;
// money assigned a day later shows on the past day's line as resolved after the day.
// As in the other portal tests: nothing leaves the origin and no console error.
import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { launchBrowser, type TestBrowser } from "../../scripts/chromium.ts";
import { argentinaDate } from "../../domain/argentina-time.ts";
import { chargeBody } from "../helpers/charges.ts";
import { sandboxIntegration } from "../helpers/sandbox-admin.ts";
import { serviceForFile } from "../helpers/service.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { openSignedIn } from "./watch-page.ts";

// 23:30 in Argentina on 2026-11-22: the day ends half an hour into the test's clock.
const t = serviceForFile({ start: new Date("2026-11-23T02:30:00Z"), env: { COBRO_AUTH_URL: "" }, parts: ["integration", "auth", "admin"] });
let browser: TestBrowser;

beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

const PHONE = 375;
const fitsPhone = async (page: Page) => expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(PHONE);

describe("the daily statement in the portal", { timeout: 120_000 }, () => {
  it("shows a day's matched and unmatched transfers with totals that add up, and downloads the API's CSV", async () => {
    const { merchant, admin, createCharge } = await sandboxIntegration(t);
    const paid = await createCharge(chargeBody({ referenceId: uniqueRef("PAID"), amount: 1000 }));
    const matched = await admin.simulate({ cvu: paid.CVU, amount: 1000 });
    const canceled = await createCharge(chargeBody({ referenceId: uniqueRef("CANC"), amount: 500 }));
    expect((await merchant.call("POST", `/payment-request/${canceled.referenceId}/cancel`)).status).toBe(200);
    const unmatched = await admin.simulate({ cvu: canceled.CVU, amount: 500 });
    expect([matched.json.conciliated, unmatched.json.conciliated]).toEqual([true, false]);
    const merchantUserId = (await merchant.call("GET", "/me")).json.merchantUserId as string;
    const today = argentinaDate(t.clock.now());

    const { page, watched } = await openSignedIn(browser, t.adminUrl, merchant.sandbox.integrationAdmin, { width: PHONE });
    await page.getByRole("button", { name: "Salir" }).waitFor();
    await page.getByRole("button", { name: "Menú" }).click();
    const menu = page.getByRole("navigation", { name: "Secciones" });
    // Next to "Pagos sin imputar" in the menu.
    const labels = await menu.getByRole("link").allInnerTexts();
    expect(labels[labels.indexOf("Pagos sin imputar") + 1]).toBe("Resumen diario");
    await menu.getByRole("link", { name: "Resumen diario", exact: true }).click();
    await page.getByRole("heading", { name: "Resumen diario", exact: true, level: 1 }).waitFor();
    expect(await page.getByLabel("Día", { exact: true }).inputValue()).toBe(today);

    const lines = page.getByTestId("statement-line");
    await expect.poll(() => lines.count()).toBe(2);
    const figure = (name: string) => page.getByTestId(`statement-${name}`).innerText();
    expect(await figure("received")).toBe("$ 1.500,00");
    expect(await figure("matched")).toBe("$ 1.000,00");
    expect(await figure("assigned")).toBe("$ 0,00");
    expect(await figure("returned")).toBe("$ 0,00");
    expect(await figure("returning")).toBe("$ 0,00");
    expect(await figure("unresolved")).toBe("$ 500,00");
    // Both were recorded at the same instant of the test's clock: each line is found by its transfer.
    const lineOf = (transactionId: string) => page.locator(`[data-testid="statement-line"][data-transaction-id="${transactionId}"]`);
    const first = await lineOf(matched.json.idTransaccion).innerText();
    expect(first).toContain("$ 1.000,00");
    expect(first).toContain(`Aplicado al cobro ${paid.referenceId}`);
    const second = await lineOf(unmatched.json.idTransaccion).innerText();
    expect(second).toContain("$ 500,00");
    expect(second).toContain("Cobro cancelado");
    expect(second).toContain("Sin imputar");
    expect(second).not.toContain("Aplicado al cobro");
    expect(await page.getByRole("link", { name: paid.referenceId }).getAttribute("href")).toMatch(new RegExp(`/charges/${paid.paymentRequestId}$`));
    await fitsPhone(page);

    // The merchant account keeps both; the day before has none.
    await page.getByLabel("Comercio", { exact: true }).selectOption(merchantUserId);
    await expect.poll(() => page.url()).toContain(`merchantUserId=${merchantUserId}`);
    await expect.poll(() => lines.count()).toBe(2);
    const yesterday = argentinaDate(new Date(t.clock.now().getTime() - 24 * 3600 * 1000));
    await page.getByLabel("Día", { exact: true }).fill(yesterday);
    await page.getByText("No se recibieron transferencias ese día.").waitFor();
    expect(await figure("received")).toBe("$ 0,00");
    await page.getByLabel("Día", { exact: true }).fill(today);
    await expect.poll(() => lines.count()).toBe(2);

    // The CSV, through the SDK: the API's file name, its header and its lines.
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Descargar CSV" }).click()]);
    expect(download.suggestedFilename()).toBe(`cobro-resumen-${today}.csv`);
    const saved = await readFile((await download.path())!, "utf8");
    const api = await admin.call("GET", `/my-integration/statements/${today}?merchantUserId=${merchantUserId}`, undefined, { Accept: "text/csv" });
    expect(api.status, api.text).toBe(200);
    const [header, ...rows] = saved.split("\r\n");
    expect(header).toBe(api.text.split("\r\n")[0]);
    expect(rows).toEqual(api.text.split("\r\n").slice(1));
    expect(rows.filter(Boolean)).toHaveLength(2);
    expect(saved).toContain(`,${unmatched.json.idTransaccion},`);

    // The next day the unmatched money is assigned: the past day's line says it was resolved after the day.
    const target = await createCharge(chargeBody({ referenceId: uniqueRef("LATER"), amount: 500 }));
    t.clock.advance(45 * 60 * 1000); // 00:15 of the next day in Argentina
    const [payment] = (await admin.call("GET", "/my-integration/unmatched-payments?reason=canceled")).json.items;
    const assigned = await admin.call("POST", `/my-integration/unmatched-payments/${payment.unmatchedPaymentId}/assignment`, {
      referenceId: target.referenceId,
    });
    expect(assigned.status, assigned.text).toBe(200);
    await page.reload();
    expect(page.url()).toContain(`date=${today}`);
    await expect.poll(() => figure("assigned")).toBe("$ 500,00");
    expect(await figure("unresolved")).toBe("$ 0,00");
    expect(await figure("received")).toBe("$ 1.500,00");
    const resolved = lineOf(unmatched.json.idTransaccion);
    expect(await resolved.getAttribute("data-resolved-after-day")).toBe("true");
    expect(await resolved.innerText()).toContain(`Imputado al cobro ${target.referenceId}: $ 500,00`);
    expect(await resolved.getByTestId("resolved-after-day").innerText()).toContain("Resuelto después del día");
    expect(await lineOf(matched.json.idTransaccion).getAttribute("data-resolved-after-day")).toBe("false");

    expect(watched.otherOrigins()).toEqual([]);
    expect(watched.problems({ expectedFailures: 0 })).toEqual([]);
    await page.close();
  });
});
