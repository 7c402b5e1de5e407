// Typed business errors. Domain code throws them with a code and plain details; server/error-responses.ts
// is the one place that turns each code into the documented HTTP status and body shape.

/**
 * Every error code Cobro answers with. A code outside this list does not typecheck where it is thrown, and
 * server/error-responses.ts maps each one (a `Record` over this list): a code without its documented status
 * and body shape fails `npm run typecheck`.
 */
export const ERROR_CODES = [
  "ValidationError",
  // The token check of the Integration API answers in plain text.
  "InvalidMerchantToken",
  "MissingAuthenticationData",
  "IntegrationClientNotFound",
  "NotAuthorizedAsUserOfIntegrationClient",
  // The Admin API's and the Auth API's own authentication answers in the general shape.
  "UnauthorizedError",
  "ForbiddenError",
  "SandboxOnlyError",
  "PasswordChangeRequiredError",
  // OAuth and the admin session (Auth API).
  "InvalidRequestError",
  "InvalidClientError",
  "InvalidGrantError",
  "AdminSessionEndedError",
  "InvalidCredentialsError",
  "IntegrationSetupError",
  "SignInFormExpiredError",
  "PasswordResetLinkInvalidError",
  // Throttled guessing of passwords, client secrets and reset links (domain/sign-in/credential-throttle.ts).
  "TooManyAttemptsError",
  // Charges (Integration API).
  "WebhookUrlBlockedError",
  "InsufficientActiveAccountsError",
  "ReferenceIdAlreadyExists",
  "CustomerAlreadyAssociatedError",
  "IntegrationDailyRequestLimitExceededError",
  "IntegrationGlobalDailyMessageLimitExceededError",
  "IntegrationDailyLimitUnavailableError",
  "PaymentRequestNotFoundError",
  "IntegrationNotReadyToCollectError",
  "PaymentRequestCannotBeModified",
  "PaymentRequestCannotBeCanceled",
  "PaymentRequestCustomerCannotBeModified",
  "BulkPaymentRequestValidationError",
  "PayerLookupDailyLimitExceededError",
  "PayerLookupProviderUnavailableError",
  "PayerLookupQuotaUnavailableError",
  "TenantNotFoundError",
  "ClientUserNotFoundForBindingError",
  "IntegrationCollectGroupNotFoundError",
  // The checkout widget (`/v1/payments` with widget keys; the keys on the Admin API).
  "WidgetKeyInvalidError",
  "MerchantUserNotLinkedError",
  "ApiKeysAlreadyExistError",
  "ApiKeysNotCreatedError",
  // Admin API resources.
  "CvuNotInIntegrationError",
  "BankFeedSignatureError",
  "ClientIdMismatchError",
  "SandboxClockBackwardsError",
  "IntegrationClientUserNotFoundError",
  "IntegrationClientNotFoundError",
  "AdminEmailAlreadyExistsError",
  "MailUnavailableError",
  "ClientAdminNotFoundError",
  // Raising the daily chat-message cap (Admin API).
  "MessageCapRequestNotFoundError",
  "MessageCapRequestNotPendingError",
  "MessageCapRequestAlreadyPendingError",
  // The payout link and commission proposals (Admin API), and the pages their emailed links open (Auth API).
  "PayoutLinkAlreadyAcceptedError",
  "PayoutLinkNotPendingError",
  "CommissionProposalNotFoundError",
  "CommissionProposalNotPendingError",
  "MerchantInvitationLinkInvalidError",
  "MerchantAccountNotInvitedError",
  // Webhooks, tenants, client URLs and events (Admin API).
  "UnknownWebhookEventError",
  "WebhookSigningSecretNotFoundError",
  "IntegrationNotMultitenantError",
  "TenantWebhookUrlInvalidError",
  "TenantDuplicateKeyError",
  "TenantHasBoundUsersError",
  "ClientUrlNotFoundError",
  "ClientUrlNotTestableError",
  "EventNotFoundError",
  "EventNotDeliverableError",
  // Integration logos (upload on the Admin API, served on the Auth API).
  "InvalidImageError",
  "UnsupportedMediaTypeError",
  "LogoNotFoundError",
  // Going live (the Sandbox's review queue, Production's provisioning).
  "GoLiveRequestNotFoundError",
  "GoLiveRequestDecidedError",
  "ProductionOnlyError",
  // The runtime itself (routing, body limits, unexpected failures, operations not built yet).
  "RouteNotFound",
  "MethodNotAllowed",
  "PayloadTooLarge",
  "InternalError",
  "ServiceUnavailableError",
  "NotImplemented",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

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

/** One field that failed validation, named by its JSON path (`customer.phoneNumber.number`, `dueDates[1]`). */
export type FieldProblem = { field: string; message: string };

/** A request that breaks a rule the contract's schema cannot express (date relations, conditional fields). */
export class ValidationError extends DomainError<{ problems: FieldProblem[] }> {
  constructor(problems: FieldProblem[]) {
    if (problems.length === 0) throw new Error("a ValidationError needs at least one problem");
    super("ValidationError", problems[0]!.message, { problems });
    this.name = "ValidationError";
  }

  static of(field: string, message: string): ValidationError {
    return new ValidationError([{ field, message }]);
  }
}
