// One Express app per API, routed, authenticated and validated by openapi-backend from the API's own
// generated document: what is published is exactly what is enforced.
import { randomUUID } from "node:crypto";
import express, { type NextFunction, type Request, type RequestHandler, type Response } from "express";
import { OpenAPIBackend, type Context, type Document, type Operation } from "openapi-backend";
import type { Ajv, ErrorObject } from "ajv";
import { DomainError, ValidationError } from "../../domain/errors.ts";
import type { ApiName } from "../../runtime/config.ts";
import { replyForError, sendReply, unexpectedErrorReply } from "./error-responses.ts";
import { clientAddressOf } from "./client-address.ts";
import {
  notImplemented,
  type AnyOperationHandler,
  type EventStreamBody,
  type HandlerContext,
  type NotImplemented,
  type Services,
} from "../../handlers/handler-types.ts";
import { redactedUrl, requestLogging, type Logger } from "../../runtime/logger.ts";
import { exclusiveFields, nulCharacterProblems, validationProblems } from "./validation-details.ts";
import { requestValidators as adminRequestValidators } from "../../generated/validators/admin.ts";
import { requestValidators as authRequestValidators } from "../../generated/validators/auth.ts";
import { requestValidators as integrationRequestValidators } from "../../generated/validators/integration.ts";
import { addContractFormats, REQUEST_AJV_OPTIONS, OtherMediaTypeValidation, requestContentTypeProblem, undeclaredJsonAlternative } from "./media-types.ts";
import { allowedMethods, knownQuery, precompiledMatcher, precompiledRequestParser } from "./operation-routing.ts";
import { MAX_LOGO_BYTES } from "../../domain/integration-clients/integration-logos.ts";
import { baselineSecurityHeaders } from "./security-headers.ts";
import { isDatabaseUnavailable } from "../../db/errors.ts";
import { auditedOperation, type AuditDraft } from "../../domain/audit/audited-operation.ts";
import { bodyFieldNames, recordedValues } from "../../domain/audit/recorded-fields.ts";
import type { AuditPolicy } from "./audit-policy.ts";
import { countRequestAs, measureRequests, outsideContract, type OutsideContractOperation } from "./request-metrics.ts";
import { jsonText, operationSerializers, sendJsonText, type OperationSerializers } from "./response-serializers.ts";

const generatedRequestValidators: Record<ApiName, (formats: unknown) => Record<string, unknown>> = {
  integration: integrationRequestValidators,
  auth: authRequestValidators,
  admin: adminRequestValidators,
};

type HandlerAnswer = { status: number; body?: unknown; headers?: Record<string, string | number> };

/** Decides who calls, for one security scheme of the contract. Returns the caller, or a reason to refuse. */
export type SecurityHandler<Caller> = (request: {
  headers: Request["headers"];
  operationId: string;
  path: string;
  /** The body's exact bytes (for signatures over the body). */
  rawBody: Buffer | undefined;
}) => Promise<{ caller: Caller } | { refused: DomainError }>;

export interface ApiAppOptions<Caller> {
  api: ApiName;
  document: Document;
  handlers: Record<string, AnyOperationHandler | NotImplemented>;
  /** One per security scheme named in the document. */
  security: Record<string, SecurityHandler<Caller>>;
  /** The caller of operations that need no authentication. */
  anonymous: Caller;
  services: Services;
  logger: Logger;
  maxBodyBytes: number;
  /** Check every response against the contract (tests): a mismatch becomes a 500 and a log line. */
  validateResponses?: boolean;
  /** The operations that write an audit entry (domain/audit/), and who their caller is in one. */
  audit?: AuditPolicy<Caller>;
  /** The host's routes outside the contract (reference pages, widget, portal), mounted in this order before openapi-backend. */
  outsideContract: OutsideContractRoute[];
}

/** Routes of an API's host that are not operations of its contract: no auth, counted under `name`. */
export interface OutsideContractRoute {
  name: Extract<OutsideContractOperation, "docs" | "widget" | "page" | "portal">;
  router: RequestHandler;
}

/**
 * `log`: the logger of the request, bound to its id, made the first time something logs. `serializers`:
 * the matched operation's JSON response serializers, once it is known (its error answers use them too).
 */
type Locals = { requestId: string; log: () => Logger; serializers?: OperationSerializers };

export async function createApiApp<Caller>(options: ApiAppOptions<Caller>): Promise<{ app: express.Express; notImplementedOperations: string[] }> {
  const { api, logger } = options;
  // openapi-backend validates every body against the operation's JSON schema. An operation that also takes
  // another media type (the token endpoint's RFC 6749 form) has that body checked here instead.
  const otherMediaValidation = new OtherMediaTypeValidation();
  // `quick`: validators are compiled when an operation is first called rather than all at start, which
  // leaves out the response validators (hundreds, most of the memory) unless responses are checked (tests).
  const backend = new OpenAPIBackend({
    definition: structuredClone(options.document),
    quick: true,
    strict: true,
    coerceTypes: true,
    validate: (context) => !otherMediaValidation.applies(context),
    ajvOpts: REQUEST_AJV_OPTIONS,
    customizeAjv: (ajv) => {
      addContractFormats(ajv as unknown as Ajv);
      return ajv;
    },
  });
  await backend.init();
  // What `quick` leaves out of init: the document is parsed and checked against OpenAPI as before.
  await backend.loadDocument();
  backend.validateDefinition();
  // The request validators were compiled from this document by `npm run generate` (scripts/generate-validators.ts):
  // openapi-backend runs them as its own, with the formats of an Ajv it sets up as for its own validators.
  const validator = backend.validator as unknown as { getAjv(context: string): Ajv; requestValidators: Record<string, unknown> };
  Object.assign(validator.requestValidators, generatedRequestValidators[api](validator.getAjv("requestBody").formats));
  // The router lists the operations afresh (lodash over the whole document) at every match, twice; the
  // document does not change once loaded, so the list is made once.
  const operationList = backend.router.getOperations();
  backend.router.getOperations = () => operationList;
  backend.router.matchOperation = precompiledMatcher(backend.router, operationList) as typeof backend.router.matchOperation;
  backend.router.parseRequest = precompiledRequestParser(backend.router, operationList);

  // OpenAPI matches concrete paths before templated ones: `/payment-request/bulk` is a path of its own,
  // not a `referenceId`, so a method it does not have is a 405 there (and its Allow lists its methods).
  const concretePaths = new Map<string, string[]>();
  for (const operation of backend.getOperations()) {
    if (operation.path.includes("{")) continue;
    concretePaths.set(operation.path, [...(concretePaths.get(operation.path) ?? []), operation.method.toUpperCase()]);
  }

  // Bodies that take exactly one of several fields (see exclusiveFields), by operation.
  const exclusiveBodyFields = new Map<string, string[]>();
  const resolveRef = (schema: unknown) => resolveSchemaRef(options.document, schema);
  for (const operation of operationList) {
    const schema = (operation.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)?.content?.["application/json"]?.schema;
    const fields = schema === undefined ? undefined : exclusiveFields(schema, resolveRef);
    if (fields) exclusiveBodyFields.set(operation.operationId!, fields);
  }

  // What depends only on the operation is worked out here, once: whether it is audited, and its answers' media types.
  const auditedOperations = new Set(
    operationList.filter((operation) => options.audit?.audits({ operationId: operation.operationId!, method: operation.method })).map((o) => o.operationId!),
  );
  const answerMediaTypes = new Map(operationList.map((operation) => [operation.operationId!, responseMediaTypes(operation)]));

  const notImplementedOperations: string[] = [];
  const operationIds = backend.getOperations().map((operation) => operation.operationId!);
  for (const operationId of operationIds) {
    const handler = options.handlers[operationId];
    if (handler === undefined || handler === notImplemented) notImplementedOperations.push(operationId);
  }

  const app = express();
  app.disable("x-powered-by");
  app.set("query parser", "simple");

  const logRequest = requestLogging(logger, api);
  app.use(measureRequests(options.services.metrics, api));
  app.use(baselineSecurityHeaders);
  app.use((req, res, next) => {
    const requestId = randomUUID();
    res.setHeader("X-Request-Id", requestId);
    logRequest(req, res, requestId);
    let requestLog: Logger | undefined;
    const locals = res.locals as Locals;
    locals.requestId = requestId;
    locals.log = () => (requestLog ??= logger.child({ api, req: { id: requestId, method: req.method, url: redactedUrl(req.originalUrl) } }));
    // Node keeps the first of two Authorization headers, a proxy may forward the other: an ambiguous
    // credential is none at all, so both values go to the token check, which refuses them.
    // A path that is not percent-encoded UTF-8 names no resource; refused here, before any router decodes it.
    if (!decodablePath(req.path)) {
      return sendReply(res, replyForError(ValidationError.of("path", "malformed", "the path is not valid percent-encoded UTF-8"), requestId, api));
    }
    const authorizations = headerValues(req.rawHeaders, "authorization");
    if (authorizations.length > 1) req.headers.authorization = authorizations.join(", ");
    if (api === "integration") {
      const rewritten = stripIntegrationPrefix(req.path);
      if (rewritten !== req.path) req.url = rewritten + req.url.slice(req.path.length);
    }
    next();
  });

  for (const route of options.outsideContract) app.use(outsideContract(route.name, route.router));

  const limit = options.maxBodyBytes;
  // The exact bytes are kept for the schemes that sign the body (the bank feed).
  const keepRawBody = (req: Request, _res: unknown, buffer: Buffer): void => {
    (req as Request & { rawBody?: Buffer }).rawBody = buffer;
  };
  app.use(express.json({ limit, type: ["application/json", "application/*+json"], verify: keepRawBody }));
  app.use(express.urlencoded({ limit, extended: false }));
  app.use(express.raw({ limit: MAX_LOGO_BYTES, type: ["image/*"] }));

  const tokenChecksRefused = options.services.metrics.auth.tokenChecksRefused.labels(api);
  const checkSerializers = options.validateResponses === true;
  const fail = (res: Response, error: DomainError): void => {
    const locals = res.locals as Locals;
    const reply = replyForError(error, locals.requestId, api);
    const serialize = locals.serializers?.[String(reply.status)];
    sendReply(res, reply, serialize && ((body) => errorJsonText(body, serialize, locals, reply.status)));
  };
  /** An error body by the operation's serializer; one that does not fit the documented schema is still answered, as it is. */
  const errorJsonText = (body: unknown, serialize: (body: unknown) => string, locals: Locals, status: number): string => {
    try {
      return jsonText(body, serialize, checkSerializers, `the ${status} answer`);
    } catch (error) {
      if (checkSerializers) throw error;
      locals.log().error({ err: error, status }, "an error answer outside the contract's schema for its status");
      return JSON.stringify(body);
    }
  };
  // Each operation's serializers, found once: the operation's hooks below set them on the request.
  const serializersOf = new Map(operationList.map((operation) => [operation.operationId!, operationSerializers(api, operation.operationId!)]));
  const atOperation = (res: Response, operationId: string): void => {
    countRequestAs(res, operationId);
    (res.locals as Locals).serializers = serializersOf.get(operationId);
  };

  backend.register({
    notFound: async (_c: Context, req: Request, res: Response) => fail(res, new DomainError("RouteNotFound", `No route for ${req.method} ${req.path}`)),
    methodNotAllowed: async (_c: Context, req: Request, res: Response) => {
      const allowed = concretePaths.get(req.path) ?? allowedMethods(backend, req);
      fail(
        res,
        new DomainError("MethodNotAllowed", `${req.method} is not allowed on ${req.path}; use ${allowed.join(", ")}`, {
          headers: { Allow: allowed.join(", ") },
        }),
      );
    },
    unauthorizedHandler: async (context: Context, _req: Request, res: Response) => {
      atOperation(res, context.operation.operationId!);
      // A credential that could not be checked because the database is away is not a wrong one: 503, not 401.
      const unchecked = Object.values(context.security ?? {}).find((result) => isDatabaseUnavailable((result as { error?: unknown } | undefined)?.error));
      if (unchecked) throw (unchecked as { error: unknown }).error;
      const refusal = Object.values(context.security ?? {}).find(
        (result): result is { refused: DomainError } => typeof result === "object" && result !== null && "refused" in result,
      );
      tokenChecksRefused.inc();
      fail(res, refusal?.refused ?? new DomainError("UnauthorizedError", "Unauthorized"));
    },
    validationFail: async (context: Context, req: Request, res: Response) => {
      atOperation(res, context.operation.operationId!);
      const contentTypeProblem = requestContentTypeProblem(context.operation, req);
      const errors = (context.validation.errors ?? []) as ErrorObject[];
      const problems = contentTypeProblem
        ? [contentTypeProblem]
        : validationProblems(errors, { value: req.body, exclusiveFields: exclusiveBodyFields.get(context.operation.operationId!) });
      const refusal = new ValidationError(problems);
      // Refused before any handler ran: audited all the same, without the body's (unchecked) field names.
      const draft = auditDraft(context, req, res, { withBody: false });
      if (draft)
        await auditedOperation(
          options.services.db,
          options.services.clock,
          draft,
          auditRun(res, () => 0),
          async () => {
            throw refusal;
          },
        ).catch(() => {});
      fail(res, refusal);
    },
    notImplemented: async (context: Context, _req: Request, res: Response) => {
      atOperation(res, context.operation.operationId!);
      fail(res, new DomainError("NotImplemented", `${context.operation.operationId} is in the contract but not implemented yet`));
    },
  });

  for (const [scheme, handler] of Object.entries(options.security)) {
    backend.registerSecurityHandler(scheme, async (context: Context, req: Request) => {
      const result = await handler({
        headers: (context.request.headers ?? {}) as Request["headers"],
        operationId: context.operation.operationId!,
        path: context.operation.path,
        rawBody: (req as Request & { rawBody?: Buffer }).rawBody,
      });
      // openapi-backend treats an object with a truthy `error` as a refusal.
      return "caller" in result ? result : { error: true, refused: result.refused };
    });
  }

  for (const operationId of operationIds) {
    const handler = options.handlers[operationId];
    if (handler === undefined || handler === notImplemented) continue;
    const serializers = serializersOf.get(operationId)!;
    const mediaTypes = answerMediaTypes.get(operationId)!;
    backend.registerHandler(operationId, async (context: Context, req: Request, res: Response) => {
      countRequestAs(res, operationId);
      const locals = res.locals as Locals;
      locals.serializers = serializers;
      const draft = auditDraft(context, req, res, { withBody: true });
      const result: HandlerAnswer = draft
        ? await auditedOperation(
            options.services.db,
            options.services.clock,
            draft,
            auditRun(res, (answer: HandlerAnswer) => answer.status),
            // The operation's change, and with it the entry, goes through the audited handle.
            (audited) => runHandler(context, req, locals, handler, { services: { ...options.services, db: audited.db }, audit: audited.notes }),
          )
        : await runHandler(context, req, locals, handler, { services: options.services });
      const contentType = responseContentType(mediaTypes[result.status], result.body);
      if (contentType === "text/event-stream" && typeof result.body === "function") {
        return sendEventStream(res, result, locals.log);
      }
      if (options.validateResponses && contentType === "application/json") {
        const check = backend.validateResponse(result.body, context.operation, result.status);
        if (check.errors) throw new Error(`${operationId} answered ${result.status} with a body outside the contract: ${JSON.stringify(check.errors)}`);
      }
      // Written before the status is set: a body its serializer cannot write is a 500 without the answer's headers.
      const json =
        result.body !== undefined && contentType === "application/json"
          ? jsonText(result.body, serializers[String(result.status)], checkSerializers, `${operationId} answered ${result.status}`)
          : undefined;
      res.status(result.status);
      for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, String(value));
      if (result.body === undefined) res.end();
      else if (json !== undefined) sendJsonText(res, json);
      else res.type(contentType ?? "application/octet-stream").send(result.body);
    });
  }

  /** The request's own checks beyond the schema, then the operation's handler. */
  async function runHandler(
    context: Context,
    req: Request,
    locals: Locals,
    handler: AnyOperationHandler,
    { services, audit }: Pick<HandlerContext<unknown, Caller>, "services" | "audit">,
  ): Promise<HandlerAnswer> {
    if (otherMediaValidation.applies(context)) {
      const problems = otherMediaValidation.problems(context, req.body);
      if (problems) throw new ValidationError(problems);
    }
    const mediaTypeProblem = undeclaredJsonAlternative(context.operation, req);
    if (mediaTypeProblem) throw new ValidationError([mediaTypeProblem]);
    const nul = [
      ...nulCharacterProblems(context.request.params ?? {}),
      ...nulCharacterProblems(context.request.query ?? {}),
      ...nulCharacterProblems(req.body),
    ];
    if (nul.length > 0) throw new ValidationError(nul);
    const caller = callerOf(context, options.anonymous);
    const handlerContext: HandlerContext<unknown, Caller> = {
      body: req.body as never,
      query: (context.request.query ?? {}) as never,
      params: (context.request.params ?? {}) as never,
      headers: req.headers,
      clientAddress: clientAddressOf(req),
      caller,
      services,
      get log() {
        return locals.log();
      },
      requestId: locals.requestId,
      audit,
    };
    return (await (handler as (context: HandlerContext<unknown, Caller>) => Promise<unknown>)(handlerContext)) as HandlerAnswer;
  }

  /** The audit entry's draft for an audited operation (undefined for the others). */
  function auditDraft(context: Context, req: Request, res: Response, { withBody }: { withBody: boolean }): AuditDraft | undefined {
    const operation = context.operation;
    if (!options.audit || !auditedOperations.has(operation.operationId!)) return undefined;
    const params = Object.fromEntries(Object.entries(context.request.params ?? {}).map(([name, value]) => [name, String(value)]));
    return {
      api: api as "admin" | "auth",
      operation: operation.operationId!,
      method: operation.method.toUpperCase(),
      route: operation.path,
      actor: options.audit.actorOf(callerOf(context, options.anonymous)),
      targets: params,
      fields: withBody ? bodyFieldNames(req.body) : [],
      changes: withBody ? recordedValues(req.body) : {},
      clientAddress: clientAddressOf(req),
      requestId: (res.locals as Locals).requestId,
      successStatus: successStatusOf(operation),
    };
  }

  function auditRun<T>(res: Response, statusOf: (answer: T) => number) {
    return {
      statusOf,
      refusalOf: (error: unknown) => {
        const reply =
          error instanceof DomainError
            ? replyForError(error, (res.locals as Locals).requestId, api)
            : unexpectedErrorReply(error, (res.locals as Locals).requestId, api);
        return { status: reply.status, code: error instanceof DomainError ? error.code : ((reply.body as { code?: string }).code ?? "InternalError") };
      },
      onRecordFailure: (error: unknown) => (res.locals as Locals).log().error({ err: error }, "the audit entry of a refusal could not be written"),
    };
  }

  app.use(async (req: Request, res: Response, next: NextFunction) => {
    const concrete = concretePaths.get(req.path);
    if (concrete && !concrete.includes(req.method) && !(req.method === "HEAD" && concrete.includes("GET"))) {
      return fail(
        res,
        new DomainError("MethodNotAllowed", `${req.method} is not allowed on ${req.path}; use ${concrete.join(", ")}`, {
          headers: { Allow: concrete.join(", ") },
        }),
      );
    }
    try {
      await backend.handleRequest(
        { method: req.method, path: req.path, headers: req.headers as Record<string, string | string[]>, query: knownQuery(backend, req), body: req.body },
        req,
        res,
      );
    } catch (error) {
      next(error);
    }
  });

  // Errors: the documented shapes for what we know, a 500 with an id (and the stack in the log only) for
  // the rest. Body-parser errors are client errors: 413, or a ValidationError for unreadable bodies.
  app.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const locals = res.locals as Partial<Locals>;
    const requestId = locals.requestId ?? randomUUID();
    const bodyError = error as { type?: string; status?: number; limit?: number };
    if (bodyError.type === "entity.too.large") {
      // The parser's own limit: JSON and forms have one, images (logos) another.
      return sendReply(
        res,
        replyForError(new DomainError("PayloadTooLarge", `The request body is larger than ${bodyError.limit ?? limit} bytes`), requestId, api),
      );
    }
    if (bodyError.type === "entity.parse.failed") {
      return fail(res, ValidationError.of("body", "malformed", "body is not valid JSON"));
    }
    if ((typeof bodyError.type === "string" && bodyError.status === 400) || bodyError.status === 415) {
      return fail(res, ValidationError.of("body", "malformed", "body could not be read (check Content-Type and charset)"));
    }
    if (error instanceof DomainError) return fail(res, error);
    (locals.log?.() ?? logger).error({ err: error, errorId: requestId, path: redactedUrl(req.path) }, "unexpected error");
    if (res.headersSent) return res.end();
    sendReply(res, unexpectedErrorReply(error, requestId, api));
  });

  return { app, notImplementedOperations };
}

/**
 * A `text/event-stream` answer: headers at once, then each chunk the body yields, written as it comes
 * (waiting for the socket to drain when the client reads slowly). When the client leaves, the body's
 * signal aborts and its iterator is closed, so what it holds (timers, subscriptions) is let go.
 */
async function sendEventStream(res: Response, result: HandlerAnswer, log: () => Logger): Promise<void> {
  const controller = new AbortController();
  const left = () => controller.abort();
  res.on("close", left);
  res.status(result.status);
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, String(value));
  res.setHeader("Content-Type", "text/event-stream; charset=utf-8");
  res.flushHeaders();
  try {
    for await (const chunk of (result.body as EventStreamBody)(controller.signal)) {
      if (controller.signal.aborted) break;
      if (!res.write(chunk)) await drained(res, controller.signal);
    }
  } catch (error) {
    // The status is sent: the stream just ends, and the client resumes from the last id it received.
    if (!controller.signal.aborted) log().error({ err: error }, "the event stream ended on an error");
  } finally {
    res.off("close", left);
    res.end();
  }
}

function drained(res: Response, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      signal.removeEventListener("abort", done);
      resolve();
    };
    res.on("drain", done);
    signal.addEventListener("abort", done, { once: true });
  });
}

/**
 * Integrator clients written against the API listing with an `/integration` prefix call `/integration/payment-request`:
 * the Integration API answers its routes under that prefix too, by rewriting before routing.
 */
export function stripIntegrationPrefix(path: string): string {
  if (path === "/integration") return "/";
  return path.startsWith("/integration/") ? path.slice("/integration".length) : path;
}

function decodablePath(path: string): boolean {
  if (!path.includes("%")) return true;
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** Every value a header was sent with (`req.headers` keeps only the first of some, Authorization among them). */
function headerValues(rawHeaders: string[], name: string): string[] {
  const values: string[] = [];
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) if (rawHeaders[index]!.toLowerCase() === name) values.push(rawHeaders[index + 1]!);
  return values;
}

function callerOf<Caller>(context: Context, anonymous: Caller): Caller {
  for (const result of Object.values(context.security ?? {})) {
    if (typeof result === "object" && result !== null && "caller" in result) return (result as { caller: Caller }).caller;
  }
  return anonymous;
}

/** The operation's documented success status (its lowest 2xx). */
function successStatusOf(operation: Operation): number {
  const statuses = Object.keys(operation.responses ?? {})
    .map(Number)
    .filter((status) => status >= 200 && status < 300);
  return statuses.length > 0 ? Math.min(...statuses) : 200;
}

type MediaTypes = { json: boolean; text: string | undefined; first: string | undefined };

/** Each documented status's media types, by status. */
function responseMediaTypes(operation: Operation): Record<number, MediaTypes> {
  const byStatus: Record<number, MediaTypes> = {};
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    const types = Object.keys((response as { content?: Record<string, unknown> }).content ?? {});
    byStatus[Number(status)] = { json: types.includes("application/json"), text: types.find((type) => type.startsWith("text/")), first: types[0] };
  }
  return byStatus;
}

/** The declared media type of a response: JSON where declared, except for a text body (a page) beside it. */
function responseContentType(types: MediaTypes | undefined, body: unknown): string | undefined {
  if (types === undefined) return undefined;
  if (typeof body === "string" && types.text) return types.text;
  return types.json ? "application/json" : types.first;
}

/** A schema, or the component a local `$ref` names (`#/components/schemas/X`). */
function resolveSchemaRef(document: unknown, schema: unknown): unknown {
  const ref = (schema as { $ref?: unknown } | undefined)?.$ref;
  if (typeof ref !== "string" || !ref.startsWith("#/")) return schema;
  return ref
    .slice(2)
    .split("/")
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], document);
}
