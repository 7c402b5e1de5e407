// The app's last middleware. Errors: the documented shapes for what we know, a 500 with an id (and the
// stack in the log only) for the rest. Body-parser errors are client errors: 413, or a ValidationError for
// unreadable bodies.
import { randomUUID } from "node:crypto";
import type { ErrorRequestHandler, NextFunction, Request, Response } from "express";
import { DomainError, ValidationError } from "../../domain/errors.ts";
import type { ApiName } from "../../runtime/config.ts";
import { redactedUrl, type Logger } from "../../runtime/logger.ts";
import type { Answering } from "./answering.ts";
import { replyForError, unexpectedErrorReply } from "./error-responses.ts";
import type { RequestLocals } from "./request-identity.ts";

/** `limit`: the JSON and form parsers' limit, named in a 413 when the parser does not say its own. */
export function errorTail(api: ApiName, logger: Logger, limit: number, { fail, send }: Pick<Answering, "fail" | "send">): ErrorRequestHandler {
  return (error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const locals = res.locals as Partial<RequestLocals>;
    const requestId = locals.requestId ?? randomUUID();
    const bodyError = error as { type?: string; status?: number; limit?: number };
    if (bodyError.type === "entity.too.large") {
      // The parser's own limit: JSON and forms have one, images (logos) another.
      return send(res, replyForError(new DomainError("PayloadTooLarge", `The request body is larger than ${bodyError.limit ?? limit} bytes`), requestId, api));
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
    send(res, unexpectedErrorReply(error, requestId, api));
  };
}
