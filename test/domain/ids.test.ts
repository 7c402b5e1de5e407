// Path ids and token claims are UUIDs; anything else names nothing.
import { describe, expect, it } from "vitest";
import { isUuid } from "../../domain/ids.ts";

describe("isUuid", () => {
  it("accepts UUIDs in either case and refuses every other shape", () => {
    expect(isUuid("0b7e6f0c-3c1a-4f5e-9a51-1d2f3e4a5b6c")).toBe(true);
    expect(isUuid("0B7E6F0C-3C1A-4F5E-9A51-1D2F3E4A5B6C")).toBe(true);
    for (const value of [
      "",
      "not-a-uuid",
      "0b7e6f0c3c1a4f5e9a511d2f3e4a5b6c",
      "0b7e6f0c-3c1a-4f5e-9a51-1d2f3e4a5b6c ",
      "0b7e6f0c-3c1a-4f5e-9a51-1d2f3e4a5b6g",
    ]) {
      expect(isUuid(value), JSON.stringify(value)).toBe(false);
    }
  });
});
