// The checkout widget on the Integration API host: CORS for `/v1/**`, the embeddable script
// (`GET /v1/widget.js`) and, in the Sandbox, a demo page (`GET /v1/widget-demo`). The script and the page
// are not API operations, so like the reference pages they are outside the contract and mounted before
// openapi-backend; `/v1/payments` itself is in the contract.
//
// CORS: a preflight carries no key, so it cannot tell whose integration asks; it is answered for any
// origin and says only that `/v1/` takes GET with Authorization. The actual GET answer carries
// Access-Control-Allow-Origin only when the origin is allowed by the publishable key's integration
// (`allowedOrigins`, empty = any): for any other origin the browser blocks the answer. POST (the secret key,
// for servers) never gets it, and the preflight does not list it, so browsers cannot create charges.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import express, { type NextFunction, type Request, type Response } from "express";
import { bearerToken } from "../domain/sign-in/authentication.ts";
import { publishableKeyAllowsOrigin } from "../domain/checkout/widget-keys.ts";
import { escapeHtml } from "../domain/html.ts";
import type { Services } from "../handlers/handler-types.ts";

const WIDGET_SCRIPT = readFileSync(fileURLToPath(new URL("./checkout-widget.client.js", import.meta.url)), "utf8");

// The demo page mounts the widget from a script of its own origin: the page allows no inline script.
const DEMO_SCRIPT = `"use strict";
var host = document.getElementById("cobro-checkout");
CobroCheckout.mount(host, {
  publishableKey: host.dataset.publishableKey,
  paymentId: host.dataset.paymentId,
  onPaid: function () { document.getElementById("outcome").textContent = "onPaid: el pago se recibió"; },
  onExpired: function () { document.getElementById("outcome").textContent = "onExpired: el pago venció"; }
});
`;

const DEMO_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

function demoPage(publishableKey: string, paymentId: string): string {
  return `<!doctype html>
<html lang="es">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Demo del checkout de Cobro (Sandbox)</title>
</head>
<body>
<h1>Demo del checkout (Sandbox)</h1>
<div id="cobro-checkout" data-publishable-key="${escapeHtml(publishableKey)}" data-payment-id="${escapeHtml(paymentId)}"></div>
<p id="outcome" role="status"></p>
<script src="widget.js"></script>
<script src="widget-demo.js"></script>
</body>
</html>
`;
}

export function checkoutWidgetRoutes(services: Services): express.Router {
  const router = express.Router({ strict: true, caseSensitive: true });

  router.use("/v1", async (req: Request, res: Response, next: NextFunction) => {
    res.vary("Origin");
    const origin = req.headers.origin;
    if (req.method === "OPTIONS") {
      if (origin) {
        res.setHeader("Access-Control-Allow-Origin", origin);
        res.setHeader("Access-Control-Allow-Methods", "GET");
        res.setHeader("Access-Control-Allow-Headers", "Authorization");
        res.setHeader("Access-Control-Max-Age", "600");
      }
      return void res.status(204).end();
    }
    try {
      const key = bearerToken(req.headers.authorization);
      if (origin && (req.method === "GET" || req.method === "HEAD") && key?.startsWith("pk_") && (await publishableKeyAllowsOrigin(services.db, key, origin))) {
        res.setHeader("Access-Control-Allow-Origin", origin);
      }
      next();
    } catch (error) {
      next(error);
    }
  });

  router.get("/v1/widget.js", (_req: Request, res: Response) => {
    res.type("text/javascript; charset=utf-8");
    res.setHeader("Cache-Control", "public, max-age=300");
    res.setHeader("X-Content-Type-Options", "nosniff");
    // Loaded by a <script> of the store's page, whatever that page's embedder policy.
    res.setHeader("Cross-Origin-Resource-Policy", "cross-origin");
    res.send(WIDGET_SCRIPT);
  });

  // Sandbox only: in Production these paths fall through to the API's 404.
  if (services.config.serviceEnv === "sandbox") {
    router.get("/v1/widget-demo", (req: Request, res: Response) => {
      const text = (name: string) => (typeof req.query[name] === "string" ? (req.query[name] as string) : "");
      res.type("text/html; charset=utf-8");
      res.setHeader("Cache-Control", "no-store");
      res.setHeader("Content-Security-Policy", DEMO_CSP);
      res.setHeader("X-Content-Type-Options", "nosniff");
      res.setHeader("Referrer-Policy", "no-referrer");
      res.setHeader("X-Robots-Tag", "noindex");
      res.send(demoPage(text("publishableKey"), text("paymentId")));
    });
    router.get("/v1/widget-demo.js", (_req: Request, res: Response) => {
      res.type("text/javascript; charset=utf-8");
      res.setHeader("Cache-Control", "no-store");
      res.setHeader("X-Content-Type-Options", "nosniff");
      res.send(DEMO_SCRIPT);
    });
  }
  return router;
}
