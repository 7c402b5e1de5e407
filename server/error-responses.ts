// The one place where errors become HTTP answers. Each code maps to its documented status and to one of
// the documented body shapes; a new code is added to domain/errors.ts and mapped here, never answered by
// hand in a handler.
import { DomainError, type ErrorCode, ValidationError } from "../domain/errors.ts";
import { isDatabaseUnavailable } from "../db/errors.ts";
import type { Response } from "express";
import type { ApiName } from "../runtime/config.ts";

export type ErrorShape =
  | "general" // {code, message, id} (Admin API: + optional cause)
  | "validation" // {code, message, id, validationDetails}
  | "message" // {message}
  | "coded-message" // {code, message}
  | "conflict-with-reference" // {error, message, referenceId}
  | "conflict-with-data" // {error, message, data}
  | "bulk" // {message, errors}
  | "limit" // {code, message, ...details}
  | "text"; // plain text

export interface CatalogEntry {
  status: number;
  shape: ErrorShape;
}

/** Every error code's status and body shape. */
export type ErrorCatalog = Readonly<Record<ErrorCode, CatalogEntry>>;

export const ERROR_CATALOG: ErrorCatalog = {
  ValidationError: { status: 400, shape: "validation" },
  // The token check of the Integration API answers in plain text.
  InvalidMerchantToken: { status: 401, shape: "text" },
  MissingAuthenticationData: { status: 400, shape: "text" },
  IntegrationClientNotFound: { status: 404, shape: "text" },
  NotAuthorizedAsUserOfIntegrationClient: { status: 403, shape: "text" },
  // The Admin API's and the Auth API's own authentication answers in the general shape.
  UnauthorizedError: { status: 401, shape: "general" },
  ForbiddenError: { status: 403, shape: "general" },
  SandboxOnlyError: { status: 403, shape: "general" },
  // A temporary password's session may only change the password.
  PasswordChangeRequiredError: { status: 403, shape: "general" },
  // OAuth and the admin session (Auth API).
  InvalidRequestError: { status: 400, shape: "general" },
  InvalidClientError: { status: 401, shape: "general" },
  InvalidGrantError: { status: 400, shape: "general" },
  AdminSessionEndedError: { status: 401, shape: "general" },
  InvalidCredentialsError: { status: 401, shape: "general" },
  IntegrationSetupError: { status: 500, shape: "general" },
  // The authorization screen shows it on the page again (handlers/auth); elsewhere it answers in the general shape.
  SignInFormExpiredError: { status: 403, shape: "general" },
  // A password reset link that is unknown, used, past its hour or replaced (the reset page shows it as a page).
  PasswordResetLinkInvalidError: { status: 410, shape: "general" },
  // Throttled guessing: 429 with Retry-After (seconds, from the error's headers); the pages show it in Spanish.
  TooManyAttemptsError: { status: 429, shape: "general" },
  // Charges (Integration API).
  WebhookUrlBlockedError: { status: 400, shape: "general" },
  InsufficientActiveAccountsError: { status: 400, shape: "general" },
  ReferenceIdAlreadyExists: { status: 409, shape: "conflict-with-reference" },
  CustomerAlreadyAssociatedError: { status: 409, shape: "general" },
  IntegrationDailyRequestLimitExceededError: { status: 429, shape: "limit" },
  IntegrationGlobalDailyMessageLimitExceededError: { status: 429, shape: "limit" },
  IntegrationDailyLimitUnavailableError: { status: 503, shape: "general" },
  PaymentRequestNotFoundError: { status: 404, shape: "message" },
  IntegrationNotReadyToCollectError: { status: 404, shape: "message" },
  PaymentRequestCannotBeModified: { status: 409, shape: "conflict-with-data" },
  PaymentRequestCannotBeCanceled: { status: 409, shape: "conflict-with-data" },
  PaymentRequestCustomerCannotBeModified: { status: 409, shape: "conflict-with-data" },
  BulkPaymentRequestValidationError: { status: 422, shape: "bulk" },
  PayerLookupDailyLimitExceededError: { status: 429, shape: "limit" },
  PayerLookupProviderUnavailableError: { status: 503, shape: "coded-message" },
  PayerLookupQuotaUnavailableError: { status: 503, shape: "coded-message" },
  TenantNotFoundError: { status: 404, shape: "coded-message" },
  ClientUserNotFoundForBindingError: { status: 404, shape: "coded-message" },
  IntegrationCollectGroupNotFoundError: { status: 404, shape: "coded-message" },
  // The checkout widget (`/v1/payments` with widget keys; the keys on the Admin API).
  WidgetKeyInvalidError: { status: 401, shape: "general" },
  MerchantUserNotLinkedError: { status: 422, shape: "general" },
  ApiKeysAlreadyExistError: { status: 409, shape: "general" },
  ApiKeysNotCreatedError: { status: 409, shape: "general" },
  // Admin API resources.
  CvuNotInIntegrationError: { status: 400, shape: "general" },
  BankFeedSignatureError: { status: 401, shape: "general" },
  ClientIdMismatchError: { status: 400, shape: "general" },
  SandboxClockBackwardsError: { status: 400, shape: "general" },
  IntegrationClientUserNotFoundError: { status: 404, shape: "general" },
  IntegrationClientNotFoundError: { status: 404, shape: "general" },
  // Production without SMTP cannot send an admin's welcome email (and its temporary password).
  MailUnavailableError: { status: 503, shape: "general" },
  ClientAdminNotFoundError: { status: 404, shape: "general" },
  AdminEmailAlreadyExistsError: { status: 409, shape: "general" },
  // Raising the daily chat-message cap (Admin API).
  MessageCapRequestNotFoundError: { status: 404, shape: "general" },
  MessageCapRequestNotPendingError: { status: 409, shape: "general" },
  MessageCapRequestAlreadyPendingError: { status: 409, shape: "general" },
  // The payout link and commission proposals (Admin API), and the pages their emailed links open (Auth API).
  PayoutLinkAlreadyAcceptedError: { status: 409, shape: "general" },
  PayoutLinkNotPendingError: { status: 409, shape: "general" },
  CommissionProposalNotFoundError: { status: 404, shape: "general" },
  CommissionProposalNotPendingError: { status: 409, shape: "general" },
  MerchantInvitationLinkInvalidError: { status: 410, shape: "general" },
  MerchantAccountNotInvitedError: { status: 403, shape: "general" },
  // Webhooks, tenants, client URLs and events (Admin API).
  UnknownWebhookEventError: { status: 422, shape: "general" },
  WebhookSigningSecretNotFoundError: { status: 404, shape: "general" },
  IntegrationNotMultitenantError: { status: 403, shape: "general" },
  TenantWebhookUrlInvalidError: { status: 400, shape: "general" },
  TenantDuplicateKeyError: { status: 409, shape: "general" },
  TenantHasBoundUsersError: { status: 409, shape: "general" },
  ClientUrlNotFoundError: { status: 404, shape: "general" },
  ClientUrlNotTestableError: { status: 400, shape: "general" },
  EventNotFoundError: { status: 404, shape: "general" },
  EventNotDeliverableError: { status: 409, shape: "general" },
  // Integration logos (upload on the Admin API, served on the Auth API).
  InvalidImageError: { status: 400, shape: "general" },
  UnsupportedMediaTypeError: { status: 415, shape: "general" },
  LogoNotFoundError: { status: 404, shape: "general" },
  // Going live (the Sandbox's review queue, Production's provisioning).
  GoLiveRequestNotFoundError: { status: 404, shape: "general" },
  GoLiveRequestDecidedError: { status: 409, shape: "general" },
  ProductionOnlyError: { status: 403, shape: "general" },
  // The runtime itself (routing, body limits, unexpected failures, operations not built yet).
  RouteNotFound: { status: 404, shape: "general" },
  MethodNotAllowed: { status: 405, shape: "general" },
  PayloadTooLarge: { status: 413, shape: "general" },
  InternalError: { status: 500, shape: "general" },
  // The database is away (stopped, restarting, unreachable): nothing was done, the request may be retried.
  ServiceUnavailableError: { status: 503, shape: "general" },
  NotImplemented: { status: 501, shape: "general" },
};

export interface ErrorReply {
  status: number;
  /** A JSON body, or a string for `text/plain` (or `contentType`). */
  body: unknown;
  contentType?: string;
  headers?: Record<string, string>;
}

export function replyForError(error: DomainError, requestId: string, api: ApiName): ErrorReply {
  const entry = ERROR_CATALOG[error.code];
  const details = error.details as Record<string, unknown>;
  switch (entry.shape) {
    case "validation": {
      const problems = error instanceof ValidationError ? error.details.problems : [{ field: "body", message: error.message }];
      return { status: entry.status, body: { code: "ValidationError", message: problems[0]!.message, id: requestId, validationDetails: problems } };
    }
    case "general": {
      const body: Record<string, unknown> = { code: error.code, message: error.message, id: requestId };
      if (api === "admin" && typeof details.cause === "string") body.cause = details.cause;
      return { status: entry.status, body, headers: stringHeaders(details.headers) };
    }
    case "message":
      return { status: entry.status, body: { message: error.message } };
    case "coded-message":
      // The Admin API answers every error in its general shape (TenantNotFoundError is both APIs' code).
      if (api === "admin") return { status: entry.status, body: { code: error.code, message: error.message, id: requestId } };
      return { status: entry.status, body: { code: error.code, message: error.message } };
    case "conflict-with-reference":
      return { status: entry.status, body: { error: error.code, message: error.message, referenceId: details.referenceId } };
    case "conflict-with-data":
      return { status: entry.status, body: { error: error.code, message: error.message, data: details.data } };
    case "bulk":
      return { status: entry.status, body: { message: error.message, errors: details.errors } };
    case "limit":
      return { status: entry.status, body: { code: error.code, message: error.message, ...details } };
    case "text":
      return { status: entry.status, body: error.message };
  }
}

/** Seconds a client is asked to wait before retrying while the database is away. */
const RETRY_AFTER_SECONDS = 5;

/**
 * The answer to an error no handler expected: 503 ServiceUnavailableError (with Retry-After) when the
 * database is away, so clients and load balancers retry; otherwise 500 InternalError. Neither carries a stack.
 */
export function unexpectedErrorReply(error: unknown, requestId: string, api: ApiName): ErrorReply {
  return isDatabaseUnavailable(error) ? serviceUnavailableReply(requestId, api) : internalErrorReply(requestId);
}

/** 503 ServiceUnavailableError with Retry-After: something the request needs (the database, the Auth API behind the portal) is away for now. */
export function serviceUnavailableReply(requestId: string, api: ApiName): ErrorReply {
  const unavailable = new DomainError("ServiceUnavailableError", "The service is temporarily unavailable. Retry later; after a create, check with GET before retrying.", {
    headers: { "Retry-After": String(RETRY_AFTER_SECONDS) },
  });
  return replyForError(unavailable, requestId, api);
}

export function internalErrorReply(requestId: string): ErrorReply {
  return { status: 500, body: { code: "InternalError", message: "Internal error. Quote the id to support; after a create, check with GET before retrying.", id: requestId } };
}

function stringHeaders(value: unknown): Record<string, string> | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  return Object.fromEntries(Object.entries(value).map(([name, v]) => [name, String(v)]));
}

/** Writes a reply: its status and headers, and its body as JSON, or as text (`contentType`, plain by default) for a string. */
export function sendReply(res: Response, reply: ErrorReply): void {
  res.status(reply.status);
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  if (typeof reply.body === "string") res.type(reply.contentType ?? "text/plain").send(reply.body);
  else res.json(reply.body);
}
