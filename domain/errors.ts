// Typed business errors. Domain code throws them with a code from the one catalogue below and plain details;
// server/http/error-responses.ts is the one place that turns them into HTTP answers, by the catalogue.
import type { components } from "../generated/types/admin.ts";

/** The documented body shapes of an error answer (the seed's Errors section). */
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

/**
 * Every error code Cobro answers with, and its documented HTTP status and body shape: the one list. A code
 * outside it does not typecheck where it is thrown; server/http/error-responses.ts writes each code's body from
 * its shape, and the SDK's list of codes (and with it the portal's messages) is generated from it.
 */
export const ERROR_CATALOG = {
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
  // A refresh that asks for a scope the grant does not have (RFC 6749 §6).
  InvalidScopeError: { status: 400, shape: "general" },
  AdminSessionEndedError: { status: 401, shape: "general" },
  InvalidCredentialsError: { status: 401, shape: "general" },
  IntegrationSetupError: { status: 500, shape: "general" },
  // The authorization screen shows it on the page again (handlers/auth); elsewhere it answers in the general shape.
  SignInFormExpiredError: { status: 403, shape: "general" },
  // A password reset link that is unknown, used, past its hour or replaced (the reset page shows it as a page).
  PasswordResetLinkInvalidError: { status: 410, shape: "general" },
  // Throttled guessing: 429 with Retry-After (seconds, from the error's headers); the pages show it in Spanish.
  TooManyAttemptsError: { status: 429, shape: "general" },
  // The Admin API's event stream: the integration's open streams on this server are at their limit.
  TooManyEventStreamsError: { status: 429, shape: "general" },
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
  // Merchant accounts kept by the provider's systems (Admin API).
  MerchantEmailAlreadyExistsError: { status: 409, shape: "general" },
  MerchantAccountClosedError: { status: 409, shape: "general" },
  // A suspended or closed merchant account signing in, with the right password (the screens show it).
  MerchantAccountNotActiveError: { status: 403, shape: "general" },
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
  IntegrationPaymentRequestNotFoundError: { status: 404, shape: "general" },
  // Unmatched payments (Admin and Integration APIs).
  UnmatchedPaymentNotFoundError: { status: 404, shape: "general" },
  UnmatchedPaymentNotUnresolvedError: { status: 409, shape: "general" },
  AssignmentPaymentRequestNotFoundError: { status: 404, shape: "general" },
  AssignmentMerchantMismatchError: { status: 409, shape: "general" },
  AssignmentPaymentRequestNotPayableError: { status: 409, shape: "general" },
  UnmatchedPaymentReturnInProgressError: { status: 409, shape: "general" },
  UnmatchedPaymentOfIntegrationError: { status: 409, shape: "general" },
  // An Idempotency-Key sent again with another request (domain/idempotency.ts).
  IdempotencyKeyReusedError: { status: 422, shape: "general" },
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
} as const satisfies Record<string, CatalogEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** The codes, in the catalogue's order. */
export const ERROR_CODES = Object.keys(ERROR_CATALOG) as ErrorCode[];

export class DomainError<Details extends Record<string, unknown> = Record<string, unknown>> extends Error {
  readonly code: ErrorCode;
  readonly details: Details;

  constructor(code: ErrorCode, message: string, details?: Details) {
    super(message);
    this.name = "DomainError";
    this.code = code;
    this.details = details ?? ({} as Details);
  }
}

/** The rule a field broke (the contract's `ValidationRule`): clients word their messages from it, not from `message`. */
export type ValidationRule = components["schemas"]["ValidationRule"];

/**
 * One field that failed validation, named by its JSON path (`customer.phoneNumber.number`, `dueDates[1]`):
 * the rule it broke with the rule's bound, and an English sentence for developers.
 */
export type FieldProblem = {
  field: string;
  message: string;
  rule: ValidationRule;
  limit?: number;
  format?: string;
  fields?: string[];
};

/** A request that breaks a rule the contract's schema cannot express (date relations, conditional fields). */
export class ValidationError extends DomainError<{ problems: FieldProblem[] }> {
  constructor(problems: FieldProblem[]) {
    if (problems.length === 0) throw new Error("a ValidationError needs at least one problem");
    super("ValidationError", problems[0]!.message, { problems });
    this.name = "ValidationError";
  }

  static of(field: string, rule: ValidationRule, message: string, bound: Pick<FieldProblem, "limit" | "format" | "fields"> = {}): ValidationError {
    return new ValidationError([{ field, message, rule, ...bound }]);
  }
}
