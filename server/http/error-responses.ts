// The one place where errors become HTTP answers: each code's status and body shape come from the catalogue
// of domain/errors.ts (a new code is added there, with both), and no handler answers an error by hand.
import { DomainError, ERROR_CATALOG, ValidationError } from "../../domain/errors.ts";
import { isDatabaseUnavailable } from "../../db/errors.ts";
import type { Response } from "express";
import type { ApiName } from "../../runtime/config.ts";
import { sendJsonText } from "./response-serializers.ts";

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
  const unavailable = new DomainError(
    "ServiceUnavailableError",
    "The service is temporarily unavailable. Retry later; after a create, check with GET before retrying.",
    {
      headers: { "Retry-After": String(RETRY_AFTER_SECONDS) },
    },
  );
  return replyForError(unavailable, requestId, api);
}

export function internalErrorReply(requestId: string): ErrorReply {
  return {
    status: 500,
    body: { code: "InternalError", message: "Internal error. Quote the id to support; after a create, check with GET before retrying.", id: requestId },
  };
}

function stringHeaders(value: unknown): Record<string, string> | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  return Object.fromEntries(Object.entries(value).map(([name, v]) => [name, String(v)]));
}

/**
 * Writes a reply: its status and headers, and its body as JSON (by `json`, the operation's serializer for
 * the status, when given), or as text (`contentType`, plain by default) for a string.
 */
export function sendReply(res: Response, reply: ErrorReply, json?: (body: unknown) => string): void {
  res.status(reply.status);
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  if (typeof reply.body === "string") res.type(reply.contentType ?? "text/plain").send(reply.body);
  else sendJsonText(res, json === undefined ? JSON.stringify(reply.body) : json(reply.body));
}
