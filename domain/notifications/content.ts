// What a payer notification says, in Spanish: the facts of one message (gathered by the send use case
// from the charge, its merchant, its CVU and the payer page) and their two renderings, an email (subject,
// text and HTML, no external assets) and the parameters of a chat template. Pure: no database, no clock.
import { escapeHtml } from "../html.ts";
import { isolatedForDisplay } from "../display-text.ts";
import type { Charge } from "../../db/tables/charges.table.ts";
import type { NotificationKind } from "../../db/tables/notifications.table.ts";
import { dueDateForPayers, parseDueDate } from "../argentina-time.ts";
import { amountOwedCents } from "../amount-owed.ts";
import { formatPesos } from "../money.ts";
import type { ChatContent, EmailContent } from "../outbound/sender.ts";

/** Everything a message shows, already as the payer reads it. */
export interface MessageFacts {
  kind: NotificationKind;
  /** The merchant's trade name (its fantasy name, else the account holder's name). */
  tradeName: string;
  customerName: string;
  description: string;
  /** The CVU to transfer to; `—` when the charge holds none. */
  cvu: string;
  /** What is left to pay as of the message (`$ 1.234,56`): owed at its time, surcharge included, minus what was paid. */
  amountDue: string;
  /** The due date that applies at the message's time: `DD/MM/YYYY`, with the time for a short-lived charge. */
  dueDate: string;
  payerPageUrl: string;
  /** Only for a payment confirmation: the amount of the transfer it confirms. */
  amountReceived?: string;
}

export interface FactsInput {
  kind: NotificationKind;
  /** The message's `scheduled_for`, in the integration's time: what is owed and which due date applies are judged then. */
  at: Date;
  charge: Pick<Charge, "amount_cents" | "surcharge_cents" | "paid_cents" | "first_due_at" | "due_dates" | "description" | "customer_name">;
  merchant: { fantasyName: string; accountHolderName: string };
  cvu: string | null;
  payerPageUrl: string;
  /** A payment confirmation's transfer, in cents. */
  receivedCents?: number;
}

export function messageFacts(input: FactsInput): MessageFacts {
  const { charge, at } = input;
  const owed = amountOwedCents(charge, at);
  if (owed === undefined) throw new RangeError("a draft has no amount to notify");
  return {
    kind: input.kind,
    tradeName: isolatedForDisplay(input.merchant.fantasyName.trim() || input.merchant.accountHolderName),
    customerName: isolatedForDisplay(charge.customer_name),
    description: isolatedForDisplay(charge.description),
    cvu: input.cvu ?? "—",
    amountDue: formatPesos(Math.max(0, owed - charge.paid_cents)),
    dueDate: dueDateAt(charge.due_dates, at),
    payerPageUrl: input.payerPageUrl,
    ...(input.receivedCents !== undefined ? { amountReceived: formatPesos(input.receivedCents) } : {}),
  };
}

/** The first due date not yet passed at `at` (the last one once all have), as the payer reads it. */
function dueDateAt(dueDates: string[], at: Date): string {
  const parsed = dueDates.map((input) => parseDueDate(input)).filter((date) => date !== undefined);
  const applying = parsed.find((date) => at.getTime() < date.dueAt.getTime()) ?? parsed.at(-1);
  if (applying === undefined) throw new RangeError("a charge without a due date");
  return dueDateForPayers(applying);
}

interface Wording {
  subject: string;
  /** The message's first sentence, after the greeting. */
  lead: string;
}

function wording(facts: MessageFacts): Wording {
  const { tradeName, dueDate } = facts;
  switch (facts.kind) {
    case "initial":
      return { subject: `${tradeName} te envió un pedido de pago`, lead: `${tradeName} te envió un pedido de pago con vencimiento el ${dueDate}.` };
    case "advance_reminder":
      return { subject: `Recordatorio: tu pago a ${tradeName} vence el ${dueDate}`, lead: `Te recordamos que tu pago a ${tradeName} vence el ${dueDate}.` };
    case "due_date":
      return { subject: `Hoy vence tu pago a ${tradeName}`, lead: `Hoy, ${dueDate}, vence tu pago a ${tradeName}.` };
    case "first_due_date_passed":
      return {
        subject: `Venció el primer plazo de tu pago a ${tradeName}`,
        lead: `Venció el primer plazo de tu pago a ${tradeName}. Todavía podés pagar hasta el ${dueDate}, con el recargo incluido en el monto.`,
      };
    case "second_due_date":
      return { subject: `Hoy es el último día para pagar a ${tradeName}`, lead: `Hoy, ${dueDate}, es el último día para pagar a ${tradeName}.` };
    case "payment_confirmation":
      return { subject: `Recibimos tu pago a ${tradeName}`, lead: `Recibimos tu transferencia de ${facts.amountReceived ?? ""} para ${tradeName}.` };
  }
}

/** The labelled lines of a message's body, in order. */
function details(facts: MessageFacts): Array<[label: string, value: string]> {
  if (facts.kind === "payment_confirmation") {
    const lines: Array<[string, string]> = [
      ["Concepto", facts.description],
      ["Monto recibido", facts.amountReceived ?? ""],
      ["Saldo pendiente", facts.amountDue],
    ];
    if (facts.amountDue !== formatPesos(0)) lines.push(["CVU para transferir el saldo", facts.cvu]);
    return lines;
  }
  return [
    ["Concepto", facts.description],
    ["Monto a pagar", facts.amountDue],
    ["CVU para transferir", facts.cvu],
    ["Vencimiento", facts.dueDate],
  ];
}

const LINK_LABEL = "Ver el detalle y copiar el CVU";

export function emailContent(facts: MessageFacts): EmailContent {
  const { subject, lead } = wording(facts);
  const lines = details(facts);
  const footer = `Este aviso lo envía Cobro en nombre de ${facts.tradeName}.`;
  const text = [
    `Hola ${facts.customerName}:`,
    "",
    lead,
    "",
    ...lines.map(([label, value]) => `${label}: ${value}`),
    "",
    `${LINK_LABEL}: ${facts.payerPageUrl}`,
    "",
    footer,
    "",
  ].join("\n");
  const rows = lines
    .map(
      ([label, value]) =>
        `<tr><td style="padding:4px 12px 4px 0;color:#555">${escapeHtml(label)}</td><td style="padding:4px 0;font-weight:bold">${escapeHtml(value)}</td></tr>`,
    )
    .join("");
  const html = [
    `<!DOCTYPE html><html lang="es"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>`,
    `<body style="margin:0;padding:24px;font-family:Arial,Helvetica,sans-serif;font-size:16px;color:#222;background:#fff">`,
    `<p>Hola ${escapeHtml(facts.customerName)}:</p>`,
    `<p>${escapeHtml(lead)}</p>`,
    `<table role="presentation" style="border-collapse:collapse">${rows}</table>`,
    `<p><a href="${escapeHtml(facts.payerPageUrl)}" style="color:#0b57d0">${LINK_LABEL}</a></p>`,
    `<p style="color:#777;font-size:13px">${escapeHtml(footer)}</p>`,
    `</body></html>`,
  ].join("\n");
  // A header holds one line: whatever a merchant or integrator typed, the subject stays on it.
  return { subject: oneLine(subject), text, html };
}

function oneLine(value: string): string {
  return value.replace(/\s+/g, " ").trim();
}

/** The language of every chat template. */
export const CHAT_TEMPLATE_LANGUAGE = "es_AR";

/**
 * The body parameters of the chat template `{templatePrefix}{kind}`, in this order (the approved templates
 * number their placeholders the same way):
 *   {{1}} the merchant's trade name, {{2}} the amount to pay (for `payment_confirmation`: the amount
 *   received), {{3}} the CVU to transfer to, {{4}} the due date (`DD/MM/YYYY`), {{5}} the payer page's
 *   link; `payment_confirmation` adds {{6}}, the balance still to pay (`$ 0,00` once paid in full).
 * A provider refuses a parameter with line breaks, tabs or long runs of spaces, so each is one line.
 */
export function chatParameters(facts: MessageFacts): string[] {
  const confirmation = facts.kind === "payment_confirmation";
  const parameters = [facts.tradeName, confirmation ? (facts.amountReceived ?? "") : facts.amountDue, facts.cvu, facts.dueDate, facts.payerPageUrl];
  if (confirmation) parameters.push(facts.amountDue);
  return parameters.map((parameter) => oneLine(parameter) || "—");
}

export function chatContent(facts: MessageFacts): ChatContent {
  return { kind: facts.kind, languageCode: CHAT_TEMPLATE_LANGUAGE, parameters: chatParameters(facts) };
}
