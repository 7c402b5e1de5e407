// A merchant account's password pages: the "forgot password" form of the authorization screen, and the
// page its invitation or reset link opens. The same use cases as the admins' reset, for the other kind of account.
import { DomainError } from "../../domain/errors.ts";
import { createPasswordResetLink, requireUsablePasswordResetLink, resetPassword, sendPasswordResetEmail } from "../../domain/sign-in/password-links.ts";
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
    link = await createPasswordResetLink(services.db, services.clock, { email: body.email, clientAddress }, "merchant");
  } catch (error) {
    const wait = tooManyAttemptsWait(error);
    if (wait === undefined) throw error;
    return {
      status: 429,
      body: renderForgotPasswordForm({ nonce, email: body.email, retryAfterSeconds: wait }),
      headers: { ...pageHeaders(nonce), ...retryAfterHeader(wait) },
    };
  }
  if (link) {
    const mail = services.accountMail;
    if (!mail) {
      log.warn({ merchantAccountId: link.account.id }, "a merchant password reset link was asked for, and this deployment has no mail server: it was not sent");
    } else {
      // Mailed after answering, so that the answer takes as long for an unknown email as for a known one.
      void sendPasswordResetEmail(mail, link, services.config.publicUrls).then(
        (result) => {
          if (result.outcome === "rejected" || result.outcome === "temporary_failure")
            log.warn({ merchantAccountId: link.account.id, reason: result.reason }, "the merchant password reset email was not accepted by the mail server");
        },
        (error: unknown) => log.error({ merchantAccountId: link.account.id, err: error }, "the merchant password reset email could not be sent"),
      );
    }
  }
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
    await resetPassword(services.db, services.clock, { ...body, clientAddress }, "merchant");
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
