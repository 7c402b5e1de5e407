// One Express app per API, routed, authenticated and validated by openapi-backend from the API's own
// generated document: what is published is exactly what is enforced. `createApiApp` reads as the order a
// request goes through; each step is its own module of server/http/.
import express, { type RequestHandler } from "express";
import type { Document } from "openapi-backend";
import type { AnyOperationHandler, NotImplemented, Services } from "../../handlers/handler-types.ts";
import type { ApiName } from "../../runtime/config.ts";
import type { Logger } from "../../runtime/logger.ts";
import { answering } from "./answering.ts";
import { auditHooks } from "./audit-hooks.ts";
import type { AuditPolicy } from "./audit-policy.ts";
import { bodyParsers } from "./body-parsers.ts";
import { contractBackend, registerRefusals } from "./contract-backend.ts";
import { contractRoutes, registerOperations } from "./contract-routes.ts";
import { errorTail } from "./error-tail.ts";
import { requestIdentity } from "./request-identity.ts";
import { measureRequests, outsideContract, type OutsideContractOperation } from "./request-metrics.ts";
import { baselineSecurityHeaders } from "./security-headers.ts";
import { registerSecurityHandlers, type SecurityHandler } from "./security-handlers.ts";

export interface ApiAppOptions<Caller> {
  api: ApiName;
  document: Document;
  handlers: Record<string, AnyOperationHandler | NotImplemented>;
  /** One per security scheme named in the document. */
  security: Record<string, SecurityHandler<Caller>>;
  /** The caller of operations that need no authentication. */
  anonymous: Caller;
  services: Services;
  logger: Logger;
  maxBodyBytes: number;
  /** Check every response against the contract (tests): a mismatch becomes a 500 and a log line. */
  validateResponses?: boolean;
  /** The operations that write an audit entry (domain/audit/), and who their caller is in one. */
  audit?: AuditPolicy<Caller>;
  /** The host's routes outside the contract (reference pages, widget, portal), mounted in this order before openapi-backend. */
  outsideContract: OutsideContractRoute[];
}

/** Routes of an API's host that are not operations of its contract: no auth, counted under `name`. */
export interface OutsideContractRoute {
  name: Extract<OutsideContractOperation, "docs" | "widget" | "page" | "portal">;
  router: RequestHandler;
}

export async function createApiApp<Caller>(options: ApiAppOptions<Caller>): Promise<{ app: express.Express; notImplementedOperations: string[] }> {
  const { api, logger, services } = options;
  const contract = await contractBackend(api, options.document);
  const answers = answering(api, contract.backend, contract.operations, options.validateResponses === true);
  const audit = auditHooks(options, contract.operations);
  registerRefusals(contract, answers, audit, services.metrics.auth.tokenChecksRefused.labels(api));
  registerSecurityHandlers(contract.backend, options.security);
  const notImplementedOperations = registerOperations(contract, options, answers, audit);

  const app = express();
  app.disable("x-powered-by");
  app.set("query parser", "simple");
  app.use(measureRequests(services.metrics, api));
  app.use(baselineSecurityHeaders);
  app.use(requestIdentity(api, logger));
  for (const route of options.outsideContract) app.use(outsideContract(route.name, route.router));
  for (const parser of bodyParsers(options.maxBodyBytes)) app.use(parser);
  app.use(contractRoutes(contract, answers));
  app.use(errorTail(api, logger, options.maxBodyBytes, answers));
  return { app, notImplementedOperations };
}
