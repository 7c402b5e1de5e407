// How a request finds its operation: openapi-backend's router, with the path templates worked out once,
// the methods a path allows (for 405's Allow), and the query an operation accepts.
import type { Request } from "express";
import type { OpenAPIBackend, Operation } from "openapi-backend";

/**
 * The request's query; for an operation marked `x-ignore-unknown-query-parameters` in the contract (the
 * OAuth authorization endpoint, RFC 6749 §3.1; GET /me, which the seed says ignores any parameters; the
 * payer page), only the parameters it declares. Elsewhere an unknown
 * parameter is refused ("field not accepted").
 */
export function knownQuery(backend: OpenAPIBackend, req: Request): Record<string, string | string[]> {
  const query = req.query as Record<string, string | string[]>;
  if (Object.keys(query).length === 0) return query;
  const operation = backend.matchOperation({ method: req.method, path: req.path, headers: req.headers as Record<string, string | string[]> });
  if ((operation as (Operation & Record<string, unknown>) | undefined)?.["x-ignore-unknown-query-parameters"] !== true) return query;
  const declared = new Set((operation!.parameters ?? []).flatMap((parameter) => ("in" in parameter && parameter.in === "query" ? [parameter.name] : [])));
  return Object.fromEntries(Object.entries(query).filter(([name]) => declared.has(name)));
}

/**
 * openapi-backend's own matching, with each path template's pattern and specificity worked out once
 * rather than a regular expression compiled per operation at every request. Same answers: an exact path
 * first, then the templates that match, most specific (longest literal part) first, for the method; a
 * path that matches with no operation for the method is a 405, no path a 404. Exact paths are found by
 * key, and only the templates with the path's number of segments are tried (a parameter matches one).
 */
export function precompiledMatcher(router: OpenAPIBackend["router"], operations: Operation[]) {
  const templates = operations
    .map((operation) => ({
      operation,
      pattern: templatePattern(operation.path),
      specificity: operation.path.replace(/\{.*?\}/g, "").length,
    }))
    .sort((a, b) => b.specificity - a.specificity); // stable: as lodash's orderBy
  const exact = new Map<string, Operation>();
  for (const operation of operations) {
    const key = `${operation.method} ${operation.path}`;
    if (!exact.has(key)) exact.set(key, operation); // the first, as Array.find
  }
  const bySegments = new Map<number, typeof templates>();
  for (const template of templates) {
    const segments = segmentCount(template.operation.path);
    bySegments.set(segments, [...(bySegments.get(segments) ?? []), template]);
  }
  const internals = router as unknown as {
    normalizeRequest(req: object): { path: string; method: string };
    isUnderApiRoot(path: string): boolean;
    normalizePath(path: string): string;
  };
  return (req: { method: string; path: string }, strict?: boolean): Operation | undefined => {
    const request = internals.normalizeRequest(req);
    const refuse = (reason: string) => {
      if (strict) throw new Error(reason);
      return undefined;
    };
    if (!internals.isUnderApiRoot(request.path)) return refuse("404-notFound: no route matches request");
    const path = internals.normalizePath(request.path);
    const found = exact.get(`${request.method} ${path}`);
    if (found) return found;
    let pathMatched = false;
    for (const { operation, pattern } of bySegments.get(segmentCount(path)) ?? []) {
      if (!pattern.test(path)) continue;
      if (operation.method === request.method) return operation;
      pathMatched = true;
    }
    return refuse(pathMatched ? "405-methodNotAllowed: this method is not registered for the route" : "404-notFound: no route matches request");
  };
}

function segmentCount(path: string): number {
  let count = 0;
  for (let index = path.indexOf("/"); index !== -1; index = path.indexOf("/", index + 1)) count++;
  return count;
}

/** `/payment-request/{referenceId}` as `^/payment-request/[^/]+$`, the literal parts escaped (as openapi-backend does). */
function templatePattern(path: string): RegExp {
  const literals = path.replace(/\{[^}]+\}/g, "\0").split("\0");
  return new RegExp(`^${literals.map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[^/]+")}$`);
}

const METHODS = ["get", "put", "post", "patch", "delete"];

export function allowedMethods(backend: OpenAPIBackend, req: Request): string[] {
  return METHODS.filter((method) => backend.matchOperation({ method, path: req.path, headers: {} }) !== undefined).map((method) => method.toUpperCase());
}

type ParseRequest = OpenAPIBackend["router"]["parseRequest"];

/**
 * openapi-backend's parseRequest (called three times a request), with each operation's path
 * parameters read by a pattern made once: its own compiles the path template (bath) at every call. Same
 * answers: the template's `{name}`s matched as `([^/]*)`, percent-decoded, the same name twice only with
 * the same value. An operation whose query parameters openapi-backend parses by style (`explode: false`,
 * JSON content) keeps openapi-backend's own parsing.
 */
export function precompiledRequestParser(router: OpenAPIBackend["router"], operations: Operation[]): ParseRequest {
  const original: ParseRequest = router.parseRequest.bind(router);
  const internals = router as unknown as { normalizePath(path: string): string; normalizeRequest<R>(req: R): R & { path: string; method: string } };
  const normalizePath = internals.normalizePath.bind(router);
  const normalizeRequest = internals.normalizeRequest.bind(router);
  const parsers = new Map<Operation, (path: string) => Record<string, string> | null>();
  for (const operation of operations) if (!hasStyledQuery(operation)) parsers.set(operation, pathParameters(operation.path));
  return ((req, operation) => {
    // Before routing openapi-backend parses the request once more (headers, cookies, query) for hooks that
    // read it before an operation is known; Cobro's read the request itself, so the parse is skipped.
    if (operation === undefined) return { method: req.method.toLowerCase(), path: req.path, headers: {}, query: {}, params: {}, cookies: {}, body: req.body };
    const parse = parsers.get(operation as Operation);
    if (parse === undefined) return original(req, operation);
    // Its own parse copies the headers through lodash, deep-clones the query after writing it out as text it
    // then drops, and parses an absent cookie header: a request with no cookie, a query object and a JSON
    // body (every API request but the portal's) is read here as it would have been.
    if (req.headers?.cookie !== undefined || typeof req.query !== "object" || req.query === null || (req.body && typeof req.body !== "object")) {
      const parsed = original(req);
      parsed.params = parse(normalizePath(parsed.path)) ?? {};
      return parsed;
    }
    const normalized = normalizeRequest(req);
    return {
      ...normalized,
      params: parse(normalizePath(normalized.path)) ?? {},
      headers: lowerCaseKeys(req.headers),
      query: copyOfQuery(req.query as Record<string, unknown>),
      cookies: {},
      requestBody: req.body,
    };
  }) as ParseRequest;
}

function lowerCaseKeys(headers: Record<string, unknown>): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const name in headers) if (Object.hasOwn(headers, name)) copy[name.toLowerCase()] = headers[name];
  return copy;
}

/** A copy that shares nothing with the request's query, of its prototype (as lodash's cloneDeep gave): a value's array or object copied too. */
function copyOfQuery(query: Record<string, unknown>): Record<string, unknown> {
  const copy = Object.create(Object.getPrototypeOf(query)) as Record<string, unknown>;
  for (const name in query) {
    if (!Object.hasOwn(query, name)) continue;
    const value = query[name];
    copy[name] = Array.isArray(value) || (typeof value === "object" && value !== null) ? structuredClone(value) : value;
  }
  return copy;
}

function hasStyledQuery(operation: Operation): boolean {
  return (operation.parameters ?? []).some(
    (parameter) =>
      !("$ref" in parameter) &&
      parameter.in === "query" &&
      ((parameter as { explode?: boolean }).explode === false ||
        (parameter as { content?: Record<string, unknown> }).content?.["application/json"] !== undefined),
  );
}

/** A path template's parameters, as bath (openapi-backend's path parser) reads them, or null when the path does not match. */
function pathParameters(template: string): (path: string) => Record<string, string> | null {
  const names = (template.match(/\{[A-Za-z0-9_-]+\}/g) ?? []).map((name) => name.slice(1, -1));
  const pattern = new RegExp(`^${template.replace(/\{[A-Za-z0-9_-]+\}/g, "([^\\/]*)")}$`);
  return (path) => {
    const match = path.match(pattern);
    if (match === null) return null;
    const values = match.slice(1).map((value) => decodeURIComponent(value));
    const params: Record<string, string> = {};
    for (const [index, name] of names.entries()) {
      if (Object.hasOwn(params, name) && params[name] !== values[index]) return null;
      params[name] = values[index]!;
    }
    return params;
  };
}
