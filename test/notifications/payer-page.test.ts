// The payer page (GET /p/{token}) and its payment confirmation button over real HTTP, and in Chromium at a
// phone's width: what is owed today (with the surcharge after the first due date, by the Sandbox clock),
// the CVU, the due dates and the state; the 404 that says nothing; the headers; and the CUIL-mode request
// for a payment confirmation with its refusals.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { Page, Request } from "playwright-core";
import { chargeBody, draftChargeBody } from "../helpers/charges.ts";
import { launchBrowser, type TestBrowser } from "../../scripts/chromium.ts";
import { sandboxAdmin, type SandboxAdmin } from "../helpers/sandbox-admin.ts";
import { linkedMerchant, read, serviceForFile, type ApiCall } from "../helpers/service.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") });
let browser: TestBrowser;

beforeAll(async () => {
  browser = await launchBrowser({ viewport: { width: 375, height: 667 } });
});
afterAll(async () => {
  await browser?.close();
});

const PAYER_CUIL = "20301234563";
const PHONE = { countryCode: "+54", number: "91123456789" };

interface Integration {
  merchant: ApiCall;
  admin: SandboxAdmin;
}

/** A fresh integration (its own Sandbox clock) with a linked merchant. */
async function integration(): Promise<Integration> {
  const m = await linkedMerchant(t);
  return { merchant: m.call, admin: await sandboxAdmin(t, m.sandbox) };
}

interface CreatedCharge {
  id: string;
  referenceId: string;
  cvu: string;
  token: string;
  tradeName: string;
}

async function createCharge(merchant: ApiCall, overrides: object = {}): Promise<CreatedCharge> {
  const referenceId = uniqueRef("PAGE");
  const created = await merchant("POST", "/payment-request", chargeBody({ referenceId, ...overrides }));
  expect(created.status, created.text).toBe(201);
  const row = await t.database.db
    .selectFrom("charges as c")
    .innerJoin("merchant_accounts as m", "m.id", "c.merchant_account_id")
    .select(["c.payer_page_token", "m.fantasy_name"])
    .where("c.id", "=", created.json.paymentRequestId)
    .executeTakeFirstOrThrow();
  return { id: created.json.paymentRequestId, referenceId, cvu: created.json.CVU, token: row.payer_page_token, tradeName: row.fantasy_name };
}

/** A CUIL-mode charge of $1000 whose payer has a WhatsApp number; `false` for the confirmation flag, which must not turn the button off. */
function cuilCharge(merchant: ApiCall, customer: object = { phoneNumber: PHONE }): Promise<CreatedCharge> {
  return createCharge(merchant, {
    conciliationType: "cuil",
    customer: { name: "Juan Pérez", taxDocument: PAYER_CUIL, ...customer },
    sendWhatsappPaymentConfirmation: false,
  });
}

function page(token: string, query = ""): Promise<Awaited<ReturnType<typeof read>>> {
  return fetch(`${t.integrationUrl}/p/${token}${query}`).then(read);
}

function askForConfirmation(token: string): Promise<Awaited<ReturnType<typeof read>>> {
  return fetch(`${t.integrationUrl}/p/${token}/payment-confirmation`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "",
    redirect: "manual",
  }).then(read);
}

/** The page's visible text, tags dropped and whitespace collapsed (for phrases that span elements). */
function textOf(html: string): string {
  return html
    .replace(/<(style|script)[^>]*>[\s\S]*?<\/\1>/g, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

async function confirmations(chargeId: string) {
  return t.database.db.selectFrom("notifications").selectAll().where("charge_id", "=", chargeId).where("kind", "=", "payment_confirmation").execute();
}

async function sendJobKeys(): Promise<string[]> {
  const { rows } = await sql<{ key: string }>`select key from graphile_worker._private_jobs where key like 'send-notification:%'`.execute(t.database.db);
  return rows.map((row) => row.key);
}

function expectPageHeaders(headers: Headers): void {
  expect(headers.get("content-type")).toMatch(/^text\/html/);
  expect(headers.get("cache-control")).toBe("no-store");
  expect(headers.get("referrer-policy")).toBe("no-referrer");
  expect(headers.get("x-robots-tag")).toBe("noindex");
  const csp = headers.get("content-security-policy") ?? "";
  expect(csp).toMatch(
    /^default-src 'none'; script-src 'nonce-[A-Za-z0-9+/=]{24}'; style-src 'nonce-[A-Za-z0-9+/=]{24}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'$/,
  );
}

describe("the payer page over HTTP", () => {
  it("shows a pending charge: the trade name, the description, what is owed today, the CVU and the due date, with its headers", async () => {
    const { merchant } = await integration();
    const charge = await createCharge(merchant, { description: "Cuota de diciembre", amount: 1234.56 });
    const shown = await page(charge.token);
    expect(shown.status).toBe(200);
    expectPageHeaders(shown.headers);
    const text = textOf(shown.text);
    expect(text).toContain(charge.tradeName);
    expect(text).toContain("Cuota de diciembre");
    expect(text).toContain("Pendiente");
    expect(text).toContain("Para pagar hoy $ 1.234,56");
    expect(text).toContain("Vence el 10/12/2026 $ 1.234,56");
    expect(shown.text).toContain(`value="${charge.cvu}"`);
    expect(shown.text).toContain('data-copy="cvu"');
    // The one inline script and style carry the nonce the policy allows; nothing is loaded from elsewhere.
    const nonce = /'nonce-([^']+)'/.exec(shown.headers.get("content-security-policy")!)![1];
    expect(shown.text).toContain(`<script nonce="${nonce}">`);
    expect(shown.text).toContain(`<style nonce="${nonce}">`);
    expect(shown.text).not.toMatch(/\b(src|href)=/);
    // CVU mode: no confirmation button; a new nonce for each response.
    expect(shown.text).not.toContain("payment-confirmation");
    expect((await page(charge.token)).headers.get("content-security-policy")).not.toBe(shown.headers.get("content-security-policy"));
  });

  it("owes the surcharge after the first due date by the Sandbox clock, then the balance after a partial payment, and falls past due after the second", async () => {
    const { merchant, admin } = await integration();
    const charge = await createCharge(merchant, { dueDates: ["2026-12-10", "2026-12-20"], surcharge: { type: "percentage", value: 10 } });
    const before = textOf((await page(charge.token)).text);
    expect(before).toContain("Para pagar hoy $ 1.000,00");
    expect(before).toContain("Vence el 10/12/2026 $ 1.000,00");
    expect(before).toContain("Con recargo, hasta el 20/12/2026 $ 1.100,00");

    expect((await admin.advanceClock({ advanceTo: "2026-12-11T13:00:00Z" })).status).toBe(200);
    expect(textOf((await page(charge.token)).text)).toContain("Para pagar hoy $ 1.100,00");

    expect((await admin.simulate({ cvu: charge.cvu, amount: 500 })).status).toBe(200);
    const partial = textOf((await page(charge.token)).text);
    expect(partial).toContain("Pago parcial");
    expect(partial).toContain("Para pagar hoy $ 600,00");
    expect(partial).toContain("Ya pagaste $ 500,00");

    expect((await admin.advanceClock({ advanceTo: "2026-12-21T13:00:00Z" })).status).toBe(200);
    const overdue = await page(charge.token);
    expect(textOf(overdue.text)).toContain("Vencido");
    expect(textOf(overdue.text)).toContain("Saldo sin pagar $ 600,00");
    expect(overdue.text).not.toContain(charge.cvu); // the CVU takes no more transfers for it
  });

  it("reads past due as soon as the last due date has passed, before any sweep closed the charge", async () => {
    const { merchant } = await integration();
    const charge = await createCharge(merchant);
    t.clock.set(new Date("2026-12-11T12:00:00Z"));
    try {
      expect(textOf((await page(charge.token)).text)).toContain("Vencido");
    } finally {
      t.clock.set(new Date("2026-11-22T15:00:00Z"));
    }
  });

  it("shows a paid charge as paid and a canceled one as canceled, neither with a CVU", async () => {
    const { merchant, admin } = await integration();
    const paid = await createCharge(merchant, { amount: 1500 });
    expect((await admin.simulate({ cvu: paid.cvu, amount: 1500 })).status).toBe(200);
    const paidPage = await page(paid.token);
    expect(textOf(paidPage.text)).toContain("Pagado");
    expect(textOf(paidPage.text)).toContain("Pagaste $ 1.500,00");
    expect(paidPage.text).not.toContain('data-copy="cvu"');

    const canceled = await createCharge(merchant);
    expect((await merchant("POST", `/payment-request/${canceled.referenceId}/cancel`)).status).toBe(200);
    const canceledPage = await page(canceled.token);
    expect(textOf(canceledPage.text)).toContain("Cancelado");
    expect(canceledPage.text).not.toContain('data-copy="cvu"');
  });

  it("404 with a page that says nothing more for an unknown token and for a draft's, on both operations", async () => {
    const { merchant } = await integration();
    const draft = await merchant("POST", "/payment-request", draftChargeBody({ description: "Borrador secreto" }));
    expect(draft.status, draft.text).toBe(201);
    const draftToken = (
      await t.database.db.selectFrom("charges").select("payer_page_token").where("id", "=", draft.json.paymentRequestId).executeTakeFirstOrThrow()
    ).payer_page_token;
    const withoutNonce = (html: string) => html.replace(/nonce="[^"]+"/g, "");
    const unknown = "0".repeat(64);
    const pages = [
      await page(unknown),
      await page("not-a-token"),
      await page(draftToken),
      await askForConfirmation(unknown),
      await askForConfirmation(draftToken),
    ];
    for (const answer of pages) {
      expect(answer.status).toBe(404);
      expectPageHeaders(answer.headers);
      expect(textOf(answer.text)).toContain("No encontramos este cobro");
      expect(withoutNonce(answer.text)).toBe(withoutNonce(pages[0]!.text)); // the same page whatever the token was
    }
    expect(pages[0]!.text).not.toContain(unknown);
    expect(pages[2]!.text).not.toContain("Borrador secreto");
  });

  it("ignores query parameters it does not know (a chat app's tracking ones)", async () => {
    const { merchant } = await integration();
    const charge = await createCharge(merchant);
    expect((await page(charge.token, "?fbclid=IwAR0abc&utm_source=whatsapp")).status).toBe(200);
  });
});

describe("the payment confirmation button (CUIL mode)", () => {
  it("appears once a payment was received; asking writes and queues one chat confirmation of the latest transfer, and asking again adds nothing", async () => {
    const { merchant, admin } = await integration();
    const charge = await cuilCharge(merchant);
    const pending = await page(charge.token);
    expect(pending.text).not.toContain("payment-confirmation");
    expect(textOf(pending.text)).toContain("Transferí desde una cuenta a tu nombre");

    const payment = await admin.simulate({ cvu: charge.cvu, amount: 400, cuil: PAYER_CUIL });
    expect(payment.status, payment.text).toBe(200);
    const paidPartly = await page(charge.token);
    expect(paidPartly.text).toContain(`action="/p/${charge.token}/payment-confirmation"`);
    expect(textOf(paidPartly.text)).toContain("Recibir la confirmación por WhatsApp");

    const asked = await askForConfirmation(charge.token);
    expect(asked.status).toBe(303);
    expect(asked.headers.get("location")).toBe(`/p/${charge.token}?confirmation=requested`);
    const transfer = await t.database.db.selectFrom("transfers").select("id").where("charge_id", "=", charge.id).executeTakeFirstOrThrow();
    const [row, ...others] = await confirmations(charge.id);
    expect(others).toEqual([]);
    expect(row).toMatchObject({
      channel: "whatsapp",
      kind: "payment_confirmation",
      status: "queued",
      recipient: "5491123456789",
      transfer_id: transfer.id,
      day: "2026-11-22",
    });
    expect(await sendJobKeys()).toContain(`send-notification:${row!.id}`);

    const after = await page(charge.token, "?confirmation=requested");
    expect(textOf(after.text)).toContain("Listo: pediste la confirmación de tu pago por WhatsApp.");
    expect(textOf(after.text)).toContain("La confirmación de tu pago está en camino por WhatsApp.");
    expect(after.text).not.toContain("payment-confirmation"); // no button while this transfer has its confirmation

    expect((await askForConfirmation(charge.token)).status).toBe(303);
    expect(await confirmations(charge.id)).toHaveLength(1);

    // The outbox shows it to the integrator.
    const outbox = await admin.call("GET", `/my-integration/notifications?referenceId=${charge.referenceId}`);
    expect(outbox.json.items).toEqual([
      expect.objectContaining({ notificationId: row!.id, kind: "payment_confirmation", channel: "whatsapp", status: "scheduled", to: "+5491123456789" }),
    ]);

    // A later payment is a new transfer: the button is back for it.
    expect((await admin.simulate({ cvu: charge.cvu, amount: 600, cuil: PAYER_CUIL })).status).toBe(200);
    expect((await page(charge.token)).text).toContain("payment-confirmation");
    expect((await askForConfirmation(charge.token)).status).toBe(303);
    expect(await confirmations(charge.id)).toHaveLength(2);
  });

  it("409 with the page and the reason before any payment, in CVU mode, and without a phone number; nothing is written", async () => {
    const { merchant, admin } = await integration();
    const unpaid = await cuilCharge(merchant);
    const cvuMode = await createCharge(merchant, { customer: { name: "Juan Pérez", phoneNumber: PHONE } });
    expect((await admin.simulate({ cvu: cvuMode.cvu, amount: 100 })).status).toBe(200);
    const noPhone = await cuilCharge(merchant, { taxDocument: "27111111117", email: "juan@example.com" });
    expect((await admin.simulate({ cvu: noPhone.cvu, amount: 100, cuil: "27111111117" })).status).toBe(200);

    for (const [charge, reason] of [
      [unpaid, "Todavía no recibimos un pago de este cobro."],
      [cvuMode, "La confirmación por WhatsApp de este cobro llega sola cuando se recibe el pago."],
      [noPhone, "Este cobro no tiene un número de WhatsApp al que enviar la confirmación."],
    ] as const) {
      const refused = await askForConfirmation(charge.token);
      expect(refused.status, reason).toBe(409);
      expectPageHeaders(refused.headers);
      expect(textOf(refused.text)).toContain(reason);
      expect(textOf(refused.text)).toContain(charge.tradeName); // the payer page itself, with the reason on it
      expect(refused.text).not.toContain("payment-confirmation");
      expect(await confirmations(charge.id)).toEqual([]);
    }
  });
});

/** Every request the page makes, every console error or warning and uncaught exception. */
function watch(tab: Page): { requests: Request[]; problems: string[] } {
  const requests: Request[] = [];
  const problems: string[] = [];
  tab.on("request", (request) => requests.push(request));
  tab.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") problems.push(`console ${message.type()}: ${message.text()}`);
  });
  tab.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  return { requests, problems };
}

describe("the payer page in Chromium at 375 px", () => {
  it("fits the phone's screen, copies the CVU, and loads nothing from anywhere else", async () => {
    const { merchant } = await integration();
    const charge = await createCharge(merchant, { description: "Cuota de diciembre con una descripción bastante más larga de lo habitual", amount: 123456.78 });
    const origin = new URL(t.integrationUrl).origin;
    await browser.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin });
    const tab = await browser.context.newPage();
    const { requests, problems } = watch(tab);
    expect((await tab.goto(`${t.integrationUrl}/p/${charge.token}`))?.status()).toBe(200);
    expect(await tab.getAttribute("html", "lang")).toBe("es");
    expect(await tab.locator("h1").innerText()).toBe("Cuota de diciembre con una descripción bastante más larga de lo habitual");
    expect(await tab.locator(".amount").innerText()).toBe("$ 123.456,78");
    const cvu = tab.getByLabel("CVU para transferir");
    expect(await cvu.inputValue()).toBe(charge.cvu);
    expect(await cvu.evaluate((field: { scrollWidth: number; clientWidth: number }) => field.scrollWidth <= field.clientWidth)).toBe(true); // all 22 digits in sight

    const copy = tab.locator("button[data-copy]");
    expect(await copy.innerText()).toBe("Copiar");
    expect(await copy.isVisible()).toBe(true);
    const box = await copy.boundingBox();
    expect(box!.x + box!.width).toBeLessThanOrEqual(375);
    await copy.click();
    await expect.poll(() => copy.innerText()).toBe("¡Copiado!");
    expect(await tab.evaluate("navigator.clipboard.readText()")).toBe(charge.cvu);

    expect(await tab.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375); // no sideways scrolling
    expect(requests.filter((request) => new URL(request.url()).origin !== origin).map((request) => request.url())).toEqual([]);
    expect(problems).toEqual([]);
    await tab.close();
  });

  it("asks for the payment confirmation with the button and comes back to the page that says so", async () => {
    const { merchant, admin } = await integration();
    const charge = await cuilCharge(merchant);
    expect((await admin.simulate({ cvu: charge.cvu, amount: 1000, cuil: PAYER_CUIL })).status).toBe(200);
    const origin = new URL(t.integrationUrl).origin;
    const tab = await browser.context.newPage();
    const { requests, problems } = watch(tab);
    await tab.goto(`${t.integrationUrl}/p/${charge.token}`);
    expect(await tab.locator(".state").innerText()).toBe("Pagado");
    const button = tab.getByRole("button", { name: "Recibir la confirmación por WhatsApp" });
    expect(await button.isVisible()).toBe(true);
    await Promise.all([tab.waitForURL(`${t.integrationUrl}/p/${charge.token}?confirmation=requested`), button.click()]);
    expect(await tab.getByRole("status").innerText()).toBe("Listo: pediste la confirmación de tu pago por WhatsApp.");
    expect(await button.count()).toBe(0);
    expect(await confirmations(charge.id)).toEqual([expect.objectContaining({ status: "queued", channel: "whatsapp" })]);

    expect(await tab.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
    expect(requests.every((request) => new URL(request.url()).origin === origin)).toBe(true);
    expect(requests.map((request) => `${request.method()} ${new URL(request.url()).pathname}`)).toEqual([
      `GET /p/${charge.token}`,
      `POST /p/${charge.token}/payment-confirmation`,
      `GET /p/${charge.token}`,
    ]);
    expect(problems).toEqual([]);
    await tab.close();
  });
});
