// Each API's reference, served by the API itself: the generated document at /openapi.yaml (byte for
// byte) and /openapi.json, a rendered reference at /docs, and at / an index for JSON clients that links them. The renderer is Swagger UI from the
// `swagger-ui-dist` npm package, served from this process, so viewing the pages needs no other network
// (its validator badge, which calls an outside service, is turned off). These routes are not in the
// contract and need no authentication; they are mounted before openapi-backend.
import { escapeHtml } from "../domain/html.ts";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import express, { type Request, type Response } from "express";
import YAML from "yaml";
import type { ApiName } from "../runtime/config.ts";

const swaggerUiDir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));

/** The files of swagger-ui-dist the page uses (its index.html and initializer, which load an outside example, are not served). */
const ASSETS = new Set(["swagger-ui-bundle.js", "swagger-ui-bundle.js.map", "swagger-ui.css", "swagger-ui.css.map", "favicon-32x32.png", "favicon-16x16.png"]);

/** The generated document of an API, as published. */
export function generatedDocumentText(api: ApiName): string {
  return readFileSync(fileURLToPath(new URL(`../generated/openapi/${api}.yaml`, import.meta.url)), "utf8");
}

// The page loads everything from its own origin with paths relative to /docs, so that it also works
// under the Integration API's /integration prefix and behind a proxy that mounts the API on a path.
function pageHtml(title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}: reference</title>
<link rel="stylesheet" href="docs/assets/swagger-ui.css">
<link rel="stylesheet" href="docs/page.css">
<link rel="icon" type="image/png" href="docs/assets/favicon-32x32.png" sizes="32x32">
</head>
<body>
<div id="swagger-ui"></div>
<noscript>This reference needs JavaScript. The document itself is at <a href="openapi.yaml">openapi.yaml</a>.</noscript>
<script src="docs/assets/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
`;
}

const INIT_JS = `"use strict";
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    defaultModelsExpandDepth: 0,
    displayOperationId: true,
    tryItOutEnabled: false
  });
});
`;

const PAGE_CSS = `body { margin: 0; background: #fafafa; }\n`;

/**
 * Routes: GET /openapi.yaml, /openapi.json, /docs (and its assets under /docs/), and GET / for a client that
 * does not ask for a page (a browser passes on, to the portal on the Admin host). `publicUrl`: the API's
 * address as published, on which the index's links are written.
 */
export function referencePages(api: ApiName, documentText: string, publicUrl: string): express.Router {
  const document = YAML.parse(documentText) as {
    info?: { title?: string; version?: string };
    servers?: Array<{ url?: string; variables?: Record<string, { default?: string }> }>;
  };
  const documentJson = JSON.stringify(document);
  const title = document.info?.title ?? `Cobro ${api} API`;
  const html = pageHtml(title);
  // "Try it out" calls the document's servers (their variables at their defaults); everything else comes from this origin.
  const servers = (document.servers ?? [])
    .map((server) => server.url?.replace(/\{([^}]+)\}/g, (_match, name: string) => server.variables?.[name]?.default ?? ""))
    .filter((url): url is string => typeof url === "string" && /^https?:\/\//.test(url));
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    `connect-src 'self' ${servers.join(" ")}`.trim(),
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");

  const base = publicUrl.replace(/\/+$/, "");
  const index = JSON.stringify({
    name: title,
    version: document.info?.version ?? "",
    links: { openapi: `${base}/openapi.yaml`, openapiJson: `${base}/openapi.json`, docs: `${base}/docs` },
  });

  const router = express.Router({ strict: true, caseSensitive: true });
  router.get("/", (req: Request, res: Response, next) => {
    if ((req.headers.accept ?? "").includes("text/html")) return next();
    res.type("application/json; charset=utf-8").setHeader("Cache-Control", "no-cache");
    res.send(index);
  });
  router.get("/openapi.yaml", (_req: Request, res: Response) => {
    res.type("application/yaml; charset=utf-8").setHeader("Cache-Control", "no-cache");
    res.send(documentText);
  });
  router.get("/openapi.json", (_req: Request, res: Response) => {
    res.type("application/json; charset=utf-8").setHeader("Cache-Control", "no-cache");
    res.send(documentJson);
  });
  router.get("/docs", (_req: Request, res: Response) => {
    res.type("text/html; charset=utf-8").setHeader("Cache-Control", "no-cache");
    res.setHeader("Content-Security-Policy", csp);
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.send(html);
  });
  // `/docs/` would break the page's relative links: send it to /docs.
  router.get("/docs/", (_req: Request, res: Response) => res.redirect(301, "../docs"));
  router.get("/docs/init.js", (_req: Request, res: Response) => {
    res.type("text/javascript; charset=utf-8").setHeader("Cache-Control", "no-cache");
    res.send(INIT_JS);
  });
  router.get("/docs/page.css", (_req: Request, res: Response) => {
    res.type("text/css; charset=utf-8").setHeader("Cache-Control", "no-cache");
    res.send(PAGE_CSS);
  });
  router.get("/docs/assets/:file", (req: Request, res: Response, next) => {
    const file = String(req.params.file);
    if (!ASSETS.has(file)) return next();
    res.sendFile(join(swaggerUiDir, file), { maxAge: "1d", dotfiles: "deny" });
  });
  return router;
}
