// Pesos ↔ integer cents, exact to the cent, never by multiplying floats.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ValidationError } from "../../domain/errors.ts";
import {
  addCents,
  centsOf,
  decimalsProblem,
  fromCents,
  MAX_AMOUNT_CENTS,
  MAX_AMOUNT_PESOS,
  percentOfCents,
  requireCents,
  toCents,
} from "../../domain/money.ts";

describe("toCents", () => {
  it("converts amounts with up to 2 decimals exactly, where float multiplication would not", () => {
    expect(19.99 * 100).not.toBe(1999); // the trap this module exists for
    expect(toCents(19.99)).toBe(1999);
    expect(toCents(0.07)).toBe(7);
    expect(toCents(0.1)).toBe(10);
    expect(toCents(1234567.89)).toBe(123456789);
    expect(toCents(200_000_000)).toBe(20_000_000_000);
    expect(toCents(199_999_999.99)).toBe(19_999_999_999);
    expect(toCents(0)).toBe(0);
    expect(toCents(-12.5)).toBe(-1250);
  });

  it("refuses more than 2 decimals", () => {
    for (const pesos of [10.001, 1.005, 0.001, 19.999, 0.125, 199_999_999.999]) {
      expect(() => toCents(pesos), String(pesos)).toThrow(RangeError);
      expect(centsOf(pesos), String(pesos)).toBeUndefined();
    }
  });

  it("refuses NaN and infinities, and reads exponent notation", () => {
    expect(centsOf(Number.NaN)).toBeUndefined();
    expect(centsOf(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(centsOf(1e-7)).toBeUndefined();
    expect(centsOf(1e15)).toBeUndefined(); // 1e17 cents is past 2^53: refused rather than rounded
    expect(centsOf(1e10)).toBe(1e12);
  });

  it("states the service's maximum", () => {
    expect(MAX_AMOUNT_PESOS).toBe(200_000_000);
    expect(MAX_AMOUNT_CENTS).toBe(20_000_000_000);
  });

  it("property: fromCents then toCents gives back any integer cents up to 2e10", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20_000_000_000 }), (cents) => {
        const pesos = fromCents(cents);
        expect(toCents(pesos)).toBe(cents);
        // And the number is the one a client writes as text: "1234.5" parses to the same float.
        expect(pesos).toBe(Number(`${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, "0")}`));
      }),
      { numRuns: 2000 },
    );
  });

  it("property: any amount with 3 significant decimals is refused", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 200_000_000_000 }).filter((mills) => mills % 10 !== 0),
        (mills) => {
          const text = `${Math.trunc(mills / 1000)}.${String(mills % 1000).padStart(3, "0")}`;
          expect(centsOf(Number(text))).toBeUndefined();
        },
      ),
    );
  });
});

describe("fromCents", () => {
  it("gives pesos as JSON numbers", () => {
    expect(fromCents(1999)).toBe(19.99);
    expect(fromCents(7)).toBe(0.07);
    expect(fromCents(123456789)).toBe(1234567.89);
    expect(() => fromCents(1.5)).toThrow(RangeError);
  });
});

describe("percentOfCents", () => {
  it("rounds half-up to the cent", () => {
    expect(percentOfCents(10_000, 10)).toBe(1000);
    expect(percentOfCents(1, 50)).toBe(1); // 0.5 cent → 1
    expect(percentOfCents(1, 49)).toBe(0); // 0.49 cent → 0
    expect(percentOfCents(333, 10)).toBe(33); // 33.3
    expect(percentOfCents(335, 10)).toBe(34); // 33.5 → 34
    expect(percentOfCents(1999, 12.5)).toBe(250); // 249.875
    expect(percentOfCents(20_000_000_000, 100)).toBe(20_000_000_000);
    expect(percentOfCents(12_345, 0)).toBe(0);
  });

  it("is exact where floats are not", () => {
    // 2.3 % of 15.00 pesos is exactly 34.5 cents → 35; in floats 1500 * 2.3 / 100 is 34.49999999999999 → 34.
    expect(Math.round((1500 * 2.3) / 100)).toBe(34);
    expect(percentOfCents(1500, 2.3)).toBe(35);
    expect(percentOfCents(750, 8.2)).toBe(62); // 61.5 exactly; floats say 61.49999999999999
    expect(percentOfCents(100, 33.333)).toBe(33); // 33.333 cents
    expect(percentOfCents(300, 0.5)).toBe(2); // 1.5 cents → 2
  });

  it("refuses negative or non-finite inputs", () => {
    expect(() => percentOfCents(-1, 10)).toThrow(RangeError);
    expect(() => percentOfCents(100, -1)).toThrow(RangeError);
    expect(() => percentOfCents(100, Number.NaN)).toThrow(RangeError);
  });

  it("property: matches exact rational rounding half-up", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 20_000_000_000 }), fc.integer({ min: 0, max: 10_000 }), (cents, hundredths) => {
        const percent = hundredths / 100; // 0.00 to 100.00
        const exact = BigInt(cents) * BigInt(hundredths); // in units of 1/10,000 cent
        const expected = Number((exact + 5_000n) / 10_000n);
        expect(percentOfCents(cents, percent)).toBe(expected);
      }),
      { numRuns: 2000 },
    );
  });
});

describe("addCents", () => {
  it("adds integer cents", () => {
    expect(addCents(1999, 1)).toBe(2000);
    expect(addCents()).toBe(0);
    expect(addCents(20_000_000_000, 20_000_000_000)).toBe(40_000_000_000);
  });

  it("throws rather than lose precision or add fractions", () => {
    expect(() => addCents(Number.MAX_SAFE_INTEGER, 1)).toThrow(RangeError);
    expect(() => addCents(0.5, 1)).toThrow(RangeError);
  });
});

describe('requireCents and decimalsProblem: the request rule "at most 2 decimals"', () => {
  it("answers the hundredths of a value exact to the cent, judged on its decimal text", () => {
    expect(requireCents("amount", 19.99)).toBe(1999);
    expect(requireCents("serviceCommissionPercentage", 0.29)).toBe(29); // 0.29 * 100 is 28.999999999999996
    expect(decimalsProblem("percentage", 2.5)).toBeUndefined();
  });

  it("refuses more than 2 decimals with a ValidationError naming the field", () => {
    expect(() => requireCents("amount", 10.001)).toThrow(ValidationError);
    expect(() => requireCents("amount", 10.001)).toThrow("amount must have at most 2 decimals");
    expect(decimalsProblem("fixedAmount", 1.005)).toEqual({
      field: "fixedAmount",
      rule: "decimals",
      limit: 2,
      message: "fixedAmount must have at most 2 decimals",
    });
    expect(decimalsProblem("amount", Number.NaN)).toBeDefined();
  });
});
