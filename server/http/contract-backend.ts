// openapi-backend over an API's own generated document: it routes, authenticates and validates each
// request by the document, with the patches that make it fast (request validators compiled by
// `npm run generate`, a matcher and a parser compiled at start), and answers what it refuses before any
// handler runs.
import type { Request, Response } from "express";
import { OpenAPIBackend, type Context, type Document, type Operation } from "openapi-backend";
import type { Ajv, ErrorObject } from "ajv";
import { DomainError, ValidationError } from "../../domain/errors.ts";
import type { ApiName } from "../../runtime/config.ts";
import { requestValidators as adminRequestValidators } from "../../generated/validators/admin.ts";
import { requestValidators as authRequestValidators } from "../../generated/validators/auth.ts";
import { requestValidators as integrationRequestValidators } from "../../generated/validators/integration.ts";
import type { Answering } from "./answering.ts";
import type { AuditHooks } from "./audit-hooks.ts";
import { addContractFormats, REQUEST_AJV_OPTIONS, OtherMediaTypeValidation, requestContentTypeProblem } from "./media-types.ts";
import { allowedMethods, precompiledMatcher, precompiledRequestParser } from "./operation-routing.ts";
import { exclusiveFields, validationProblems } from "./validation-details.ts";

const generatedRequestValidators: Record<ApiName, (formats: unknown) => Record<string, unknown>> = {
  integration: integrationRequestValidators,
  auth: authRequestValidators,
  admin: adminRequestValidators,
};

export interface ContractBackend {
  backend: OpenAPIBackend;
  /** The document's operations, listed once. */
  operations: Operation[];
  /** The methods of each path without parameters. */
  concretePaths: Map<string, string[]>;
  /** Bodies that take exactly one of several fields (see exclusiveFields), by operation. */
  exclusiveBodyFields: Map<string, string[]>;
  /** Bodies of another media type than JSON, which the operation's handler checks instead of openapi-backend. */
  otherMediaValidation: OtherMediaTypeValidation;
}

export async function contractBackend(api: ApiName, document: Document): Promise<ContractBackend> {
  // openapi-backend validates every body against the operation's JSON schema. An operation that also takes
  // another media type (the token endpoint's RFC 6749 form) has that body checked here instead.
  const otherMediaValidation = new OtherMediaTypeValidation();
  // `quick`: validators are compiled when an operation is first called rather than all at start, which
  // leaves out the response validators (hundreds, most of the memory) unless responses are checked (tests).
  const backend = new OpenAPIBackend({
    definition: structuredClone(document),
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
  // What `quick` leaves out of init, the check of the document against OpenAPI's schema, is made when the
  // document is generated (scripts/generate-validators.ts): the validators compiled from it come with it.
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
  const resolveRef = (schema: unknown) => resolveSchemaRef(document, schema);
  for (const operation of operationList) {
    const schema = (operation.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)?.content?.["application/json"]?.schema;
    const fields = schema === undefined ? undefined : exclusiveFields(schema, resolveRef);
    if (fields) exclusiveBodyFields.set(operation.operationId!, fields);
  }
  return { backend, operations: operationList, concretePaths, exclusiveBodyFields, otherMediaValidation };
}

/** The answers to what openapi-backend refuses before a handler: no route, no such method, no caller, an invalid request, no handler yet. */
export function registerRefusals(
  { backend, concretePaths, exclusiveBodyFields }: ContractBackend,
  { fail, atOperation }: Pick<Answering, "fail" | "atOperation">,
  audit: Pick<AuditHooks, "recordRefusal">,
  tokenChecksRefused: { inc(): void },
): void {
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
      // A credential that could not be checked is not a wrong one: a check that threw (a refusal is
      // `{ error: true, refused }`, registerSecurityHandlers) is answered as its error, 503 when the
      // database is away and 500 otherwise, with the id of its log line; never 401.
      const unchecked = Object.values(context.security ?? {}).find(
        (result) => typeof result === "object" && result !== null && !("refused" in result) && "error" in result && result.error !== true,
      );
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
      await audit.recordRefusal(context, req, res, refusal);
      fail(res, refusal);
    },
    notImplemented: async (context: Context, _req: Request, res: Response) => {
      atOperation(res, context.operation.operationId!);
      fail(res, new DomainError("NotImplemented", `${context.operation.operationId} is in the contract but not implemented yet`));
    },
  });
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
