// "Pagos sin imputar" in a real browser at a phone's width against a live Sandbox: a transfer to a canceled
// charge's CVU is listed with its reason and amount, filtered by reason, merchant account and days; its
// detail assigns it to another open charge of the same merchant account (search, choose, confirm), which
// becomes total_payment; an assignment the API refuses shows its Spanish sentence; both are in the audit log.
// Money worth more than the chosen charge owes: the confirmation applies what it owed and says what stays unresolved.
// An overpayment's excess whose return failed is returned again from its detail ("Devolver": confirmed with the
// amount and the sender's account, return_requested, then returned when the Sandbox's bank finishes it); a
// browser without crypto.randomUUID sends its own random key, the same on a retry.
// As in the other portal tests: nothing leaves the origin and no console error but the expected refusal.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { launchBrowser, type TestBrowser } from "../../scripts/chromium.ts";
import { randomUUID } from "node:crypto";
import { argentinaDate } from "../../domain/argentina-time.ts";
import { sandboxBank } from "../../domain/outbound/sandbox-bank.ts";
import { settleReturn } from "../../domain/reconciliation/return-unmatched.ts";
import { chargeBody } from "../helpers/charges.ts";
import { sandboxIntegration } from "../helpers/sandbox-admin.ts";
import { serviceForFile } from "../helpers/service.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { openSignedIn } from "./watch-page.ts";

const t = serviceForFile({ env: { COBRO_AUTH_URL: "" }, parts: ["integration", "auth", "admin"] });
let browser: TestBrowser;

beforeAll(async () => {
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

const PHONE = 375;
const fitsPhone = async (page: Page) => expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(PHONE);

const RETURN_ROUTE = "**/my-integration/unmatched-payments/*/return";

/**
 * The page's first return request reaches the service (the bank is asked), but its answer is lost on the
 * way back (a 502); later ones pass. Answers the Idempotency-Key of each request, as they are sent.
 */
async function loseFirstReturnAnswer(page: Page): Promise<string[]> {
  const keys: string[] = [];
  await page.route(RETURN_ROUTE, async (route) => {
    keys.push(route.request().headers()["idempotency-key"] ?? "");
    if (keys.length > 1) return route.continue();
    await route.fetch();
    return route.fulfill({ status: 502, contentType: "application/json", body: JSON.stringify({ code: "BadGateway", message: "lost", id: "lost" }) });
  });
  return keys;
}

async function openFromMenu(page: Page, label: string, heading: string): Promise<void> {
  await page.getByRole("button", { name: "Menú" }).click();
  await page.getByRole("navigation", { name: "Secciones" }).getByRole("link", { name: label, exact: true }).click();
  await page.getByRole("heading", { name: heading, exact: true, level: 1 }).waitFor();
}

describe("unmatched payments in the portal", { timeout: 120_000 }, () => {
  it("lists a transfer to a canceled charge's CVU and assigns it to another open charge of the merchant, which is then paid in full", async () => {
    const { merchant, admin, createCharge } = await sandboxIntegration(t);
    const canceled = await createCharge(chargeBody({ referenceId: uniqueRef("CANC"), amount: 1000 }));
    expect((await merchant.call("POST", `/payment-request/${canceled.referenceId}/cancel`)).status).toBe(200);
    const first = await admin.simulate({ cvu: canceled.CVU, amount: 1000 });
    const second = await admin.simulate({ cvu: canceled.CVU, amount: 1000 });
    expect([first.json.conciliated, second.json.conciliated]).toEqual([false, false]);
    const target = await createCharge(chargeBody({ referenceId: uniqueRef("OPEN"), amount: 1000, customer: { name: "Marta Gómez" } }));
    const other = await createCharge(chargeBody({ referenceId: uniqueRef("OTRO"), amount: 1000 }));
    const merchantUserId = (await merchant.call("GET", "/me")).json.merchantUserId as string;

    const { page, watched } = await openSignedIn(browser, t.adminUrl, merchant.sandbox.integrationAdmin, { width: PHONE });
    await page.getByRole("button", { name: "Salir" }).waitFor();
    await openFromMenu(page, "Pagos sin imputar", "Pagos sin imputar");
    const rows = page.getByTestId("unmatched-payment");
    await expect.poll(() => rows.count()).toBe(2);
    for (const row of await rows.all()) {
      expect(await row.getAttribute("data-reason")).toBe("canceled");
      expect(await row.getAttribute("data-state")).toBe("unresolved");
      const text = await row.innerText();
      expect(text).toContain("$ 1.000,00");
      expect(text).toContain("Cobro cancelado");
      expect(text).toContain("Sin imputar");
    }
    await fitsPhone(page);
    for (const filter of ["Estado", "Motivo", "Comercio", "Desde", "Hasta"])
      expect(await page.getByLabel(filter, { exact: true }).isVisible(), filter).toBe(true);

    // The filters: another reason lists nothing; the merchant account and today keep both; tomorrow nothing.
    await page.getByLabel("Motivo").selectOption({ label: "Pago de más" });
    await page.getByText("No hay pagos sin imputar con esos filtros.").waitFor();
    await page.getByLabel("Motivo").selectOption({ label: "Cobro cancelado" });
    await page.getByLabel("Comercio", { exact: true }).selectOption(merchantUserId);
    const today = argentinaDate(t.clock.now());
    await page.getByLabel("Desde").fill(today);
    await page.getByLabel("Hasta").fill(today);
    await expect.poll(() => rows.count()).toBe(2);
    expect(page.url()).toContain("reason=canceled");
    const tomorrow = argentinaDate(new Date(t.clock.now().getTime() + 24 * 3600 * 1000));
    await page.getByLabel("Desde").fill(tomorrow);
    // Desde after Hasta: said under Hasta at once, without asking the API.
    await expect.poll(() => page.getByLabel("Hasta").getAttribute("aria-invalid")).toBe("true");
    await page.getByText("La fecha «hasta» no puede ser anterior a «desde».").waitFor();
    await page.getByLabel("Hasta").fill(tomorrow);
    await page.getByText("No hay pagos sin imputar con esos filtros.").waitFor();
    await page.getByLabel("Desde").fill("");
    await page.getByLabel("Hasta").fill("");
    await expect.poll(() => rows.count()).toBe(2);

    // The first transfer's detail: assigned to the open charge, found by its reference.
    await page.getByRole("link", { name: new RegExp(`ver el pago ${first.json.idTransaccion}$`) }).click();
    await page.getByRole("heading", { name: `Pago sin imputar ${first.json.idTransaccion}`, level: 1 }).waitFor();
    expect(await page.getByTestId("unmatched-reason").innerText()).toBe("Cobro cancelado");
    await fitsPhone(page);
    await page.getByRole("button", { name: "Imputar", exact: true }).click();
    const candidates = page.getByTestId("charge-candidates");
    // Unsearched, the merchant's open charges: the canceled one is not among them.
    await expect.poll(() => candidates.innerText()).toContain(target.referenceId);
    expect(await candidates.innerText()).not.toContain(canceled.referenceId);
    await page.getByLabel("Buscar un cobro abierto del comercio").fill(target.referenceId);
    await page.getByRole("button", { name: "Buscar", exact: true }).click();
    await expect.poll(() => candidates.innerText()).not.toContain(other.referenceId);
    await page.getByRole("button", { name: `Elegir el cobro ${target.referenceId}` }).click();
    const confirmation = page.getByRole("group", { name: "Confirmar la imputación" });
    await expect.poll(() => confirmation.innerText()).toContain("de Marta Gómez");
    expect(await confirmation.innerText()).toContain(`¿Imputar $ 1.000,00 de este pago al cobro ${target.referenceId}`);
    await fitsPhone(page);
    await confirmation.getByRole("button", { name: "Sí, imputar" }).click();
    const result = page.getByTestId("assignment-result");
    await expect.poll(() => result.innerText()).toContain(`Se imputaron $ 1.000,00 al cobro ${target.referenceId}, que quedó «Pagado».`);
    expect(await result.innerText()).toContain("No queda nada sin imputar de este pago.");
    await expect.poll(() => page.getByTestId("unmatched-state").innerText()).toBe("Imputado");
    expect(await page.getByTestId("unmatched-unresolved").innerText()).toBe("$ 0,00");
    expect(await page.getByTestId("unmatched-assignments").innerText()).toContain(target.referenceId);
    expect(await page.getByRole("button", { name: "Imputar", exact: true }).count()).toBe(0);
    expect((await admin.call("GET", `/my-integration/payment-requests/${target.paymentRequestId}`)).json).toMatchObject({
      status: "total_payment",
      paidAmount: 1000,
    });

    // The second transfer: assigned elsewhere (by the API) while the admin confirms; the refusal in Spanish.
    await page.getByRole("link", { name: "← Pagos sin imputar" }).click();
    await page.getByRole("link", { name: new RegExp(`ver el pago ${second.json.idTransaccion}$`) }).click();
    await page.getByRole("button", { name: "Imputar", exact: true }).click();
    await page.getByRole("button", { name: `Elegir el cobro ${other.referenceId}` }).click();
    const secondId = page.url().split("/").at(-1)!;
    const elsewhere = await admin.call("POST", `/my-integration/unmatched-payments/${secondId}/assignment`, { referenceId: other.referenceId });
    expect(elsewhere.status, JSON.stringify(elsewhere.json)).toBe(200);
    await confirmation.getByRole("button", { name: "Sí, imputar" }).click();
    const refusal = confirmation.getByRole("alert");
    await expect.poll(() => refusal.getAttribute("data-code")).toBe("UnmatchedPaymentNotUnresolvedError");
    expect(await refusal.innerText()).toBe("Ese pago ya no está sin imputar: se imputó o se está devolviendo.");

    // The audit log: both assignments and the refusal, as the Admin API recorded them.
    await openFromMenu(page, "Auditoría", "Registro de auditoría");
    await page.getByLabel("Operación").selectOption({ label: "Imputó un pago sin imputar a un cobro" });
    const entries = page.getByTestId("audit-entry");
    await expect.poll(() => entries.count()).toBe(3);
    expect(await entries.first().innerText()).toContain("Rechazada: UnmatchedPaymentNotUnresolvedError");

    expect(watched.otherOrigins()).toEqual([]);
    expect(watched.problems({ expectedFailures: 1 })).toEqual([]);
    await page.close();
  });
  it("assigns $1200 of unmatched money to a $1000 charge: the confirmation applies what the charge owed and says the rest stays unresolved", async () => {
    const { merchant, admin, createCharge } = await sandboxIntegration(t);
    const canceled = await createCharge(chargeBody({ referenceId: uniqueRef("CANC"), amount: 1200 }));
    expect((await merchant.call("POST", `/payment-request/${canceled.referenceId}/cancel`)).status).toBe(200);
    expect((await admin.simulate({ cvu: canceled.CVU, amount: 1200 })).json.conciliated).toBe(false);
    const target = await createCharge(chargeBody({ referenceId: uniqueRef("OPEN"), amount: 1000, customer: { name: "Ana Ruiz" } }));
    const [money] = (await admin.call("GET", "/my-integration/unmatched-payments?reason=canceled")).json.items;

    const { page, watched } = await openSignedIn(browser, t.adminUrl, merchant.sandbox.integrationAdmin, {
      path: `/unmatched/${money.unmatchedPaymentId}`,
      width: PHONE,
    });
    await page.getByRole("heading", { name: `Pago sin imputar ${money.transactionId}`, level: 1 }).waitFor();
    await page.getByRole("button", { name: "Imputar", exact: true }).click();
    await page.getByRole("button", { name: `Elegir el cobro ${target.referenceId}` }).click();
    const confirmation = page.getByRole("group", { name: "Confirmar la imputación" });
    // The charge's detail (what it owed at the transfer's time) is read before the amount is said.
    await expect.poll(() => confirmation.innerText()).toContain("de Ana Ruiz");
    const question = await confirmation.innerText();
    expect(question).toContain(`¿Imputar $ 1.000,00 de este pago al cobro ${target.referenceId}`);
    expect(question).toContain("Lo que el cobro no debía ($ 200,00) queda sin imputar.");
    await fitsPhone(page);
    await confirmation.getByRole("button", { name: "Sí, imputar" }).click();
    const result = page.getByTestId("assignment-result");
    await expect.poll(() => result.innerText()).toContain(`Se imputaron $ 1.000,00 al cobro ${target.referenceId}, que quedó «Pagado».`);
    expect(await result.innerText()).toContain("Quedan $ 200,00 sin imputar.");
    await expect.poll(() => page.getByTestId("unmatched-unresolved").innerText()).toBe("$ 200,00");
    expect(await page.getByTestId("unmatched-state").innerText()).toBe("Sin imputar");

    expect(watched.otherOrigins()).toEqual([]);
    expect(watched.problems({ expectedFailures: 0 })).toEqual([]);
    await page.close();
  });
  it("returns an overpayment's excess whose first return failed: confirmed with the amount and the account, requested, then returned; a refusal in Spanish", async () => {
    const { admin, createCharge, merchant } = await sandboxIntegration(t);
    const overpaid = await createCharge(chargeBody({ referenceId: uniqueRef("OVER"), amount: 1000 }));
    await admin.simulate({ cvu: overpaid.CVU, amount: 1200 });
    const canceled = await createCharge(chargeBody({ referenceId: uniqueRef("CANC"), amount: 700 }));
    expect((await merchant.call("POST", `/payment-request/${canceled.referenceId}/cancel`)).status).toBe(200);
    await admin.simulate({ cvu: canceled.CVU, amount: 700 });
    const [excess] = (await admin.call("GET", "/my-integration/unmatched-payments?reason=overpaid")).json.items;
    const [late] = (await admin.call("GET", "/my-integration/unmatched-payments?reason=canceled")).json.items;
    // The worker's job, run by calling its step: the Sandbox's bank takes the return, then finishes it at its next check.
    const bankFinishes = async (returnId: string) => {
      const deps = { db: t.database.db, clock: t.clock, bank: sandboxBank, livemode: false };
      expect(await settleReturn(deps, returnId)).toMatchObject({ kind: "pending" });
      return settleReturn(deps, returnId);
    };
    // A first return forced to fail (the flag is the API's, not the portal's): the money is unresolved again.
    const failing = await admin.call(
      "POST",
      `/my-integration/unmatched-payments/${excess.unmatchedPaymentId}/return`,
      { simulateFailure: true },
      { "Idempotency-Key": randomUUID() },
    );
    expect(failing.status, failing.text).toBe(202);
    expect(await bankFinishes(failing.json.returnId)).toMatchObject({ kind: "failed" });

    const { page, watched } = await openSignedIn(browser, t.adminUrl, merchant.sandbox.integrationAdmin, { width: PHONE });
    await page.getByRole("button", { name: "Salir" }).waitFor();
    await openFromMenu(page, "Pagos sin imputar", "Pagos sin imputar");
    await page.getByLabel("Estado").selectOption({ label: "Devolución fallida" });
    const rows = page.getByTestId("unmatched-payment");
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().getAttribute("data-state")).toBe("return_failed");
    expect(await rows.first().innerText()).toContain("Devolución fallida");
    await page.getByRole("link", { name: new RegExp(`ver el pago ${excess.transactionId}$`) }).click();
    await page.getByRole("heading", { name: `Pago sin imputar ${excess.transactionId}`, level: 1 }).waitFor();
    expect(await page.getByTestId("unmatched-state").innerText()).toBe("Devolución fallida");
    const returns = page.getByTestId("unmatched-returns").getByRole("listitem");
    await expect.poll(() => returns.count()).toBe(1);
    expect(await returns.first().getAttribute("data-state")).toBe("failed");
    expect(await returns.first().innerText()).toContain("Cuenta de destino inexistente o cerrada");
    await fitsPhone(page);

    // Its money can be assigned or returned again.
    expect(await page.getByRole("button", { name: "Imputar", exact: true }).isVisible()).toBe(true);
    // Asked again from the portal: the confirmation says how much and where to, then the return is requested.
    await page.getByRole("button", { name: "Devolver", exact: true }).click();
    const confirmation = page.getByRole("group", { name: "Confirmar la devolución" });
    const question = await confirmation.innerText();
    expect(question).toContain("¿Devolver $ 200,00");
    expect(question).toContain("CUIL 20301234563");
    expect(question).toContain("0000003100000000000017");
    await fitsPhone(page);
    // The first answer is lost on its way back (the service did ask the bank): the same confirmation, clicked
    // again, sends the same Idempotency-Key and gets that return, not a second one.
    const keys = await loseFirstReturnAnswer(page);
    await confirmation.getByRole("button", { name: "Sí, devolver" }).click();
    await expect.poll(() => confirmation.getByRole("alert").innerText()).toBe("Cobro tuvo un problema al responder. Probá de nuevo en unos minutos.");
    await confirmation.getByRole("button", { name: "Sí, devolver" }).click();
    const outcome = page.getByTestId("return-result");
    await expect.poll(() => outcome.innerText()).toContain("Se pidió al banco devolver $ 200,00");
    await expect.poll(() => page.getByTestId("unmatched-state").innerText()).toBe("Devolución pedida");
    expect(await page.getByTestId("unmatched-unresolved").innerText()).toBe("$ 0,00");
    await expect.poll(() => returns.count()).toBe(2);
    expect(await returns.nth(1).getAttribute("data-state")).toBe("requested");
    expect(await page.getByRole("button", { name: "Devolver", exact: true }).count()).toBe(0);
    await page.unroute(RETURN_ROUTE);
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    const asked = (await admin.call("GET", `/my-integration/unmatched-payments/${excess.unmatchedPaymentId}`)).json;
    expect(asked).toMatchObject({ state: "return_requested", returns: [{ state: "failed" }, { state: "requested", amount: 200 }] });

    // The Sandbox's bank finishes it; the page, refreshed, shows it returned.
    expect(await bankFinishes(asked.returns[1].returnId)).toMatchObject({ kind: "returned" });
    await page.getByRole("button", { name: "Actualizar", exact: true }).click();
    await expect.poll(() => page.getByTestId("unmatched-state").innerText()).toBe("Devuelto");
    expect(await returns.nth(1).getAttribute("data-state")).toBe("returned");
    expect(await returns.nth(1).innerText()).toContain("Devuelta");
    await fitsPhone(page);

    // The canceled charge's money, returned by the API while the admin confirms: the refusal in Spanish.
    await page.getByRole("link", { name: "← Pagos sin imputar" }).click();
    await page.getByLabel("Estado").selectOption({ label: "Sin imputar" });
    await page.getByRole("link", { name: new RegExp(`ver el pago ${late.transactionId}$`) }).click();
    await page.getByRole("button", { name: "Devolver", exact: true }).click();
    const elsewhere = await admin.call("POST", `/my-integration/unmatched-payments/${late.unmatchedPaymentId}/return`, {}, { "Idempotency-Key": randomUUID() });
    expect(elsewhere.status, elsewhere.text).toBe(202);
    await confirmation.getByRole("button", { name: "Sí, devolver" }).click();
    const refusal = confirmation.getByRole("alert");
    await expect.poll(() => refusal.getAttribute("data-code")).toBe("UnmatchedPaymentReturnInProgressError");
    expect(await refusal.innerText()).toBe("Ya se está devolviendo ese pago: esperá el resultado del banco.");

    // The audit log: the API's two returns, the portal's two requests of one return (each request is audited), and the refusal.
    await openFromMenu(page, "Auditoría", "Registro de auditoría");
    await page.getByLabel("Operación").selectOption({ label: "Devolvió un pago sin imputar" });
    const entries = page.getByTestId("audit-entry");
    await expect.poll(() => entries.count()).toBe(5);
    expect(await entries.first().innerText()).toContain("Rechazada: UnmatchedPaymentReturnInProgressError");

    expect(watched.otherOrigins()).toEqual([]);
    // The refusal (409), and the lost answer the test made a 502.
    expect(watched.problems({ expectedFailures: 1 })).toEqual([expect.stringContaining("status of 502")]);
    await page.close();
  });
  it("asks a return with 32 hex digits as its Idempotency-Key where the browser has no crypto.randomUUID, the same key again after a lost answer", async () => {
    const { merchant, admin, createCharge } = await sandboxIntegration(t);
    const canceled = await createCharge(chargeBody({ referenceId: uniqueRef("CANC"), amount: 700 }));
    expect((await merchant.call("POST", `/payment-request/${canceled.referenceId}/cancel`)).status).toBe(200);
    expect((await admin.simulate({ cvu: canceled.CVU, amount: 700 })).json.conciliated).toBe(false);
    const [money] = (await admin.call("GET", "/my-integration/unmatched-payments?reason=canceled")).json.items;

    const { page, watched } = await openSignedIn(browser, t.adminUrl, merchant.sandbox.integrationAdmin, { width: PHONE });
    await page.getByRole("button", { name: "Salir" }).waitFor();
    // randomUUID exists only in secure contexts (https, localhost): a portal served over plain http on another
    // name has none. It lives on Crypto's prototype, so it is taken from there before the page loads again.
    await page.addInitScript(() => {
      delete (Object.getPrototypeOf(crypto) as { randomUUID?: unknown }).randomUUID;
    });
    await page.goto(`${t.adminUrl}/portal/unmatched/${money.unmatchedPaymentId}`);
    await page.getByRole("heading", { name: `Pago sin imputar ${money.transactionId}`, level: 1 }).waitFor();
    expect(await page.evaluate(() => typeof crypto.randomUUID)).toBe("undefined");
    await page.getByRole("button", { name: "Devolver", exact: true }).click();
    const confirmation = page.getByRole("group", { name: "Confirmar la devolución" });
    const keys = await loseFirstReturnAnswer(page);
    await confirmation.getByRole("button", { name: "Sí, devolver" }).click();
    await expect.poll(() => confirmation.getByRole("alert").innerText()).toBe("Cobro tuvo un problema al responder. Probá de nuevo en unos minutos.");
    await confirmation.getByRole("button", { name: "Sí, devolver" }).click();
    await expect.poll(() => page.getByTestId("return-result").innerText()).toContain("Se pidió al banco devolver $ 700,00");
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(keys[1]).toBe(keys[0]);
    const asked = (await admin.call("GET", `/my-integration/unmatched-payments/${money.unmatchedPaymentId}`)).json;
    expect(asked).toMatchObject({ state: "return_requested", returns: [{ state: "requested", amount: 700 }] });
    expect(asked.returns).toHaveLength(1);

    expect(watched.otherOrigins()).toEqual([]);
    expect(watched.problems({ expectedFailures: 0 })).toEqual([expect.stringContaining("status of 502")]);
    await page.close();
  });
});
