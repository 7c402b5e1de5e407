// The pages of the links Cobro mails to merchant accounts: accepting to receive an integration's
// commissions (the payout link) and answering a commission proposal. Plain server-rendered HTML in
// Spanish with the look of the authorization screen: the merchant account signs in on the page itself
// (nothing is remembered between visits), and the link's token travels in a hidden field.
import { argentinaDisplayInstant } from "../../domain/argentina-time.ts";
import { DomainError } from "../../domain/errors.ts";
import { escapeHtml } from "../../domain/html.ts";
import { formatPercentage } from "../../domain/commissions/offer.ts";
import { htmlDocument } from "./html-document.ts";
import { FORGET_TOKEN_IN_ADDRESS_BAR } from "./emailed-link-page.ts";
import { AUTH_PAGE_STYLE } from "./sign-in-page.ts";

const STYLE = `${AUTH_PAGE_STYLE}
  main { overflow-wrap: anywhere; }
  .ok { background: #e8f6ee; color: #14532d; padding: .5rem .75rem; border-radius: 8px; }
  .terms { background: #eef5ff; padding: .5rem .75rem; border-radius: 8px; }
  button.secondary { margin-top: .75rem; color: #0b5cd5; background: #fff; border: 1px solid #0b5cd5; }
`;

/** A refusal the page shows on its form (its code, as `data-code`, and the words for people). */
export interface PageRefusal {
  code: string;
  text: string;
}

function refusalParagraph(refusal: PageRefusal): string {
  return `<p class="error" role="alert" data-code="${escapeHtml(refusal.code)}">${escapeHtml(refusal.text)}</p>`;
}

function signInFields(token: string, email: string): string {
  return `<input type="hidden" name="token" value="${escapeHtml(token)}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(email)}">
<label for="password">Contraseña</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>`;
}

function page(input: { title: string; nonce: string; main: string; withToken: boolean }): string {
  return htmlDocument({
    title: input.title,
    style: STYLE,
    nonce: input.nonce,
    noindex: true,
    main: input.main,
    ...(input.withToken ? { script: FORGET_TOKEN_IN_ADDRESS_BAR } : {}),
  });
}

// ----- The payout link ---------------------------------------------------------------------------------

export const PAYOUT_LINK_INVALID_TEXT =
  "Este enlace ya no sirve: venció (dura 7 días), ya se usó o la integración envió una invitación más nueva. Pedile que te la reenvíe.";

export function renderPayoutLinkForm(input: {
  token: string;
  nonce: string;
  integrationName: string;
  invitedEmail: string;
  email?: string;
  refusal?: PageRefusal;
}): string {
  const name = escapeHtml(input.integrationName);
  return page({
    title: "Recibir las comisiones",
    nonce: input.nonce,
    withToken: true,
    main: `<h1>Recibir las comisiones de ${name}</h1>
<p><strong>${name}</strong> te invita a recibir en tu cuenta de comercio de Cobro las comisiones que cobra sobre los pagos de sus comercios.</p>
<p class="terms">Ingresá con la cuenta de comercio de <strong>${escapeHtml(input.invitedEmail)}</strong>: solo esa cuenta puede aceptar.</p>
${input.refusal ? refusalParagraph(input.refusal) : ""}
<form method="post" action="/integration/payout-link/accept">
${signInFields(input.token, input.email ?? input.invitedEmail)}
<button type="submit">Ingresar y aceptar</button>
</form>
<small>Tu contraseña no se comparte con ${name}.</small>`,
  });
}

export function renderPayoutLinkInvalid(nonce: string): string {
  return page({
    title: "Enlace vencido",
    nonce,
    withToken: true,
    main: `<h1>El enlace no sirve</h1>\n${refusalParagraph({ code: "MerchantInvitationLinkInvalidError", text: PAYOUT_LINK_INVALID_TEXT })}`,
  });
}

export function renderPayoutLinkAccepted(nonce: string, integrationName: string): string {
  return page({
    title: "Listo",
    nonce,
    withToken: false,
    main: `<h1>Listo</h1>
<p class="ok" role="status">Aceptaste: tu cuenta de comercio recibe las comisiones de ${escapeHtml(integrationName)}.</p>`,
  });
}

// ----- Commission proposals ----------------------------------------------------------------------------

export const COMMISSION_PROPOSAL_INVALID_TEXT =
  "Este enlace ya no sirve: la propuesta ya se respondió, se retiró, fue reemplazada por una más nueva o venció (dura 7 días). Tu comisión sigue como estaba.";

export interface CommissionProposalPageInput {
  token: string;
  nonce: string;
  integrationName: string;
  merchantEmail: string;
  currentPercentage: number;
  proposedPercentage: number;
  expiresAt: Date;
  email?: string;
  refusal?: PageRefusal;
}

export function renderCommissionProposalForm(input: CommissionProposalPageInput): string {
  const name = escapeHtml(input.integrationName);
  return page({
    title: "Cambio de comisión",
    nonce: input.nonce,
    withToken: true,
    main: `<h1>${name} te propone un cambio de comisión</h1>
<p class="terms">Comisión actual: <strong>${escapeHtml(formatPercentage(input.currentPercentage))}</strong> por cobro.<br>
Comisión propuesta: <strong>${escapeHtml(formatPercentage(input.proposedPercentage))}</strong> por cobro.</p>
<p>Si aceptás, la nueva comisión se aplica a los pagos que recibas desde ese momento. La propuesta vence el ${escapeHtml(argentinaDisplayInstant(input.expiresAt))} (hora de Argentina).</p>
${input.refusal ? refusalParagraph(input.refusal) : ""}
<form method="post" action="/integration/commission-proposals/answer">
${signInFields(input.token, input.email ?? input.merchantEmail)}
<button type="submit" name="decision" value="accept">Ingresar y aceptar</button>
<button type="submit" name="decision" value="reject" class="secondary">Ingresar y rechazar</button>
</form>
<small>Tu contraseña no se comparte con ${name}.</small>`,
  });
}

export function renderCommissionProposalInvalid(nonce: string): string {
  return page({
    title: "Enlace vencido",
    nonce,
    withToken: true,
    main: `<h1>El enlace no sirve</h1>\n${refusalParagraph({ code: "MerchantInvitationLinkInvalidError", text: COMMISSION_PROPOSAL_INVALID_TEXT })}`,
  });
}

export function renderCommissionProposalAnswered(
  nonce: string,
  answer: { decision: "accept" | "reject"; integrationName: string; currentPercentage: number; proposedPercentage: number },
): string {
  const text =
    answer.decision === "accept"
      ? `Aceptaste: la comisión de ${answer.integrationName} sobre tus cobros pasa a ser ${formatPercentage(answer.proposedPercentage)}.`
      : `Rechazaste la propuesta: la comisión de ${answer.integrationName} sigue en ${formatPercentage(answer.currentPercentage)}.`;
  return page({
    title: answer.decision === "accept" ? "Comisión aceptada" : "Propuesta rechazada",
    nonce,
    withToken: false,
    main: `<h1>${answer.decision === "accept" ? "Comisión aceptada" : "Propuesta rechazada"}</h1>
<p class="ok" role="status">${escapeHtml(text)}</p>`,
  });
}

// ----- Refusals the pages answer themselves -------------------------------------------------------------

/** The page status of a refusal of the form; undefined for anything else (answered by the error mapping). */
export function consentRefusalStatus(error: unknown): { status: 401 | 403 | 410; code: string } | undefined {
  if (!(error instanceof DomainError)) return undefined;
  if (error.code === "InvalidGrantError" || error.code === "InvalidCredentialsError" || error.code === "MerchantAccountNotActiveError")
    return { status: 401, code: error.code };
  if (error.code === "MerchantAccountNotInvitedError") return { status: 403, code: error.code };
  if (error.code === "MerchantInvitationLinkInvalidError") return { status: 410, code: error.code };
  return undefined;
}
