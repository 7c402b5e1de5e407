// The payer page as HTML: Spanish, made for a phone first, with no external assets. Its style and its one
// small script (the CVU's copy button) are inline and allowed by a nonce drawn for each response, so the
// Content-Security-Policy allows nothing else; every page comes with its headers from here.
import { randomBytes } from "node:crypto";
import { dueDateForPayers } from "../../domain/argentina-time.ts";
import { formatPesos } from "../../domain/money.ts";
import type { ConfirmationRefusal, PayerPage, PayerPageState } from "../../domain/notifications/payer-page.ts";
import { payerPagePath } from "../../domain/notifications/payer-page-link.ts";
import type { NotificationStatus } from "../../db/tables/notifications.table.ts";
import { escapeHtml } from "../../domain/html.ts";
import { htmlDocument } from "./html-document.ts";

export interface RenderedPage {
  body: string;
  headers: Record<string, string>;
}

/** What the page says above the charge: the request just made, or why it was refused. */
export type PayerPageNotice = { kind: "confirmation_requested" } | { kind: "confirmation_refused"; refusal: ConfirmationRefusal };

const STATE_WORDS: Record<PayerPageState, string> = {
  pending: "Pendiente",
  partial_payment: "Pago parcial",
  paid: "Pagado",
  overdue: "Vencido",
  canceled: "Cancelado",
};

const REFUSAL_TEXT: Record<ConfirmationRefusal, string> = {
  cvu_mode: "La confirmación por WhatsApp de este cobro llega sola cuando se recibe el pago.",
  no_payment: "Todavía no recibimos un pago de este cobro. Cuando llegue, vas a poder pedir la confirmación.",
  no_phone: "Este cobro no tiene un número de WhatsApp al que enviar la confirmación.",
};

/** The confirmation of the latest payment, by where its message stands. */
function confirmationLine(status: NotificationStatus): string {
  switch (status) {
    case "scheduled":
    case "queued":
      return "La confirmación de tu pago está en camino por WhatsApp.";
    case "sent":
    case "simulated":
      return "Te enviamos la confirmación de tu pago por WhatsApp.";
    default:
      return "No pudimos enviarte la confirmación de tu pago por WhatsApp.";
  }
}

function headersFor(nonce: string): Record<string, string> {
  return {
    "Cache-Control": "no-store",
    "Content-Security-Policy": `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    "Referrer-Policy": "no-referrer",
    "X-Robots-Tag": "noindex",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
  };
}

const STYLE = `
  :root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  body { margin: 0; background: #f4f6f8; color: #1c2430; }
  main { max-width: 28rem; margin: 0 auto; padding: 1rem; }
  section { background: #fff; border-radius: 12px; box-shadow: 0 1px 4px rgba(0,0,0,.08); padding: 1.25rem; margin-bottom: 1rem; }
  .merchant { margin: .5rem 0 .25rem; font-size: .95rem; color: #5b6775; }
  h1 { font-size: 1.3rem; margin: 0 0 1rem; overflow-wrap: anywhere; }
  .state { display: inline-block; padding: .2rem .6rem; border-radius: 999px; font-size: .85rem; font-weight: 600; background: #eef5ff; color: #0b4aa8; }
  .state.paid { background: #e6f6ec; color: #146c2e; }
  .state.overdue, .state.canceled { background: #fdecec; color: #9b1c1c; }
  .label { margin: 1rem 0 .25rem; color: #5b6775; font-size: .9rem; }
  section > .label:first-child { margin-top: 0; }
  .amount { margin: 0; font-size: 2rem; font-weight: 700; }
  p { line-height: 1.4; }
  .copy { display: grid; gap: .5rem; }
  .copy input { width: 100%; box-sizing: border-box; padding: .7rem .5rem; font: 1rem ui-monospace, SFMono-Regular, Menlo, monospace; text-align: center; border: 1px solid #b8c2cc; border-radius: 8px; background: #f8fafc; color: inherit; }
  button { padding: .7rem 1rem; font-size: 1rem; font-weight: 600; color: #fff; background: #0b5cd5; border: 0; border-radius: 8px; cursor: pointer; }
  form button { width: 100%; }
  ul { list-style: none; margin: 0; padding: 0; }
  li { display: flex; justify-content: space-between; gap: 1rem; padding: .5rem 0; border-top: 1px solid #e3e8ee; }
  li:first-child { border-top: 0; }
  li strong { white-space: nowrap; }
  .notice { padding: .75rem 1rem; border-radius: 8px; background: #e6f6ec; color: #146c2e; }
  .notice.refused { background: #fdecec; color: #9b1c1c; }
  small { display: block; color: #5b6775; text-align: center; }
`;

// Copies the CVU; where the clipboard is not available (an old browser) the field is selected for the payer to copy.
const COPY_SCRIPT = `
  for (const button of document.querySelectorAll("button[data-copy]")) {
    button.addEventListener("click", async () => {
      const field = document.getElementById(button.dataset.copy);
      field.select();
      try {
        await navigator.clipboard.writeText(field.value);
        button.textContent = "¡Copiado!";
      } catch {
        button.textContent = "Seleccionado";
      }
    });
  }
`;

function layout(title: string, content: string, nonce: string): string {
  return htmlDocument({ title, style: STYLE, main: `${content}\n<small>Cobro por transferencia bancaria</small>`, script: COPY_SCRIPT, nonce, noindex: true });
}

function amountSection(page: PayerPage, merchant: string): string {
  const paid = page.paidCents > 0 ? `<p>Ya pagaste <strong>${formatPesos(page.paidCents)}</strong>.</p>` : "";
  switch (page.state) {
    case "paid":
      return `<p class="label">Pagaste</p><p class="amount">${formatPesos(page.paidCents)}</p><p>Recibimos tu pago. ¡Gracias!</p>`;
    case "canceled":
      return `<p>${merchant} canceló este cobro: no tenés que pagarlo.</p>`;
    case "overdue":
      return `<p class="label">Saldo sin pagar</p><p class="amount">${formatPesos(page.owedTodayCents)}</p>${paid}<p>El cobro venció y ya no recibe transferencias. Consultá a ${merchant} cómo pagarlo.</p>`;
    default:
      return `<p class="label">Para pagar hoy</p><p class="amount">${formatPesos(page.owedTodayCents)}</p>${paid}`;
  }
}

function cvuSection(page: PayerPage): string {
  if (!page.cvu) return "";
  const own = page.cuilMode ? "<p>Transferí desde una cuenta a tu nombre: así identificamos tu pago.</p>" : "";
  return `<section>
<p class="label"><label for="cvu">CVU para transferir</label></p>
<div class="copy"><input id="cvu" readonly value="${escapeHtml(page.cvu)}" inputmode="none"><button type="button" data-copy="cvu">Copiar</button></div>
${own}
</section>`;
}

function dueDatesSection(page: PayerPage): string {
  const [first, second] = page.dueDates;
  if (!first) return "";
  const rows = [`<li><span>Vence el ${dueDateForPayers(first.dueDate)}</span><strong>${formatPesos(first.amountCents)}</strong></li>`];
  if (second) rows.push(`<li><span>Con recargo, hasta el ${dueDateForPayers(second.dueDate)}</span><strong>${formatPesos(second.amountCents)}</strong></li>`);
  return `<section><p class="label">Vencimientos</p><ul>${rows.join("")}</ul></section>`;
}

function confirmationSection(page: PayerPage, token: string): string {
  if (!page.confirmation.available) return "";
  if (page.confirmation.status) return `<section><p>${confirmationLine(page.confirmation.status)}</p></section>`;
  return `<section>
<p>¿Querés la confirmación de tu pago?</p>
<form method="post" action="${escapeHtml(payerPagePath(token))}/payment-confirmation"><button type="submit">Recibir la confirmación por WhatsApp</button></form>
</section>`;
}

function noticeOf(notice: PayerPageNotice | undefined): string {
  if (!notice) return "";
  if (notice.kind === "confirmation_requested") return `<p class="notice" role="status">Listo: pediste la confirmación de tu pago por WhatsApp.</p>`;
  return `<p class="notice refused" role="alert">${REFUSAL_TEXT[notice.refusal]}</p>`;
}

export function renderPayerPage(page: PayerPage, token: string, notice?: PayerPageNotice): RenderedPage {
  const nonce = randomBytes(16).toString("base64");
  const merchant = escapeHtml(page.tradeName);
  const content = `${noticeOf(notice)}
<p class="merchant">${merchant}</p>
<section>
<h1>${escapeHtml(page.description)}</h1>
<span class="state ${page.state}">${STATE_WORDS[page.state]}</span>
${amountSection(page, merchant)}
</section>
${cvuSection(page)}
${dueDatesSection(page)}
${confirmationSection(page, token)}`;
  return { body: layout(`${page.description} · ${page.tradeName}`, content, nonce), headers: headersFor(nonce) };
}

/** The page for a token that matches no charge: it says nothing more. */
export function renderPayerPageNotFound(): RenderedPage {
  const nonce = randomBytes(16).toString("base64");
  const content = `<section>
<h1>No encontramos este cobro</h1>
<p>Revisá que el enlace esté completo, o consultá a quien te lo envió.</p>
</section>`;
  return { body: layout("Cobro no encontrado", content, nonce), headers: headersFor(nonce) };
}
