// @cobro/sdk: the generated clients of the three APIs, one namespace each (their model names overlap),
// and the hand-written helpers every integrator needs.
export * as integration from "./generated/integration/index.js";
export * as auth from "./generated/auth/index.js";
export * as admin from "./generated/admin/index.js";

export { CobroClient, jwtExpiry, type CobroClientOptions, type MerchantTokens } from "./cobro-client.js";
export {
  CobroOAuth,
  pkceChallenge,
  randomToken,
  type AuthorizationRequest,
  type AuthorizationStart,
  type CobroOAuthOptions,
  type CodeExchangeRequest,
} from "./oauth.js";
export {
  verifyWebhookSignature,
  webhookSignatureProblem,
  signWebhookPayload,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
  type VerifyWebhookSignatureOptions,
  type WebhookSignatureProblem,
} from "./webhook-signature.js";
export {
  signStandardWebhook,
  standardWebhookProblem,
  verifyStandardWebhook,
  verifyWebhook,
  webhookProblem,
  STANDARD_WEBHOOK_ID_HEADER,
  STANDARD_WEBHOOK_SIGNATURE_HEADER,
  STANDARD_WEBHOOK_TIMESTAMP_HEADER,
  type SigningSecretScheme,
  type VerifyStandardWebhookOptions,
  type WebhookHeaders,
} from "./standard-webhooks.js";
export {
  EventStream,
  type EventStreamOptions,
  type EventStreamRefusalAction,
  type EventStreamWait,
  type StreamedEvent,
} from "./event-stream.js";
export {
  createOrGet,
  createBulkOrConfirm,
  interpretBulkRetry,
  type BulkOperations,
  type BulkRetryInterpretation,
  type ChargeOperations,
  type CreateBulkResult,
  type CreateOrGetOutcome,
  type CreateOrGetResult,
  type RetryOptions,
} from "./retry.js";
export {
  errorBodyOf,
  errorCodeOf,
  httpStatusOf,
  isNoAnswerError,
  isResponseError,
  validationDetailsOf,
  type FetchErrorLike,
  type ResponseErrorLike,
  type ValidationDetailLike,
  ERROR_STATUSES,
  type ErrorCode,
} from "./errors.js";
