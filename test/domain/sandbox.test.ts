// The Sandbox's pure rules: the Sandbox-only guard and where an advance moves the integration's clock.
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../domain/errors.ts";
import { clockTarget, isoDurationMs } from "../../domain/sandbox/sandbox-clock.ts";
import { requireSandbox } from "../../domain/sandbox/sandbox-only.ts";

describe("requireSandbox", () => {
  it("lets the Sandbox through and refuses Production with SandboxOnlyError and the given message", () => {
    expect(() => requireSandbox("sandbox")).not.toThrow();
    expect(() => requireSandbox("production")).toThrow(
      expect.objectContaining({ code: "SandboxOnlyError", message: "This operation exists only in the Sandbox" }),
    );
    expect(() => requireSandbox("production", "Test tokens exist only in the Sandbox")).toThrow("Test tokens exist only in the Sandbox");
  });
});

describe("isoDurationMs", () => {
  it("reads weeks, days, hours, minutes and seconds", () => {
    expect(isoDurationMs("P1W")).toBe(7 * 24 * 3600 * 1000);
    expect(isoDurationMs("P1DT12H")).toBe(36 * 3600 * 1000);
    expect(isoDurationMs("PT90M")).toBe(90 * 60 * 1000);
    expect(isoDurationMs("PT30S")).toBe(30 * 1000);
  });

  it("refuses other shapes as a ValidationError on advanceBy", () => {
    expect(() => isoDurationMs("P1Y")).toThrow(ValidationError);
    expect(() => isoDurationMs("1D")).toThrow("advanceBy must be an ISO 8601 duration");
  });
});

describe("clockTarget", () => {
  const current = new Date("2026-11-22T13:00:00.000Z");

  it("moves to an instant or by a duration", () => {
    expect(clockTarget(current, { advanceTo: "2026-11-30T00:00:00Z" }).toISOString()).toBe("2026-11-30T00:00:00.000Z");
    expect(clockTarget(current, { advanceBy: "P2D" }).toISOString()).toBe("2026-11-24T13:00:00.000Z");
  });

  it("only moves forward", () => {
    for (const advance of [{ advanceTo: "2026-11-22T13:00:00Z" }, { advanceTo: "2026-01-01T00:00:00Z" }, { advanceBy: "PT0S" }]) {
      expect(() => clockTarget(current, advance), JSON.stringify(advance)).toThrow(expect.objectContaining({ code: "SandboxClockBackwardsError" }));
    }
  });

  it("refuses a clock past year 9999, naming the field that asked for it", () => {
    expect(() => clockTarget(current, { advanceBy: "P999999999W" })).toThrow("advanceBy would move the clock past 9999-12-31T23:59:59.000Z");
    expect(() => clockTarget(current, { advanceTo: "+010000-01-01T00:00:00Z" })).toThrow(
      expect.objectContaining({ details: { problems: [expect.objectContaining({ field: "advanceTo" })] } }),
    );
  });
});
