// The admins' portal on the Admin API host: GET /portal/ (and every client-side route under it) answers
// the one index.html, /portal/assets/portal.{js,css} the bundle of portal/src. Like the reference pages,
// these routes are outside the contract and mounted before openapi-backend.
//
// The bundle is built by esbuild in memory on the first request and kept for the life of the process (the
// tests start many services; none of them pays for a build it does not use).
//
// The admin session operations live on the Auth API (another origin). So that the portal stays
// same-origin under a strict CSP, this host forwards exactly those operations: POST
// /portal/auth-api/integration/admin/{login,refresh,logout,change-password,password-reset}, and GET of an
// integration's logo (/portal/auth-api/integration/oauth2/logos/{logoId}, which the profile page shows).
// Nothing else is forwarded, and bodies (passwords, tokens) are never logged. The forward carries the
// browser's address, which the Auth API counts for throttled guessing instead of this host's own.
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import express, { type Request, type Response } from "express";
import { DomainError } from "../domain/errors.ts";
import { isUuid } from "../domain/ids.ts";
import { constantTimeEqual } from "../domain/secrets/hashing.ts";
import { secretKeyring } from "../domain/secrets/process-keyring.ts";
import type { SecretKeyring } from "../domain/secrets/keyring.ts";
import { internalErrorReply, replyForError, sendReply, serviceUnavailableReply } from "./error-responses.ts";
import type { Logger } from "../runtime/logger.ts";

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

/** The admin session operations of the Auth API that the portal may call through this host. */
export const ADMIN_SESSION_OPERATIONS = new Set(["login", "refresh", "logout", "change-password", "password-reset"]);

/**
 * The browser's address travels in FORWARDED_CLIENT_HEADER, believed only next to a secret derived from
 * COBRO_SECRET_KEY: only a portal forward of this deployment (the Admin host, in this process or another
 * sharing the key) can set it, and anyone else's header is ignored.
 */
const FORWARDED_CLIENT_HEADER = "x-cobro-portal-client";
const FORWARD_SECRET_HEADER = "x-cobro-portal-forward";
const forwardSecretsOf = new WeakMap<SecretKeyring, string[]>();
function forwardSecrets(): string[] {
  const keyring = secretKeyring();
  let secrets = forwardSecretsOf.get(keyring);
  if (!secrets) {
    secrets = keyring.derivedSecrets("portal-forward");
    forwardSecretsOf.set(keyring, secrets);
  }
  return secrets;
}

/** The caller's address: the socket's peer (Express's `trust proxy` is off), or the browser's behind the portal's forward. */
export function clientAddressOf(req: Request): string {
  const forwarded = req.headers[FORWARDED_CLIENT_HEADER];
  const secret = req.headers[FORWARD_SECRET_HEADER];
  if (typeof forwarded === "string" && forwarded !== "" && typeof secret === "string" && forwardSecrets().some((known) => constantTimeEqual(secret, known))) return forwarded;
  return req.ip ?? req.socket.remoteAddress ?? "unknown";
}

export interface PortalBundle {
  js: string;
  css: string;
}

/** The export condition of sdk/package.json that names the SDK's sources (portal/tsconfig.json's customConditions too). */
export const SDK_SOURCE_CONDITION = "@cobro/source";

const ENTRY_POINT = fileURLToPath(new URL("../portal/src/main.tsx", import.meta.url));

/** esbuild's options for the portal (the dev server builds with the same ones, watching). */
export function portalBuildOptions(): esbuild.BuildOptions & { write: false } {
  return {
    entryPoints: { portal: ENTRY_POINT },
    bundle: true,
    minify: true,
    write: false,
    outdir: "/portal-assets", // nothing is written: esbuild names the outputs after it
    format: "esm",
    platform: "browser",
    target: ["chrome111", "firefox115", "safari16.4", "edge111"],
    jsx: "automatic",
    jsxImportSource: "preact",
    // The portal imports the SDK by its package name, as an integrator would (node_modules/@cobro/sdk is a
    // link to sdk/); this condition of its `exports` picks the TypeScript sources, so nothing is built first.
    // Setting `conditions` drops esbuild's default `module` condition: it is named again to keep it.
    conditions: [SDK_SOURCE_CONDITION, "module"],
    legalComments: "none",
    logLevel: "silent",
  };
}

/** The JavaScript and CSS files of a build's result. */
export function bundleOf(outputFiles: esbuild.OutputFile[]): PortalBundle {
  const js = outputFiles.find((file) => file.path.endsWith(".js"));
  const css = outputFiles.find((file) => file.path.endsWith(".css"));
  if (!js || !css) throw new Error("the portal's build produced no JavaScript or no CSS");
  return { js: js.text, css: css.text };
}

let builtOnce: Promise<PortalBundle> | undefined;

/** The portal's bundle, built on first use and kept for the process (a failed build is retried next time). */
export function portalBundle(): Promise<PortalBundle> {
  builtOnce ??= esbuild.build(portalBuildOptions()).then(
    (result) => bundleOf(result.outputFiles),
    (error: unknown) => {
      builtOnce = undefined;
      throw error;
    },
  );
  return builtOnce;
}

export const PORTAL_INDEX_HTML = `<!doctype html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
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

export interface PortalRoutesOptions {
  /** The Auth API's base URL, where the admin session operations are forwarded. */
  authUrl: string;
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
  const requestId = (res: Response): string => String(res.locals.requestId ?? res.getHeader("x-request-id") ?? "");

  router.use("/portal", (_req: Request, res: Response, next) => {
    res.setHeader("Content-Security-Policy", PORTAL_CSP);
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Referrer-Policy", "no-referrer");
    next();
  });

  router.post("/portal/auth-api/integration/admin/:operation", express.raw({ type: () => true, limit: "64kb" }), async (req: Request, res: Response) => {
    const operation = String(req.params.operation);
    if (!ADMIN_SESSION_OPERATIONS.has(operation)) return sendReply(res, replyForError(new DomainError("RouteNotFound", `No route for POST ${req.path}`), requestId(res), "admin"));
    const headers: Record<string, string> = { accept: "application/json" };
    if (options.forwardClientAddress) Object.assign(headers, { [FORWARDED_CLIENT_HEADER]: clientAddressOf(req), [FORWARD_SECRET_HEADER]: forwardSecrets()[0]! });
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
  router.get("/portal/assets/portal.js", asset("text/javascript; charset=utf-8", (built) => built.js));
  router.get("/portal/assets/portal.css", asset("text/css; charset=utf-8", (built) => built.css));
  router.get("/portal", (_req: Request, res: Response) => res.redirect(301, "/portal/"));
  // Client-side routes: every other page under /portal/ is the same document.
  router.get(["/portal/", "/portal/*page"], (req: Request, res: Response, next) => {
    if (req.path.startsWith("/portal/assets/")) return next();
    res.type("text/html; charset=utf-8").setHeader("Cache-Control", "no-cache");
    res.send(PORTAL_INDEX_HTML);
  });
  return router;
}
