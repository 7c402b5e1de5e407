// The password pages that emailed links open: an admin's reset, and a merchant account's invitation or
// reset, with the merchant's "forgot password" form. Plain server-rendered HTML in Spanish, readable on a
// phone, with the look of the authorization screen. The one inline script of a link's page takes the
// token out of the address bar (and so out of the history); the form carries it in a hidden field.
import { escapeHtml } from "../../domain/html.ts";
import type { PasswordAccountKind } from "../../domain/password-links/password-links.ts";
import { CHOSEN_PASSWORD_LENGTH } from "../../domain/sign-in/password-reset.ts";
import { htmlDocument } from "./html-document.ts";
import { AUTH_PAGE_STYLE, MERCHANT_FORGOT_PASSWORD_PATH } from "./sign-in-page.ts";
import { FORGET_TOKEN_IN_ADDRESS_BAR } from "./emailed-link-page.ts";
import { tooManyAttemptsText } from "./too-many-attempts.ts";

const STYLE = `${AUTH_PAGE_STYLE}
  .ok { background: #e8f6ee; color: #14532d; padding: .5rem .75rem; border-radius: 8px; }
  .forgot { display: block; margin-top: 1rem; text-align: center; }
`;

const LINK_INVALID_TEXT: Record<PasswordAccountKind, string> = {
  admin: "Este enlace ya no sirve: venció (dura una hora), ya se usó o pediste uno más nuevo. Pedí otro desde el ingreso de administración.",
  merchant: "Este enlace ya no sirve: venció, ya se usó o pediste uno más nuevo. Pedí otro con «¿Olvidaste tu contraseña?».",
};

function errorParagraph(code: string, kind: PasswordAccountKind, retryAfterSeconds?: number): string {
  const texts: Record<string, string> = {
    ValidationError: `La contraseña nueva tiene que tener entre ${CHOSEN_PASSWORD_LENGTH.min} y ${CHOSEN_PASSWORD_LENGTH.max} caracteres.`,
    PasswordResetLinkInvalidError: LINK_INVALID_TEXT[kind],
  };
  const text = retryAfterSeconds !== undefined ? tooManyAttemptsText(retryAfterSeconds) : (texts[code] ?? "No pudimos cambiar la contraseña.");
  return `<p class="error" role="alert" data-code="${escapeHtml(code)}">${escapeHtml(text)}</p>`;
}

const FORM_INTRO: Record<PasswordAccountKind, string> = {
  admin: "Es para tu cuenta de administración en Cobro. Al guardarla se cierran todas tus sesiones abiertas.",
  merchant: "Es para tu cuenta de comercio en Cobro: con ella ingresás en la pantalla de autorización de las integraciones.",
};

/** The form; `errorCode` is the refusal of a previous attempt (a too short password, too many attempts: then `retryAfterSeconds`). */
export function renderPasswordResetForm(input: {
  token: string;
  nonce: string;
  errorCode?: string;
  retryAfterSeconds?: number;
  kind?: PasswordAccountKind;
}): string {
  const kind = input.kind ?? "admin";
  return htmlDocument({
    title: "Elegí una contraseña nueva",
    style: STYLE,
    nonce: input.nonce,
    noindex: true,
    script: FORGET_TOKEN_IN_ADDRESS_BAR,
    main: `<h1>Elegí una contraseña nueva</h1>
<p>${escapeHtml(FORM_INTRO[kind])}</p>
${input.errorCode ? errorParagraph(input.errorCode, kind, input.retryAfterSeconds) : ""}
<form method="post" action="/integration/${kind}/password-reset/page">
<input type="hidden" name="token" value="${escapeHtml(input.token)}">
<label for="newPassword">Contraseña nueva</label>
<input id="newPassword" name="newPassword" type="password" autocomplete="new-password" required minlength="${CHOSEN_PASSWORD_LENGTH.min}" maxlength="${CHOSEN_PASSWORD_LENGTH.max}" aria-describedby="rule">
<small id="rule">Al menos ${CHOSEN_PASSWORD_LENGTH.min} caracteres.</small>
<button type="submit">Guardar contraseña</button>
</form>`,
  });
}

/** A link that no longer works. */
export function renderPasswordResetLinkInvalid(nonce: string, kind: PasswordAccountKind = "admin"): string {
  const again = kind === "merchant" ? `\n<p><a href="${MERCHANT_FORGOT_PASSWORD_PATH}">Pedir otro enlace</a></p>` : "";
  return htmlDocument({
    title: "Enlace vencido",
    style: STYLE,
    nonce,
    noindex: true,
    script: FORGET_TOKEN_IN_ADDRESS_BAR,
    main: `<h1>El enlace no sirve</h1>\n${errorParagraph("PasswordResetLinkInvalidError", kind)}${again}`,
  });
}

/** The new password is set: the way to the portal, where the admin signs in with it. */
export function renderPasswordResetDone(nonce: string, portalUrl: string): string {
  return htmlDocument({
    title: "Contraseña actualizada",
    style: STYLE,
    nonce,
    noindex: true,
    main: `<h1>Contraseña actualizada</h1>
<p class="ok" role="status">Listo: ya podés ingresar con tu contraseña nueva. Cerramos tus otras sesiones.</p>
<p><a href="${escapeHtml(portalUrl)}">Ingresar al portal</a></p>`,
  });
}

/** The merchant's password is set: it signs in where an integration sends it (there is no portal for merchants). */
export function renderMerchantPasswordSet(nonce: string): string {
  return htmlDocument({
    title: "Contraseña guardada",
    style: STYLE,
    nonce,
    noindex: true,
    main: `<h1>Contraseña guardada</h1>
<p class="ok" role="status">Listo: ya podés ingresar con tu email y esta contraseña en la pantalla de autorización de la integración que uses. Volvé a la integración y empezá de nuevo.</p>`,
  });
}

/** The merchant's "forgot password" form. */
export function renderForgotPasswordForm(input: { nonce: string; email?: string; retryAfterSeconds?: number }): string {
  const refusal =
    input.retryAfterSeconds !== undefined
      ? `<p class="error" role="alert" data-code="TooManyAttemptsError">${escapeHtml(tooManyAttemptsText(input.retryAfterSeconds))}</p>\n`
      : "";
  return htmlDocument({
    title: "Restablecé tu contraseña",
    style: STYLE,
    nonce: input.nonce,
    noindex: true,
    main: `<h1>Restablecé tu contraseña</h1>
<p>Escribí el email de tu cuenta de comercio y te mandamos un enlace para elegir una contraseña nueva.</p>
${refusal}<form method="post" action="${MERCHANT_FORGOT_PASSWORD_PATH}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required maxlength="320" value="${escapeHtml(input.email ?? "")}">
<button type="submit">Enviar enlace</button>
</form>`,
  });
}

/** The same answer for any email: an account's owner finds the link in the mailbox, nobody else learns anything. */
export function renderForgotPasswordSent(nonce: string): string {
  return htmlDocument({
    title: "Revisá tu correo",
    style: STYLE,
    nonce,
    noindex: true,
    main: `<h1>Revisá tu correo</h1>
<p class="ok" role="status">Si ese email es de una cuenta de comercio activa, te enviamos un enlace para elegir una contraseña nueva. Vence en una hora y sirve una sola vez.</p>`,
  });
}
