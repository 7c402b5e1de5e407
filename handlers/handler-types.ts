// Handler types derived from the generated operation types, so that a handler whose input or output
// disagrees with the contract, or an operation with no entry in its API's handler map, fails typecheck.
import type { Kysely } from "kysely";
import type { Logger } from "../runtime/logger.ts";
import type { Clock } from "../domain/clock.ts";
import type { Config } from "../runtime/config.ts";
import type { Database } from "../db/schema.ts";
import type { TokenService } from "../domain/sign-in/tokens.ts";
import type { CredentialThrottle } from "../domain/sign-in/credential-throttle.ts";
import type { AuditEntryNotes } from "../domain/audit/audited-operation.ts";
import type { TokenCheckCache } from "../domain/sign-in/token-check-cache.ts";
import type { ChargeListCounts } from "../domain/charges/charge-list-counts.ts";
import type { TaxRegistry } from "../domain/payer-lookup/tax-registry.ts";
import type { OutboundHttpClient } from "../domain/outbound/http-client.ts";
import type { EmailMessage, Sender } from "../domain/outbound/sender.ts";
import type { Metrics } from "../runtime/metrics.ts";
import type { EventLogWatcher } from "../domain/events/event-log-watcher.ts";
import type { TransferBatcher } from "../domain/reconciliation/transfer-batcher.ts";

/** What every handler may use: the database, the clock, configuration, the token service, the outbound client. */
export interface Services {
  db: Kysely<Database>;
  clock: Clock;
  config: Config;
  tokens: TokenService;
  /** Throttled guessing of passwords, client secrets and reset links; its counts commit on the service's own database. */
  credentialThrottle: CredentialThrottle;
  /** What the token checks read, remembered (and forgotten at any change); absent, every check reads the database. */
  tokenChecks?: TokenCheckCache;
  /** Where single transfers are reconciled: in batches of those arriving together, one transaction each (group commit). */
  transfers: TransferBatcher;
  /** The process's one client for integrators' URLs; its `policy` also judges URLs at registration. */
  outboundHttp: OutboundHttpClient;
  /** The tax registry of payer lookups; absent in production without COBRO_TAX_REGISTRY_URL (lookups answer 503, nothing consumed). */
  payerRegistry?: TaxRegistry;
  /**
   * Email to people (admins' welcome emails): SMTP when configured; in the Sandbox without SMTP, the log.
   * Absent in Production without SMTP: the operations that would send answer 503 MailUnavailableError.
   */
  accountMail?: Sender<EmailMessage>;
  /** The counts of large charge lists the process remembers (made at the first list). */
  chargeListCounts?: ChargeListCounts;
  /** The process's metrics (runtime/metrics.ts): what handlers count, served on the metrics listener. */
  metrics: Metrics;
  /** What wakes the Admin API's event streams (a process serving the Admin API); stopped with the service, ending them. */
  eventLog?: EventLogWatcher;
  /** The process was asked to stop: its readiness answers 503 from then on, while it drains (COBRO_STOP_DRAIN_MS). */
  isStopping(): boolean;
}

type SuccessStatus = 200 | 201 | 202 | 204 | 303;

/**
 * The body of a `text/event-stream` answer: the server writes each chunk it yields, as it comes, until it
 * ends or the client leaves (then `signal` aborts, and the iterator is closed).
 */
export type EventStreamBody = (signal: AbortSignal) => AsyncIterable<string>;

type ContentOf<Response> = Response extends { content: infer Content }
  ? "text/event-stream" extends keyof Content
    ? EventStreamBody
    : Content[keyof Content]
  : never;
type ResponsesOf<Operation> = Operation extends { responses: infer Responses } ? Responses : never;

/**
 * The responses an operation's handler may return: its success responses, and the documented statuses it
 * answers itself (`Answers`: the sign-in screen shown again with a refusal on it, readiness's 503). Errors
 * are thrown as domain errors and answered by server/http/error-responses.ts.
 */
export type HandlerResult<Operation, Answers extends number = never> = ResultWith<Operation, SuccessStatus | Answers>;

/** The response of each documented status in `Status` (distributes over the union). */
type ResultWith<Operation, Status> = Status extends keyof ResponsesOf<Operation>
  ? [ContentOf<ResponsesOf<Operation>[Status]>] extends [never]
    ? { status: Status; headers?: Record<string, string | number> }
    : { status: Status; body: ContentOf<ResponsesOf<Operation>[Status]>; headers?: Record<string, string | number> }
  : never;

type NeverToEmpty<T> = [T] extends [never] ? Record<string, never> : T extends undefined ? Record<string, never> : T;

export type RequestBodyOf<Operation> = Operation extends { requestBody: { content: infer Content } }
  ? Content[keyof Content]
  : Operation extends { requestBody?: { content: infer Content } }
    ? Content[keyof Content] | undefined
    : undefined;

export type QueryOf<Operation> = Operation extends { parameters: { query?: infer Query } } ? NeverToEmpty<NonNullable<Query>> : Record<string, never>;
export type PathOf<Operation> = Operation extends { parameters: { path?: infer Path } } ? NeverToEmpty<NonNullable<Path>> : Record<string, never>;

/** What a handler receives: the validated request (types from the contract) and the caller. */
export interface HandlerContext<Operation, Caller> {
  body: RequestBodyOf<Operation>;
  query: QueryOf<Operation>;
  params: PathOf<Operation>;
  /** Raw request headers, lower-case names. */
  headers: Record<string, string | string[] | undefined>;
  /** The caller's address (the browser's, for the portal's forward: server/portal.ts), for throttled guessing. */
  clientAddress: string;
  caller: Caller;
  services: Services;
  log: Logger;
  /** The `id` of this request, also in its log lines. */
  requestId: string;
  /**
   * Of an audited operation: what the operation learns of its audit entry while it runs (who acts, when
   * the caller cannot tell; a target the path does not name). Absent for operations that are not audited.
   */
  audit?: AuditEntryNotes;
}

export type OperationHandler<Operation, Caller, Answers extends number = never> = (
  context: HandlerContext<Operation, Caller>,
) => Promise<HandlerResult<Operation, Answers>>;

/** Marks an operation of the contract that has no behaviour yet: it answers 501 and is listed at start-up. */
export const notImplemented = Symbol("notImplemented");
export type NotImplemented = typeof notImplemented;

/** Any operation's handler, as the runtime sees it (it validated the request against the contract). */
export type AnyOperationHandler = (context: never) => Promise<unknown>;

/** One entry per operation of the API's contract: its handler, or `notImplemented`. */
export type HandlerMap<Operations, Caller> = {
  // Any documented status: each handler declares in its own type the ones it answers itself.
  [OperationId in keyof Operations]: OperationHandler<Operations[OperationId], Caller, keyof ResponsesOf<Operations[OperationId]> & number> | NotImplemented;
};

/** The `Idempotency-Key` header of an operation that takes one, as the contract validated it (one value). */
export function idempotencyKeyOf(headers: Record<string, string | string[] | undefined>): string {
  const key = headers["idempotency-key"];
  return (Array.isArray(key) ? key[0] : key) ?? "";
}
