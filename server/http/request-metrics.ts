// The public APIs' request metrics: each request timed from its arrival to the end of its answer (or the
// client leaving), labelled by API, contract operationId, method and status class, and counted in flight.
// Label values are bounded: operationIds come from the contract, requests outside it get one of a few
// fixed names, never the path (an id or an email in a path must not become a series).
import type { NextFunction, Request, RequestHandler, Response } from "express";
import { statusClass, type Metrics, STATUS_CLASSES } from "../../runtime/metrics.ts";
import type { ApiName } from "../../runtime/config.ts";

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
type MeasuredLocals = { operation?: string; startedAt?: number };

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

/** The requests each API of a process has in flight, set on the gauge at scrape time (one sampler per process). */
const inFlightByProcess = new WeakMap<Metrics, Map<ApiName, { count: number }>>();

function inFlightCount(metrics: Metrics, api: ApiName): { count: number } {
  let counts = inFlightByProcess.get(metrics);
  if (counts === undefined) {
    const apis = new Map<ApiName, { count: number }>();
    counts = apis;
    inFlightByProcess.set(metrics, apis);
    metrics.addSampler("http-in-flight", () => {
      for (const [name, inFlight] of apis) metrics.http.inFlight.set({ api: name }, inFlight.count);
    });
  }
  let inFlight = counts.get(api);
  if (inFlight === undefined) {
    inFlight = { count: 0 };
    counts.set(api, inFlight);
  }
  return inFlight;
}

/**
 * The first middleware of an API's app: times every request and counts it in flight. Per request: two
 * clock reads, a plain counter (the gauge is set from it at scrape time), one shared `close` listener and
 * one histogram observation on a label child made once.
 */
export function measureRequests(metrics: Metrics, api: ApiName): RequestHandler {
  const inFlight = inFlightCount(metrics, api);
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
  // One listener for every response (no closure per request): `close` comes once, after the answer or the client leaving.
  function answered(this: Response): void {
    inFlight.count--;
    // A client that left before any answer got none: there is no status to count it under.
    if (!this.headersSent) return;
    const locals = this.locals as MeasuredLocals;
    const { method } = this.req;
    const operation = method === "OPTIONS" ? "preflight" : (locals.operation ?? "unmatched");
    const counted = (COUNTED_METHODS as readonly string[]).includes(method) ? method : "other";
    observerFor(operation, counted, this.statusCode).observe((performance.now() - locals.startedAt!) / 1000);
  }
  return (_req: Request, res: Response, next: NextFunction) => {
    (res.locals as MeasuredLocals).startedAt = performance.now();
    inFlight.count++;
    res.on("close", answered);
    next();
  };
}
