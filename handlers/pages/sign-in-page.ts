// The authorization screen: plain server-rendered HTML in Spanish, readable on a phone, with no external
// assets (inline styles, no scripts). The merchant account signs in to link itself to the integration.
import { escapeHtml } from "../../domain/html.ts";
import { htmlDocument } from "./html-document.ts";

export interface SignInPageInput {
  integrationName: string;
  logoUrl: string | null;
  /** The fee of the integration's active offer, already worded (`2,5 % por cobro`). */
  fee?: string;
  transaction: string;
  csrf: string;
  email?: string;
  /** The refusal to show above the form. */
  error?: { code: string; message: string };
}

/** Where the merchant's "forgot password" form lives, linked from this screen. */
export const MERCHANT_FORGOT_PASSWORD_PATH = "/integration/merchant/password-reset";

/** The words for a refused merchant sign-in, on this screen and on the pages of links mailed to merchant accounts. */
export const MERCHANT_SIGN_IN_REFUSAL_TEXT: Record<string, string> = {
  InvalidGrantError: "No encontramos una cuenta de comercio con ese email.",
  InvalidCredentialsError: "La contraseña no es correcta.",
  MerchantAccountNotActiveError:
    "Tu cuenta de comercio está suspendida o cerrada, así que no puede autorizar integraciones. Consultá con tu proveedor de pagos.",
};

const ERROR_TEXT: Record<string, string> = {
  ...MERCHANT_SIGN_IN_REFUSAL_TEXT,
  SignInFormExpiredError: "El formulario venció o no se envió desde este navegador. Volvé a la aplicación y empezá de nuevo.",
};

/** The look of the Auth API's pages for people (this screen, its sign-out page, the admins' password reset). */
export const AUTH_PAGE_STYLE = `
  :root { color-scheme: light; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
  body { margin: 0; background: #f4f6f8; color: #1c2430; }
  main { max-width: 24rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border-radius: 12px; box-shadow: 0 1px 4px rgba(0,0,0,.08); }
  .logo { display: block; margin: 0 auto 1rem; border-radius: 8px; object-fit: contain; }
  h1 { font-size: 1.25rem; text-align: center; margin: 0 0 .5rem; }
  p { line-height: 1.4; }
  .fee { background: #eef5ff; padding: .5rem .75rem; border-radius: 8px; }
  .error { background: #fdecec; color: #9b1c1c; padding: .5rem .75rem; border-radius: 8px; }
  label { display: block; margin: 1rem 0 .25rem; font-weight: 600; }
  input[type=email], input[type=password] { width: 100%; box-sizing: border-box; padding: .7rem; font-size: 1rem; border: 1px solid #b8c2cc; border-radius: 8px; }
  button { width: 100%; margin-top: 1.5rem; padding: .8rem; font-size: 1rem; font-weight: 600; color: #fff; background: #0b5cd5; border: 0; border-radius: 8px; cursor: pointer; }
  small { display: block; margin-top: 1rem; color: #5b6775; text-align: center; }
`;

export function renderSignInPage(input: SignInPageInput): string {
  const name = escapeHtml(input.integrationName);
  const logo = input.logoUrl ? `<img class="logo" src="${escapeHtml(input.logoUrl)}" alt="" width="64" height="64">` : "";
  const fee = input.fee ? `<p class="fee">Comisión del servicio: <strong>${escapeHtml(input.fee)}</strong></p>` : "";
  const error = input.error
    ? `<p class="error" role="alert" data-code="${escapeHtml(input.error.code)}">${escapeHtml(ERROR_TEXT[input.error.code] ?? input.error.message)}</p>`
    : "";
  return htmlDocument({
    title: `Autorizar ${input.integrationName}`,
    style: AUTH_PAGE_STYLE,
    main: `${logo}
<h1>${name} quiere cobrar por vos</h1>
<p>Ingresá con tu cuenta de comercio para vincularla con <strong>${name}</strong>. Podrá crear cobros por transferencia a tu nombre y consultar su estado.</p>
${fee}
${error}
<form method="post" action="/integration/oauth2/complete-login">
<input type="hidden" name="transaction" value="${escapeHtml(input.transaction)}">
<input type="hidden" name="csrf" value="${escapeHtml(input.csrf)}">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(input.email ?? "")}">
<label for="password">Contraseña</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Ingresar y autorizar</button>
</form>
<small><a href="${MERCHANT_FORGOT_PASSWORD_PATH}">¿Olvidaste tu contraseña?</a></small>
<small>Tu contraseña no se comparte con ${name}.</small>`,
  });
}

/** What the sign-out shows when the integration gave no `logout_uri`. */
export function renderSignedOutPage(integrationName: string): string {
  return htmlDocument({
    title: "Cerraste la sesión",
    style: AUTH_PAGE_STYLE,
    main: `<h1>Cerraste la sesión</h1>
<p>Ya no hay una sesión de Cobro abierta en este navegador para ${escapeHtml(integrationName)}. Podés cerrar esta ventana.</p>`,
  });
}
