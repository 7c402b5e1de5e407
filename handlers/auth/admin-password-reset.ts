// The admins' password reset: the request that mails a link, the JSON completion, and the page the link
// opens (which completes through the same use case); the mailing is the merchants' reset's too.
import { actorNamedIn } from "../../domain/audit/audited-operation.ts";
import { DomainError } from "../../domain/errors.ts";
import {
  createPasswordResetLink,
  requireUsablePasswordResetLink,
  resetPassword,
  sendPasswordResetEmail,
  type PasswordResetLink,
} from "../../domain/sign-in/password-reset.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { Services } from "../handler-types.ts";
import { emailedLinkPageHeaders as pageHeaders, pageNonce } from "../pages/emailed-link-page.ts";
import { portalUrl } from "../../domain/outbound/account-email.ts";
import { renderPasswordResetDone, renderPasswordResetForm, renderPasswordResetLinkInvalid } from "../pages/password-reset-page.ts";
import { retryAfterHeader, tooManyAttemptsWait } from "../pages/too-many-attempts.ts";
import type { Handler } from "./handler.ts";

/** The code of a refusal the page shows itself, or undefined for anything else (answered by the error mapping). */
function pageRefusal(error: unknown): "ValidationError" | "PasswordResetLinkInvalidError" | undefined {
  if (!(error instanceof DomainError)) return undefined;
  return error.code === "ValidationError" || error.code === "PasswordResetLinkInvalidError" ? error.code : undefined;
}

/**
 * Mails a reset link after the answer leaves, so that the answer takes as long for an unknown email as for
 * a known one; without a mail server (Production), a warning without the link.
 */
export function mailPasswordResetLink(services: Services, log: Logger, link: PasswordResetLink): void {
  const account = link.account.kind === "admin" ? { adminUserId: link.account.id } : { merchantAccountId: link.account.id };
  const mail = services.accountMail;
  if (!mail) {
    log.warn(account, "a password reset link was asked for, and this deployment has no mail server (COBRO_SMTP_URL, COBRO_MAIL_FROM): it was not sent");
    return;
  }
  void sendPasswordResetEmail(mail, link, services.config.publicUrls).then(
    (result) => {
      if (result.outcome === "rejected" || result.outcome === "temporary_failure")
        log.warn({ ...account, reason: result.reason }, "the password reset email was not accepted by the mail server");
    },
    (error: unknown) => log.error({ ...account, err: error }, "the password reset email could not be sent"),
  );
}

export const requestAdminPasswordReset: Handler<"requestAdminPasswordReset"> = async ({ body, services, log, clientAddress, audit }) => {
  const link = await createPasswordResetLink(
    services.db,
    services.clock,
    services.credentialThrottle,
    { email: body.email, clientAddress },
    "admin",
    (account) => audit?.addTarget("adminUserId", account.id),
  );
  if (link) mailPasswordResetLink(services, log, link);
  return { status: 202, headers: { "Cache-Control": "no-store" } };
};

export const completeAdminPasswordReset: Handler<"completeAdminPasswordReset"> = async ({ body, services, clientAddress, audit }) => {
  await resetPassword(services.db, services.clock, services.credentialThrottle, { ...body, clientAddress }, "admin", actorNamedIn(audit));
  return { status: 204, headers: { "Cache-Control": "no-store" } };
};

export const showAdminPasswordResetPage: Handler<"showAdminPasswordResetPage", 410> = async ({ query, services }) => {
  const nonce = pageNonce();
  try {
    await requireUsablePasswordResetLink(services.db, services.clock, query.token);
  } catch (error) {
    if (pageRefusal(error) !== "PasswordResetLinkInvalidError") throw error;
    return { status: 410, body: renderPasswordResetLinkInvalid(nonce), headers: pageHeaders(nonce) };
  }
  return { status: 200, body: renderPasswordResetForm({ token: query.token, nonce }), headers: pageHeaders(nonce) };
};

export const submitAdminPasswordResetPage: Handler<"submitAdminPasswordResetPage", 400 | 410 | 429> = async ({ body, services, clientAddress, audit }) => {
  const nonce = pageNonce();
  try {
    await resetPassword(services.db, services.clock, services.credentialThrottle, { ...body, clientAddress }, "admin", actorNamedIn(audit));
  } catch (error) {
    const wait = tooManyAttemptsWait(error);
    if (wait !== undefined) {
      return {
        status: 429,
        body: renderPasswordResetForm({ token: body.token, nonce, errorCode: "TooManyAttemptsError", retryAfterSeconds: wait }),
        headers: { ...pageHeaders(nonce), ...retryAfterHeader(wait) },
      };
    }
    const refusal = pageRefusal(error);
    if (refusal === "ValidationError")
      return { status: 400, body: renderPasswordResetForm({ token: body.token, nonce, errorCode: refusal }), headers: pageHeaders(nonce) };
    if (refusal === "PasswordResetLinkInvalidError") return { status: 410, body: renderPasswordResetLinkInvalid(nonce), headers: pageHeaders(nonce) };
    throw error;
  }
  return { status: 200, body: renderPasswordResetDone(nonce, portalUrl(services.config.publicUrls.admin)), headers: pageHeaders(nonce) };
};
