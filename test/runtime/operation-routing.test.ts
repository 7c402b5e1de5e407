// The API app's matcher and request parser, made once at start, give openapi-backend's own answers: the
// same operation (or the same 404 or 405) and the same parsed request, for every path of the contract.
import { describe, expect, it } from "vitest";
import { OpenAPIBackend, type Operation } from "openapi-backend";
import { loadDocument } from "../../server/api-apps.ts";
import { precompiledMatcher, precompiledRequestParser } from "../../server/http/operation-routing.ts";
import { API_NAMES } from "../../scripts/normalize-openapi.ts";

const METHODS = ["get", "put", "post", "patch", "delete", "head"];

describe.each(API_NAMES)("the %s API", (api) => {
  it("matches and parses every path of the contract as openapi-backend does", async () => {
    const backend = new OpenAPIBackend({ definition: loadDocument(api), quick: true });
    await backend.init();
    await backend.loadDocument();
    const operations = backend.router.getOperations();
    const match = precompiledMatcher(backend.router, operations);
    const parse = precompiledRequestParser(backend.router, operations);
    const paths = new Set<string>(["/", "/no-such-route", "/payment-request/a/b/c/d", "//payment-request"]);
    for (const operation of operations) {
      paths.add(operation.path.replace(/\{[^}]+\}/g, "REF-1"));
      paths.add(operation.path.replace(/\{[^}]+\}/g, "bulk"));
      paths.add(operation.path.replace(/\{[^}]+\}/g, "a%20b%C3%B1"));
      paths.add(`${operation.path.replace(/\{[^}]+\}/g, "x")}/`);
    }
    let matched = 0;
    for (const path of paths) {
      for (const method of METHODS) {
        const request = { method, path, headers: { "content-type": "application/json", cookie: "a=1" }, query: { page: "2" } };
        const outcome = (find: (req: typeof request, strict?: boolean) => Operation | undefined) => {
          try {
            return find(request, true)?.operationId;
          } catch (error) {
            return (error as Error).message;
          }
        };
        const expected = outcome(backend.router.matchOperation.bind(backend.router));
        expect(outcome(match), `${method} ${path}`).toBe(expected);
        const operation = backend.router.matchOperation(request);
        if (operation === undefined) continue;
        expect(parse(request, operation), `${method} ${path}`).toEqual(backend.router.parseRequest(request, operation));
        // Without a cookie (read without openapi-backend's own parse): the same, and nothing shared with the request.
        const plain = {
          method: method.toUpperCase(),
          path,
          headers: { "Content-Type": "application/json", authorization: "Bearer x" },
          query: Object.assign(Object.create(null), { page: "2", state: ["pending", "paid"] }),
          body: { amount: 10, items: [{ a: 1 }] },
        };
        const parsed = parse(plain, operation);
        expect(parsed, `${method} ${path}`).toStrictEqual(backend.router.parseRequest(plain, operation));
        expect(parsed.query.state).not.toBe(plain.query.state);
        matched++;
      }
    }
    expect(matched).toBeGreaterThanOrEqual(operations.length);
  });
});
