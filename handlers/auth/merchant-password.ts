// A merchant account's password pages: the "forgot password" form of the authorization screen, and the
// page its invitation or reset link opens. The same use cases as the admins' reset, for the other kind of account.
import { DomainError } from "../../domain/errors.ts";
import { createPasswordResetLink, requireUsablePasswordResetLink, resetPassword } from "../../domain/sign-in/password-reset.ts";
import { mailPasswordResetLink } from "./admin-password-reset.ts";
import { emailedLinkPageHeaders as pageHeaders, pageNonce } from "../pages/emailed-link-page.ts";
import {
  renderForgotPasswordForm,
  renderForgotPasswordSent,
  renderMerchantPasswordSet,
  renderPasswordResetForm,
  renderPasswordResetLinkInvalid,
} from "../pages/password-reset-page.ts";
import { retryAfterHeader, tooManyAttemptsWait } from "../pages/too-many-attempts.ts";
import type { Handler } from "./handler.ts";

function isRefusal(error: unknown, code: "ValidationError" | "PasswordResetLinkInvalidError"): boolean {
  return error instanceof DomainError && error.code === code;
}

export const showMerchantForgotPasswordPage: Handler<"showMerchantForgotPasswordPage"> = async () => {
  const nonce = pageNonce();
  return { status: 200, body: renderForgotPasswordForm({ nonce }), headers: pageHeaders(nonce) };
};

export const submitMerchantForgotPasswordPage: Handler<"submitMerchantForgotPasswordPage", 429> = async ({ body, services, log, clientAddress }) => {
  const nonce = pageNonce();
  let link: Awaited<ReturnType<typeof createPasswordResetLink>>;
  try {
    link = await createPasswordResetLink(services.db, services.clock, services.credentialThrottle, { email: body.email, clientAddress }, "merchant");
  } catch (error) {
    const wait = tooManyAttemptsWait(error);
    if (wait === undefined) throw error;
    return {
      status: 429,
      body: renderForgotPasswordForm({ nonce, email: body.email, retryAfterSeconds: wait }),
      headers: { ...pageHeaders(nonce), ...retryAfterHeader(wait) },
    };
  }
  if (link) mailPasswordResetLink(services, log, link);
  return { status: 200, body: renderForgotPasswordSent(nonce), headers: pageHeaders(nonce) };
};

export const showMerchantPasswordResetPage: Handler<"showMerchantPasswordResetPage", 410> = async ({ query, services }) => {
  const nonce = pageNonce();
  try {
    await requireUsablePasswordResetLink(services.db, services.clock, query.token, "merchant");
  } catch (error) {
    if (!isRefusal(error, "PasswordResetLinkInvalidError")) throw error;
    return { status: 410, body: renderPasswordResetLinkInvalid(nonce, "merchant"), headers: pageHeaders(nonce) };
  }
  return { status: 200, body: renderPasswordResetForm({ token: query.token, nonce, kind: "merchant" }), headers: pageHeaders(nonce) };
};

export const submitMerchantPasswordResetPage: Handler<"submitMerchantPasswordResetPage", 400 | 410 | 429> = async ({ body, services, clientAddress }) => {
  const nonce = pageNonce();
  try {
    await resetPassword(services.db, services.clock, services.credentialThrottle, { ...body, clientAddress }, "merchant");
  } catch (error) {
    const wait = tooManyAttemptsWait(error);
    if (wait !== undefined) {
      return {
        status: 429,
        body: renderPasswordResetForm({ token: body.token, nonce, errorCode: "TooManyAttemptsError", retryAfterSeconds: wait, kind: "merchant" }),
        headers: { ...pageHeaders(nonce), ...retryAfterHeader(wait) },
      };
    }
    if (isRefusal(error, "ValidationError"))
      return {
        status: 400,
        body: renderPasswordResetForm({ token: body.token, nonce, errorCode: "ValidationError", kind: "merchant" }),
        headers: pageHeaders(nonce),
      };
    if (isRefusal(error, "PasswordResetLinkInvalidError"))
      return { status: 410, body: renderPasswordResetLinkInvalid(nonce, "merchant"), headers: pageHeaders(nonce) };
    throw error;
  }
  return { status: 200, body: renderMerchantPasswordSet(nonce), headers: pageHeaders(nonce) };
};
