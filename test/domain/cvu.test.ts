// CVU: 22 digits, two blocks with check digits, "000" prefix.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { accountNumberOf, hasValidCheckDigits, isValidCvu, makeCvu, providerCodeOf } from "../../domain/cvu.ts";

describe("check digits", () => {
  it("agree with a published CBU (same algorithm as the CVU)", () => {
    // 2850590-9 / 4009041813520-1, the example CBU of many Argentine banking guides.
    expect(hasValidCheckDigits("2850590940090418135201")).toBe(true);
    expect(hasValidCheckDigits("2850590840090418135201")).toBe(false);
    expect(hasValidCheckDigits("2850590940090418135202")).toBe(false);
    // A CBU is not a CVU: a CVU starts with 000.
    expect(isValidCvu("2850590940090418135201")).toBe(false);
  });

  it("are computed by hand for a CVU", () => {
    // Block 1 "0000031": 0·7+0·1+0·3+0·9+0·7+3·1+1·3 = 6 → (10 - 6) mod 10 = 4.
    // Block 2 "0000000000001": 1·3 = 3 → 7.
    expect(makeCvu("0031", 1)).toBe("0000031400000000000017");
    expect(isValidCvu("0000031400000000000017")).toBe(true);
    // A sum that is a multiple of 10 gives 0, not 10.
    expect(makeCvu("0000", 0)).toBe("0000000000000000000000");
  });
});

describe("makeCvu", () => {
  it("builds valid CVUs from a provider code and an account number or text", () => {
    const cvu = makeCvu("0031", 1234567890123);
    expect(cvu).toHaveLength(22);
    expect(isValidCvu(cvu)).toBe(true);
    expect(accountNumberOf(cvu)).toBe("1234567890123");
    expect(providerCodeOf(cvu)).toBe("0031");
    expect(makeCvu("0031", "42")).toBe(makeCvu("0031", 42));
    expect(accountNumberOf(makeCvu("0031", "42"))).toBe("0000000000042");
  });

  it("refuses bad provider codes and accounts", () => {
    expect(() => makeCvu("31", 1)).toThrow(RangeError);
    expect(() => makeCvu("00031", 1)).toThrow(RangeError);
    expect(() => makeCvu("0031", -1)).toThrow(RangeError);
    expect(() => makeCvu("0031", 1.5)).toThrow(RangeError);
    expect(() => makeCvu("0031", 10_000_000_000_000)).toThrow(RangeError); // 14 digits
    expect(() => makeCvu("0031", "12345678901234")).toThrow(RangeError);
    expect(() => makeCvu("0031", "12a")).toThrow(RangeError);
  });
});

describe("isValidCvu", () => {
  it("refuses other lengths and non-digits", () => {
    expect(isValidCvu("000003140000000000001")).toBe(false);
    expect(isValidCvu("00000314000000000000170")).toBe(false);
    expect(isValidCvu("000003140000000000001x")).toBe(false);
    expect(() => accountNumberOf("123")).toThrow(RangeError);
  });

  const anyCvu = fc
    .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 9_999_999_999_999 }))
    .map(([provider, account]) => makeCvu(String(provider).padStart(4, "0"), account));

  it("property: makeCvu is always valid and keeps its account", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 9_999_999_999_999 }), (provider, account) => {
        const cvu = makeCvu(String(provider).padStart(4, "0"), account);
        expect(isValidCvu(cvu)).toBe(true);
        expect(Number(accountNumberOf(cvu))).toBe(account);
      }),
      { numRuns: 2000 },
    );
  });

  it("property: any single-digit change makes it invalid (weights 1, 3, 7, 9 are prime to 10)", () => {
    fc.assert(
      fc.property(anyCvu, fc.integer({ min: 0, max: 21 }), fc.integer({ min: 1, max: 9 }), (cvu, position, shift) => {
        const changed = cvu.slice(0, position) + ((Number(cvu[position]) + shift) % 10) + cvu.slice(position + 1);
        expect(isValidCvu(changed)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });
});
