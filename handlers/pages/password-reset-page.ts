// The admins' password reset page: plain server-rendered HTML in Spanish, readable on a phone, with the
// look of the authorization screen. Its one inline script takes the token out of the address bar (and so
// out of the history); the form carries it in a hidden field.
import { escapeHtml } from "../../domain/html.ts";
import { CHOSEN_PASSWORD_LENGTH } from "../../domain/sign-in/password-links.ts";
import { htmlDocument } from "./html-document.ts";
import { AUTH_PAGE_STYLE } from "./sign-in-page.ts";
import { FORGET_TOKEN_IN_ADDRESS_BAR } from "./emailed-link-page.ts";
import { tooManyAttemptsText } from "./too-many-attempts.ts";

const STYLE = `${AUTH_PAGE_STYLE}
  .ok { background: #e8f6ee; color: #14532d; padding: .5rem .75rem; border-radius: 8px; }
`;

const ERROR_TEXT: Record<string, string> = {
  ValidationError: `La contraseña nueva tiene que tener entre ${CHOSEN_PASSWORD_LENGTH.min} y ${CHOSEN_PASSWORD_LENGTH.max} caracteres.`,
  PasswordResetLinkInvalidError:
    "Este enlace ya no sirve: venció (dura una hora), ya se usó o pediste uno más nuevo. Pedí otro desde el ingreso de administración.",
};

function errorParagraph(code: string, retryAfterSeconds?: number): string {
  const text = retryAfterSeconds !== undefined ? tooManyAttemptsText(retryAfterSeconds) : (ERROR_TEXT[code] ?? "No pudimos cambiar la contraseña.");
  return `<p class="error" role="alert" data-code="${escapeHtml(code)}">${escapeHtml(text)}</p>`;
}

/** The form; `errorCode` is the refusal of a previous attempt (a too short password, too many attempts: then `retryAfterSeconds`). */
export function renderPasswordResetForm(input: { token: string; nonce: string; errorCode?: string; retryAfterSeconds?: number }): string {
  return htmlDocument({
    title: "Elegí una contraseña nueva",
    style: STYLE,
    nonce: input.nonce,
    noindex: true,
    script: FORGET_TOKEN_IN_ADDRESS_BAR,
    main: `<h1>Elegí una contraseña nueva</h1>
<p>Es para tu cuenta de administración en Cobro. Al guardarla se cierran todas tus sesiones abiertas.</p>
${input.errorCode ? errorParagraph(input.errorCode, input.retryAfterSeconds) : ""}
<form method="post" action="/integration/admin/password-reset/page">
<input type="hidden" name="token" value="${escapeHtml(input.token)}">
<label for="newPassword">Contraseña nueva</label>
<input id="newPassword" name="newPassword" type="password" autocomplete="new-password" required minlength="${CHOSEN_PASSWORD_LENGTH.min}" maxlength="${CHOSEN_PASSWORD_LENGTH.max}" aria-describedby="rule">
<small id="rule">Al menos ${CHOSEN_PASSWORD_LENGTH.min} caracteres.</small>
<button type="submit">Guardar contraseña</button>
</form>`,
  });
}

/** A link that no longer works. */
export function renderPasswordResetLinkInvalid(nonce: string): string {
  return htmlDocument({
    title: "Enlace vencido",
    style: STYLE,
    nonce,
    noindex: true,
    script: FORGET_TOKEN_IN_ADDRESS_BAR,
    main: `<h1>El enlace no sirve</h1>\n${errorParagraph("PasswordResetLinkInvalidError")}`,
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
