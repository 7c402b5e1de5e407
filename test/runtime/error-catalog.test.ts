// Error codes are one typed list, and the catalogue maps every one of them: a code without its documented
// status and body shape fails `npm run typecheck` (the type-level checks below are checked by tsc, and
// would fail it if the guarantee broke), and every listed code answers its catalogue status at run time.
import { describe, expect, expectTypeOf, it } from "vitest";
import { DomainError, ERROR_CODES, type ErrorCode, ValidationError } from "../../domain/errors.ts";
import { ERROR_CATALOG, type ErrorCatalog, replyForError } from "../../server/error-responses.ts";

describe("the error codes and their catalogue (types)", () => {
  it("maps exactly the listed codes", () => {
    expectTypeOf<keyof typeof ERROR_CATALOG>().toEqualTypeOf<ErrorCode>();
  });

  it("refuses a catalogue that lacks a code", () => {
    const { InternalError: _left, ...withoutOne } = ERROR_CATALOG;
    // @ts-expect-error a code without a documented mapping does not typecheck
    const incomplete: ErrorCatalog = withoutOne;
    expect(Object.keys(incomplete)).not.toContain("InternalError");
  });

  it("refuses a code outside the list where it is thrown", () => {
    // @ts-expect-error an unknown code does not typecheck
    const unknown = new DomainError("SomethingNobodyMappedError", "never answered");
    expect(ERROR_CATALOG[unknown.code]).toBeUndefined();
  });
});

describe("the error codes and their catalogue (run time)", () => {
  it("has one entry for each code and no other", () => {
    expect(Object.keys(ERROR_CATALOG).sort()).toEqual([...ERROR_CODES].sort());
    expect(new Set(ERROR_CODES).size).toBe(ERROR_CODES.length);
  });

  it.each(ERROR_CODES.map((code) => [code]))("answers %s with its catalogue status", (code) => {
    const error = code === "ValidationError" ? ValidationError.of("amount", "amount is required") : new DomainError(code, `${code} happened`);
    for (const api of ["integration", "auth", "admin"] as const) {
      const reply = replyForError(error, "req-1", api);
      expect(reply.status).toBe(ERROR_CATALOG[code].status);
      expect(reply.body).toBeDefined();
    }
  });
});
