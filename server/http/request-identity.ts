// Each request's identity, given before anything answers it: an id (X-Request-Id, and `req.id` in the
// log), a logger bound to it, and its line in the log; then what no router should see is refused or mended
// (a path that is not UTF-8, two Authorization headers, the Integration API's `/integration` prefix).
import { randomUUID } from "node:crypto";
import type { RequestHandler } from "express";
import { ValidationError } from "../../domain/errors.ts";
import type { ApiName } from "../../runtime/config.ts";
import { redactedUrl, requestLogging, type Logger } from "../../runtime/logger.ts";
import { replyForError, sendReply } from "./error-responses.ts";
import type { OperationSerializers } from "./response-serializers.ts";

/**
 * What the API's app keeps on a request. `log`: the logger of the request, bound to its id, made the first
 * time something logs. `serializers`: the matched operation's JSON response serializers, once it is known
 * (its error answers use them too).
 */
export type RequestLocals = { requestId: string; log: () => Logger; serializers?: OperationSerializers };

export function requestIdentity(api: ApiName, logger: Logger): RequestHandler {
  const logRequest = requestLogging(logger, api);
  return (req, res, next) => {
    const requestId = randomUUID();
    res.setHeader("X-Request-Id", requestId);
    logRequest(req, res, requestId);
    let requestLog: Logger | undefined;
    const locals = res.locals as RequestLocals;
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
  };
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
