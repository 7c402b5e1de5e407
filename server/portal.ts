// The admins' portal on the Admin API host: GET /portal/ (and every client-side route under it) answers
// the one index.html, /portal/assets/portal.{js,css} the bundle of portal/src (portal-bundle.ts), and
// /portal/auth-api/ forwards the admin session operations to the Auth API (portal-auth-forward.ts). Like
// the reference pages, these routes are outside the contract and mounted before openapi-backend.
import express, { type Request, type Response } from "express";
import { internalErrorReply, sendReply } from "./http/error-responses.ts";
import { authApiForwardRoutes } from "./portal-auth-forward.ts";
import { type PortalBundle, portalBundle } from "./portal-bundle.ts";
import type { Logger } from "../runtime/logger.ts";
import { portalUrl } from "../domain/outbound/account-email.ts";
import { SANDBOX_REDIRECT_URI } from "../domain/sandbox/sandbox-bootstrap.ts";

export const PORTAL_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join("; ");

/**
 * The one page of the portal. It says which environment this deployment is (`cobro-environment`): the
 * portal shows the Sandbox's tools only in the Sandbox, and names the environment in its header, with
 * no request of its own before the first page.
 */
export function portalIndexHtml(environment: "sandbox" | "production"): string {
  return `<!doctype html>
<html lang="es-AR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="cobro-environment" content="${environment}">${environment === "sandbox" ? `\n<meta name="cobro-sandbox-redirect-uri" content="${SANDBOX_REDIRECT_URI}">` : ""}
<title>Portal de Cobro</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/portal/assets/portal.css">
<script type="module" src="/portal/assets/portal.js"></script>
</head>
<body>
<div id="portal"><p class="boot">Cargando el portal…</p></div>
<noscript>El portal de Cobro necesita JavaScript.</noscript>
</body>
</html>
`;
}

export interface PortalRoutesOptions {
  /** The Auth API's base URL, where the admin session operations are forwarded. */
  authUrl: string;
  /** This deployment's environment, which the page tells the portal. */
  environment: "sandbox" | "production";
  logger: Logger;
  /** Where the bundle comes from; default the process's memoized build. */
  bundle?: () => Promise<PortalBundle>;
  /** Forward the browser's address to the Auth API with the deployment's derived secret (off against mocks, which have no key). */
  forwardClientAddress?: boolean;
}

/** Routes: GET /portal/**, POST /portal/auth-api/integration/admin/{operation}, GET /portal/auth-api/integration/oauth2/logos/{logoId}. */
export function portalRoutes(options: PortalRoutesOptions): express.Router {
  const bundle = options.bundle ?? portalBundle;
  const router = express.Router({ strict: true, caseSensitive: true });
  const indexHtml = portalIndexHtml(options.environment);
  const requestId = (res: Response): string => String(res.locals.requestId ?? res.getHeader("x-request-id") ?? "");

  router.use("/portal", (_req: Request, res: Response, next) => {
    res.setHeader("Content-Security-Policy", PORTAL_CSP);
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Referrer-Policy", "no-referrer");
    next();
  });
  router.use(authApiForwardRoutes({ authUrl: options.authUrl, logger: options.logger, forwardClientAddress: options.forwardClientAddress ?? false }));

  const asset = (type: string, pick: (built: PortalBundle) => string) => async (_req: Request, res: Response) => {
    try {
      const text = pick(await bundle());
      res.type(type).setHeader("Cache-Control", "no-cache");
      res.send(text);
    } catch (error) {
      options.logger.error({ reason: error instanceof Error ? error.message : String(error) }, "the portal's bundle could not be built");
      sendReply(res, internalErrorReply(requestId(res)));
    }
  };
  router.get(
    "/portal/assets/portal.js",
    asset("text/javascript; charset=utf-8", (built) => built.js),
  );
  router.get(
    "/portal/assets/portal.css",
    asset("text/css; charset=utf-8", (built) => built.css),
  );
  router.get("/portal", (_req: Request, res: Response) => res.redirect(301, "/portal/"));
  // A person who opens the Admin API's host in a browser finds the portal; API clients get the API's 404.
  router.use(pageRedirect("/", "/portal/"));
  // Client-side routes: every other page under /portal/ is the same document.
  router.get(["/portal/", "/portal/*page"], (req: Request, res: Response, next) => {
    if (req.path.startsWith("/portal/assets/")) return next();
    res.type("text/html; charset=utf-8").setHeader("Cache-Control", "no-cache");
    res.send(indexHtml);
  });
  return router;
}

/** Whether the request comes from a browser opening a page (it accepts HTML), not from an API client. */
function wantsPage(req: Request): boolean {
  return (req.headers.accept ?? "").includes("text/html");
}

/**
 * The Auth API's admin sign-in is a JSON operation (POST); a person who opens its address in a browser
 * (an older welcome email linked it) is sent to the portal, where admins sign in.
 */
export function adminSignInPageRedirect(adminPublicUrl: string): express.RequestHandler {
  return pageRedirect("/integration/admin/login", portalUrl(adminPublicUrl));
}

/**
 * A browser's GET of `path` goes to `location`; anything else passes. A middleware rather than a route, so
 * that Express answers no OPTIONS of its own for the path (the API's Allow stays the contract's).
 */
function pageRedirect(path: string, location: string): express.RequestHandler {
  return (req, res, next) => (req.method === "GET" && req.path === path && wantsPage(req) ? res.redirect(303, location) : next());
}
