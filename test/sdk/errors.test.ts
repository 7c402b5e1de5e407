// The SDK's helpers for the errors its generated clients throw (sdk/src/errors.ts): they go by the errors'
// names and shapes, so they read the errors of every generated client; the body readers take what
// `errorBodyOf` returned. The module is also the package's `@cobro/sdk/errors` entry, which a browser
// bundle takes alone.
import * as esbuild from "esbuild";
import { describe, expect, it } from "vitest";
import { errorBodyOf, errorCodeOf, httpStatusOf, isNoAnswerError, isResponseError, validationDetailsOf } from "../../sdk/src/errors.ts";
import { ROOT } from "../../scripts/cobro-process.ts";

// Stand-ins for the errors of two generated runtimes (sdk/src/generated/*/runtime.ts, which this program
// does not import: its parameter properties are not erasable syntax): two classes of the same names and
// shapes, as the admin and auth clients each have their own.
function runtime() {
  class ResponseError extends Error {
    override name = "ResponseError" as const;
    response: Response;
    constructor(response: Response, msg?: string) {
      super(msg ?? "Response returned an error code");
      this.response = response;
    }
  }
  class FetchError extends Error {
    override name = "FetchError" as const;
    override cause: Error;
    constructor(cause: Error, msg?: string) {
      super(msg ?? "The request failed and the interceptors did not return an alternative response");
      this.cause = cause;
    }
  }
  return { ResponseError, FetchError };
}
const admin = runtime();
const auth = runtime();

function answer(status: number, body?: string): Response {
  return new Response(body, { status, headers: body === undefined ? {} : { "content-type": "application/json" } });
}

describe("isResponseError, httpStatusOf, isNoAnswerError", () => {
  it("know a non-2xx answer of any generated client by its name and shape", () => {
    for (const error of [new admin.ResponseError(answer(404)), new auth.ResponseError(answer(404))]) {
      expect(isResponseError(error)).toBe(true);
      expect(httpStatusOf(error)).toBe(404);
      expect(isNoAnswerError(error)).toBe(false);
    }
    expect(isResponseError(Object.assign(new Error("x"), { name: "ResponseError" }))).toBe(false); // no response
    expect(isResponseError({ name: "ResponseError", response: answer(500) })).toBe(false); // not an Error
    expect(httpStatusOf(new Error("x"))).toBeUndefined();
  });

  it("know that no answer came: the client's FetchError, or a fetch aborted or timed out outside it", () => {
    expect(isNoAnswerError(new admin.FetchError(new TypeError("fetch failed")))).toBe(true);
    expect(isNoAnswerError(new auth.FetchError(new TypeError("fetch failed")))).toBe(true);
    expect(isNoAnswerError(new DOMException("timed out", "TimeoutError"))).toBe(true);
    expect(isNoAnswerError(new DOMException("aborted", "AbortError"))).toBe(true);
    expect(isNoAnswerError(new TypeError("x"))).toBe(false);
    expect(httpStatusOf(new admin.FetchError(new TypeError("fetch failed")))).toBeUndefined();
  });
});

describe("errorBodyOf", () => {
  it("parses the JSON body from a clone, so the body can still be read from the error", async () => {
    const error = new admin.ResponseError(answer(409, '{"code":"GoLiveRequestDecidedError","message":"decided","id":"e1"}'));
    expect(await errorBodyOf(error)).toEqual({ code: "GoLiveRequestDecidedError", message: "decided", id: "e1" });
    expect(await errorBodyOf(error)).toEqual({ code: "GoLiveRequestDecidedError", message: "decided", id: "e1" });
    expect(await error.response.json()).toMatchObject({ code: "GoLiveRequestDecidedError" });
  });

  it("is undefined for an empty or non-JSON body and for an error that is not an answer", async () => {
    expect(await errorBodyOf(new admin.ResponseError(answer(502)))).toBeUndefined();
    expect(await errorBodyOf(new admin.ResponseError(answer(502, "<html>Bad gateway</html>")))).toBeUndefined();
    expect(await errorBodyOf(new admin.FetchError(new TypeError("fetch failed")))).toBeUndefined();
  });
});

describe("errorCodeOf", () => {
  it("is the body's `code`, else its `error`, as the body writes it", () => {
    expect(errorCodeOf({ code: "ValidationError", message: "m", id: "e1" })).toBe("ValidationError");
    expect(errorCodeOf({ error: "ReferenceIdAlreadyExists", message: "m", referenceId: "INV-1" })).toBe("ReferenceIdAlreadyExists");
    expect(errorCodeOf({ code: "CustomerAlreadyAssociatedError", error: "other" })).toBe("CustomerAlreadyAssociatedError");
    expect(errorCodeOf({ code: 42, error: "NotANumberCode" })).toBe("NotANumberCode");
  });

  it("is undefined for a body with neither, for no body, and for an Error passed instead of a body", () => {
    expect(errorCodeOf({ message: "Payment request not found" })).toBeUndefined();
    expect(errorCodeOf(undefined)).toBeUndefined();
    expect(errorCodeOf(null)).toBeUndefined();
    expect(errorCodeOf("ValidationError")).toBeUndefined();
    expect(errorCodeOf([{ code: "ValidationError" }])).toBeUndefined();
    // A Node system error has a `code` of its own; it is not the service's.
    expect(errorCodeOf(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }))).toBeUndefined();
  });
});

describe("validationDetailsOf", () => {
  it("lists a ValidationError's fields in the body's order, repeated fields included", () => {
    const body = {
      code: "ValidationError",
      message: "amount is required",
      id: "e1",
      validationDetails: [
        { field: "amount", message: "is required" },
        { field: "customer.email", message: 'customer.email: must match format "email"' },
        { field: "amount", message: "must be >= 1" },
      ],
    };
    expect(validationDetailsOf(body)).toEqual([
      { field: "amount", message: "is required" },
      { field: "customer.email", message: 'customer.email: must match format "email"' },
      { field: "amount", message: "must be >= 1" },
    ]);
  });

  it("keeps each entry's rule and its bound, and leaves out ones of the wrong type", () => {
    const body = {
      validationDetails: [
        { field: "name", message: "name must have at most 100 characters", rule: "maxLength", limit: 100 },
        { field: "body", message: "body must have exactly one of a, b", rule: "exactlyOneOf", fields: ["a", "b"] },
        { field: "logoUrl", message: "logoUrl must be a valid uri", rule: "format", format: "uri" },
        { field: "x", message: "m", rule: 1, limit: "2", format: null, fields: ["a", 1] },
      ],
    };
    expect(validationDetailsOf(body)).toEqual([
      { field: "name", message: "name must have at most 100 characters", rule: "maxLength", limit: 100 },
      { field: "body", message: "body must have exactly one of a, b", rule: "exactlyOneOf", fields: ["a", "b"] },
      { field: "logoUrl", message: "logoUrl must be a valid uri", rule: "format", format: "uri" },
      { field: "x", message: "m" },
    ]);
  });

  it("leaves out entries without a string field and message, and keeps nothing else of an entry", () => {
    const body = { validationDetails: [null, "amount", { field: "amount" }, { field: 1, message: "m" }, { field: "body", message: "m", extra: true }] };
    expect(validationDetailsOf(body)).toEqual([{ field: "body", message: "m" }]);
  });

  it("is empty for a body without validationDetails, or with something else there, and for no body", () => {
    expect(validationDetailsOf({ code: "ForbiddenError", message: "m", id: "e1" })).toEqual([]);
    expect(validationDetailsOf({ validationDetails: { field: "amount", message: "m" } })).toEqual([]);
    expect(validationDetailsOf(undefined)).toEqual([]);
  });
});

describe("@cobro/sdk/errors", () => {
  it("bundles for a browser on its own: it imports nothing from Node or from a generated client (only the generated list of codes)", async () => {
    const result = await esbuild.build({
      stdin: { contents: 'export { errorCodeOf, isResponseError } from "@cobro/sdk/errors";', resolveDir: ROOT, loader: "ts" },
      absWorkingDir: ROOT,
      bundle: true,
      write: false,
      format: "esm",
      platform: "browser",
      conditions: ["@cobro/source"],
      metafile: true,
      logLevel: "silent",
    });
    expect(
      Object.keys(result.metafile.inputs)
        .filter((input) => input !== "<stdin>")
        .sort(),
    ).toEqual(["sdk/src/errors.ts", "sdk/src/generated/error-codes.ts"]);
  });
});
