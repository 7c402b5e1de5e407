// The public APIs' request metrics: each request timed from its arrival to the end of its answer (or the
// client leaving), labelled by API, contract operationId, method and status class, and counted in flight.
// Label values are bounded: operationIds come from the contract, requests outside it get one of a few
// fixed names, never the path (an id or an email in a path must not become a series).
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { statusClass, type Metrics, STATUS_CLASSES } from "../runtime/metrics.ts";
import type { ApiName } from "../runtime/config.ts";

/**
 * The `operation` of requests outside the contract: `unmatched` (no operation: 404, 405, a path or body
 * that could not be read), `docs` (the reference pages and documents), `portal` (the admin portal and its
 * sign-in forwarding), `widget` (the checkout widget's script and demo), `page` (a browser sent from an
 * API address to its page), `preflight` (any OPTIONS: CORS preflights; the contract has no OPTIONS operation).
 */
export const OUTSIDE_CONTRACT_OPERATIONS = ["unmatched", "docs", "portal", "widget", "page", "preflight"] as const;
export type OutsideContractOperation = (typeof OUTSIDE_CONTRACT_OPERATIONS)[number];

/** The methods counted by name; any other is `other`. */
export const COUNTED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

type Observer = { observe(value: number): void };
type MeasuredLocals = { operation?: string };

/** The operation a request is counted under (the contract's operationId, or a name outside it). */
export function countRequestAs(res: Response, operation: string): void {
  (res.locals as MeasuredLocals).operation = operation;
}

/** A part of the app outside the contract: requests it answers are counted under `name`, those it passes on are not. */
export function outsideContract(name: OutsideContractOperation, handler: RequestHandler): RequestHandler {
  return (req, res, next) => {
    const locals = res.locals as MeasuredLocals;
    locals.operation = name;
    handler(req, res, (error?: unknown) => {
      if (locals.operation === name) locals.operation = undefined;
      next(error as Parameters<NextFunction>[0]);
    });
  };
}

/** The first middleware of an API's app: times every request and keeps the in-flight gauge. */
export function measureRequests(metrics: Metrics, api: ApiName): RequestHandler {
  const inFlight = metrics.http.inFlight.labels(api);
  // Label children made once per (operation, method), one per status class: no label object per request.
  const children = new Map<string, Map<string, Observer[]>>();
  const observerFor = (operation: string, method: string, status: number): Observer => {
    let byMethod = children.get(operation);
    if (byMethod === undefined) {
      byMethod = new Map();
      children.set(operation, byMethod);
    }
    let byClass = byMethod.get(method);
    if (byClass === undefined) {
      byClass = STATUS_CLASSES.map((statusClass) => metrics.http.requestDuration.labels(api, operation, method, statusClass));
      byMethod.set(method, byClass);
    }
    return byClass[STATUS_CLASSES.indexOf(statusClass(status))]!;
  };
  return (req: Request, res: Response, next: NextFunction) => {
    const started = performance.now();
    inFlight.inc();
    res.once("close", () => {
      inFlight.dec();
      // A client that left before any answer got none: there is no status to count it under.
      if (!res.headersSent) return;
      const method = (COUNTED_METHODS as readonly string[]).includes(req.method) ? req.method : "other";
      const operation = req.method === "OPTIONS" ? "preflight" : ((res.locals as MeasuredLocals).operation ?? "unmatched");
      observerFor(operation, method, res.statusCode).observe((performance.now() - started) / 1000);
    });
    next();
  };
}
