// Each API's app as this service composes it: its generated document, its handlers, who may call it, which
// of its operations are audited, and the routes of its host outside the contract.
import YAML from "yaml";
import type { Document } from "openapi-backend";
import { anonymousCaller, type AdminApiCaller, type AuthCaller, type IntegrationCaller } from "../domain/sign-in/callers.ts";
import { integrationHandlers } from "../handlers/integration/index.ts";
import { authHandlers } from "../handlers/auth/index.ts";
import { adminHandlers } from "../handlers/admin/index.ts";
import type { Services } from "../handlers/handler-types.ts";
import type { ApiName } from "../runtime/config.ts";
import type { Logger } from "../runtime/logger.ts";
import { createApiApp, type OutsideContractRoute } from "./http/api-app.ts";
import { adminApiAuditPolicy, authApiAuditPolicy } from "./http/audit-policy.ts";
import { adminSecurity, authSecurity, integrationSecurity } from "./http/authentication.ts";
import { generatedDocumentText, referencePages } from "./reference-pages.ts";
import { checkoutWidgetRoutes } from "./checkout-widget.ts";
import { adminSignInPageRedirect, portalRoutes } from "./portal.ts";

/** The API's generated document, as openapi-backend reads it (the text its reference pages serve, parsed). */
export function loadDocument(api: ApiName): Document {
  return YAML.parse(generatedDocumentText(api)) as Document;
}

/** What an API's host serves besides its contract, in the order it is mounted (before openapi-backend). */
export function outsideContractRoutes(api: ApiName, services: Services, logger: Logger): OutsideContractRoute[] {
  const routes: OutsideContractRoute[] = [{ name: "docs", router: referencePages(api, generatedDocumentText(api), services.config.publicUrls[api]) }]; // GET /, /docs, /openapi.yaml, /openapi.json: outside the contract, no auth
  if (api === "integration") routes.push({ name: "widget", router: checkoutWidgetRoutes(services) }); // CORS of /v1/**, GET /v1/widget.js, the Sandbox demo page
  if (api === "auth") routes.push({ name: "page", router: adminSignInPageRedirect(services.config.publicUrls.admin) }); // a browser that opens the admin sign-in goes to the portal
  // The portal at /portal/, and its same-origin admin sign-in.
  if (api === "admin") {
    routes.push({
      name: "portal",
      router: portalRoutes({ authUrl: services.config.publicUrls.auth, environment: services.config.serviceEnv, logger, forwardClientAddress: true }),
    });
  }
  return routes;
}

export interface ApiAppSettings {
  services: Services;
  logger: Logger;
  maxBodyBytes: number;
  validateResponses?: boolean;
}

/** The app of one API, with its list of operations in the contract that have no handler yet. */
export function buildApiApp(api: ApiName, settings: ApiAppSettings): ReturnType<typeof createApiApp> {
  const { services, logger } = settings;
  const common = { ...settings, anonymous: anonymousCaller, outsideContract: outsideContractRoutes(api, services, logger) };
  switch (api) {
    case "integration":
      return createApiApp<IntegrationCaller>({
        ...common,
        api,
        document: loadDocument(api),
        handlers: integrationHandlers,
        security: integrationSecurity(services),
      });
    case "auth":
      return createApiApp<AuthCaller>({
        ...common,
        api,
        document: loadDocument(api),
        handlers: authHandlers,
        security: authSecurity(services),
        audit: authApiAuditPolicy,
      });
    case "admin":
      return createApiApp<AdminApiCaller>({
        ...common,
        api,
        document: loadDocument(api),
        handlers: adminHandlers,
        security: adminSecurity(services),
        audit: adminApiAuditPolicy,
      });
  }
}
