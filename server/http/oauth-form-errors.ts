// The refusals of the RFC 6749 form: a form-encoded request to an operation whose document answers
// `OAuthErrorBody` (the token and revocation endpoints) is refused in RFC 6749 §5.2's body, `error` and
// `error_description`, with Cobro's `code` and `id` alongside. Standard OAuth 2.0 clients decide by
// `error`: a body without it is read as a token (Authlib stores it as the session's).
import type { Request } from "express";
import type { Operation } from "openapi-backend";
import type { ErrorReply } from "./error-responses.ts";

const FORM = "application/x-www-form-urlencoded";

type OAuthError =
  | "invalid_request"
  | "invalid_client"
  | "invalid_grant"
  | "invalid_scope"
  | "unsupported_grant_type"
  | "temporarily_unavailable"
  | "server_error";

/** Cobro's codes that have an RFC 6749 error of their own; the rest go by status. */
const OAUTH_ERRORS: Record<string, OAuthError> = {
  InvalidClientError: "invalid_client",
  InvalidGrantError: "invalid_grant",
  InvalidScopeError: "invalid_scope",
  InvalidRequestError: "invalid_request",
  TooManyAttemptsError: "temporarily_unavailable",
  ServiceUnavailableError: "temporarily_unavailable",
};

/** Whether a request is the RFC 6749 form of an operation that answers `OAuthErrorBody`, by the document's operations. */
export function oauthFormRequests(operations: Operation[]): (req: Request) => boolean {
  const paths = new Set(operations.filter(answersOAuthErrors).map((operation) => `${operation.method.toUpperCase()} ${operation.path}`));
  return (req) => paths.has(`${req.method} ${req.path}`) && mediaType(req) === FORM;
}

/** Whether the operation's 400 is (or may be) `OAuthErrorBody`, named or as openapi-backend resolved it: `error` with `error_description`. */
function answersOAuthErrors(operation: Operation): boolean {
  type Schema = { $ref?: string; anyOf?: Schema[]; properties?: Record<string, unknown> };
  const schema = (operation.responses?.["400"] as { content?: Record<string, { schema?: Schema }> } | undefined)?.content?.["application/json"]?.schema;
  const isOAuthError = (one: Schema) =>
    one.$ref === "#/components/schemas/OAuthErrorBody" || (one.properties?.error !== undefined && one.properties?.error_description !== undefined);
  return schema !== undefined && [schema, ...(schema.anyOf ?? [])].some(isOAuthError);
}

function mediaType(req: Request): string {
  return String(req.headers["content-type"] ?? "")
    .split(";")[0]!
    .trim()
    .toLowerCase();
}

/** The API's error reply said in RFC 6749 §5.2's words: the same status and headers (`Retry-After`). */
export function oauthFormReply(reply: ErrorReply, req: Request): ErrorReply {
  const body = (typeof reply.body === "object" && reply.body !== null ? reply.body : {}) as {
    code?: string;
    message?: string;
    id?: string;
    validationDetails?: { field: string; rule: string }[];
  };
  const code = body.code ?? "InternalError";
  const error = oauthErrorOf(reply.status, code, body.validationDetails ?? []);
  const headers = { ...reply.headers };
  // RFC 6749 §5.2: a client that tried HTTP Basic is told the scheme with its 401.
  if (error === "invalid_client" && /^Basic\s/i.test(String(req.headers.authorization ?? ""))) headers["WWW-Authenticate"] = 'Basic realm="Cobro"';
  return {
    status: reply.status,
    body: { error, error_description: body.message ?? (typeof reply.body === "string" ? reply.body : code), code, id: body.id ?? "" },
    headers,
  };
}

function oauthErrorOf(status: number, code: string, problems: { field: string; rule: string }[]): OAuthError {
  if (code === "ValidationError" && problems.some((problem) => problem.field === "grant_type" && problem.rule === "enum")) return "unsupported_grant_type";
  const named = OAUTH_ERRORS[code];
  if (named) return named;
  if (status >= 500) return "server_error";
  if (status === 401) return "invalid_client";
  return "invalid_request";
}
