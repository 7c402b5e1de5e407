// Error codes are one typed list with their statuses and body shapes (ERROR_CATALOG in domain/errors.ts):
// a code outside it does not typecheck where it is thrown (the type-level check below is checked by tsc,
// and would fail `npm run typecheck` if the guarantee broke), and every code answers its catalogue status,
// in every API, at run time.
import { describe, expect, expectTypeOf, it } from "vitest";
import { DomainError, ERROR_CATALOG, ERROR_CODES, type ErrorCode, ValidationError } from "../../domain/errors.ts";
import { ERROR_STATUSES, type ErrorCode as SdkErrorCode } from "../../sdk/src/errors.ts";
import { replyForError } from "../../server/http/error-responses.ts";

describe("the error catalogue (types)", () => {
  it("refuses a code outside the catalogue where it is thrown", () => {
    // @ts-expect-error an unknown code does not typecheck
    const unknown = new DomainError("SomethingNobodyMappedError", "never answered");
    expect((ERROR_CATALOG as Record<string, unknown>)[unknown.code]).toBeUndefined();
  });
});

describe("the SDK's error codes, generated from the catalogue", () => {
  it("are the catalogue's codes, with the catalogue's statuses", () => {
    expectTypeOf<SdkErrorCode>().toEqualTypeOf<ErrorCode>();
    expect(ERROR_STATUSES).toEqual(Object.fromEntries(ERROR_CODES.map((code) => [code, ERROR_CATALOG[code].status])));
  });
});

describe("the error catalogue (run time)", () => {
  it("lists each code once, with a documented status", () => {
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
    expect(ERROR_CODES.length).toBe(Object.keys(ERROR_CATALOG).length);
    for (const code of ERROR_CODES) expect(ERROR_CATALOG[code].status, code).toBeGreaterThanOrEqual(400);
  });

  it.each(ERROR_CODES.map((code) => [code]))("answers %s with its catalogue status", (code) => {
    const error = code === "ValidationError" ? ValidationError.of("amount", "required", "amount is required") : new DomainError(code, `${code} happened`);
    for (const api of ["integration", "auth", "admin"] as const) {
      const reply = replyForError(error, "req-1", api);
      expect(reply.status).toBe(ERROR_CATALOG[code].status);
      expect(reply.body).toBeDefined();
    }
  });
});
