// The admin session operations live on the Auth API (another origin). So that the portal stays
// same-origin under a strict CSP, the Admin host forwards exactly those operations: POST
// /portal/auth-api/integration/admin/{login,refresh,logout,change-password,password-reset}, and GET of an
// integration's logo (/portal/auth-api/integration/oauth2/logos/{logoId}, which the profile page shows).
// Nothing else is forwarded, and bodies (passwords, tokens) are never logged. The forward carries the
// browser's address, which the Auth API counts for throttled guessing instead of this host's own.
import express, { type Request, type Response } from "express";
import { DomainError } from "../domain/errors.ts";
import { isUuid } from "../domain/ids.ts";
import type { Logger } from "../runtime/logger.ts";
import { replyForError, sendReply, serviceUnavailableReply } from "./http/error-responses.ts";
import { clientAddressOf, FORWARD_SECRET_HEADER, FORWARDED_CLIENT_HEADER, forwardSecrets } from "./http/client-address.ts";

/** The admin session operations of the Auth API that the portal may call through this host. */
export const ADMIN_SESSION_OPERATIONS = new Set(["login", "refresh", "logout", "change-password", "password-reset"]);

export interface AuthApiForwardOptions {
  /** The Auth API's base URL. */
  authUrl: string;
  logger: Logger;
  /** Forward the browser's address with the deployment's derived secret (off against mocks, which have no key). */
  forwardClientAddress: boolean;
}

/** POST /portal/auth-api/integration/admin/{operation}, GET /portal/auth-api/integration/oauth2/logos/{logoId}; any other /portal/auth-api/ path is 404. */
export function authApiForwardRoutes(options: AuthApiForwardOptions): express.Router {
  const router = express.Router({ strict: true, caseSensitive: true });
  const requestId = (res: Response): string => String(res.locals.requestId ?? res.getHeader("x-request-id") ?? "");

  router.post("/portal/auth-api/integration/admin/:operation", express.raw({ type: () => true, limit: "64kb" }), async (req: Request, res: Response) => {
    const operation = String(req.params.operation);
    if (!ADMIN_SESSION_OPERATIONS.has(operation))
      return sendReply(res, replyForError(new DomainError("RouteNotFound", `No route for POST ${req.path}`), requestId(res), "admin"));
    const headers: Record<string, string> = { accept: "application/json" };
    if (options.forwardClientAddress)
      Object.assign(headers, { [FORWARDED_CLIENT_HEADER]: clientAddressOf(req), [FORWARD_SECRET_HEADER]: forwardSecrets()[0]! });
    if (req.headers["content-type"]) headers["content-type"] = req.headers["content-type"];
    if (req.headers.authorization) headers.authorization = req.headers.authorization;
    try {
      const answer = await fetch(`${options.authUrl}/integration/admin/${operation}`, {
        method: "POST",
        headers,
        body: Buffer.isBuffer(req.body) && req.body.length > 0 ? new Uint8Array(req.body) : undefined,
        redirect: "manual",
        signal: AbortSignal.timeout(15_000),
      });
      res.status(answer.status);
      const contentType = answer.headers.get("content-type");
      if (contentType) res.setHeader("Content-Type", contentType);
      const retryAfter = answer.headers.get("retry-after");
      if (retryAfter) res.setHeader("Retry-After", retryAfter);
      res.send(Buffer.from(await answer.arrayBuffer()));
    } catch (error) {
      options.logger.error({ operation, reason: error instanceof Error ? error.message : String(error) }, "the portal could not reach the Auth API");
      sendReply(res, serviceUnavailableReply(requestId(res), "admin"));
    }
  });
  // The logo's public address is on the Auth API host; under the CSP the page shows it from here.
  router.get("/portal/auth-api/integration/oauth2/logos/:logoId", async (req: Request, res: Response, next) => {
    // Only a logo's id (a UUID) is forwarded: `..` or an encoded slash must not reach another Auth path.
    if (!isUuid(String(req.params.logoId))) return next();
    try {
      const answer = await fetch(`${options.authUrl}/integration/oauth2/logos/${encodeURIComponent(String(req.params.logoId))}`, {
        redirect: "manual",
        signal: AbortSignal.timeout(15_000),
      });
      res.status(answer.status);
      for (const header of ["content-type", "cache-control", "etag"]) {
        const value = answer.headers.get(header);
        if (value) res.setHeader(header, value);
      }
      res.send(Buffer.from(await answer.arrayBuffer()));
    } catch (error) {
      options.logger.error({ reason: error instanceof Error ? error.message : String(error) }, "the portal could not reach the Auth API");
      sendReply(res, serviceUnavailableReply(requestId(res), "admin"));
    }
  });
  router.all("/portal/auth-api/*rest", (req: Request, res: Response) =>
    sendReply(res, replyForError(new DomainError("RouteNotFound", `No route for ${req.method} ${req.path}`), requestId(res), "admin")),
  );
  return router;
}
