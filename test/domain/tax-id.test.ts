// CUIL/CUIT check digits and DNIs.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  classifyDocument,
  cuilCandidatesOfDni,
  cuilCheckDigit,
  dniOf,
  documentMatchesCuil,
  isValidCuil,
  payerKeyOf,
  PERSON_PREFIXES,
  COMPANY_PREFIXES,
} from "../../domain/tax-id.ts";

describe("cuilCheckDigit", () => {
  it("is 11 - (weighted sum mod 11) with weights 5,4,3,2,7,6,5,4,3,2", () => {
    // 2·5 + 0·4 + 1·3 + 2·2 + 3·7 + 4·6 + 5·5 + 6·4 + 7·3 + 8·2 = 148; 148 mod 11 = 5; 11 - 5 = 6
    expect(cuilCheckDigit("2012345678")).toBe(6);
    // AFIP's own CUIT, 33-69345023-9.
    expect(cuilCheckDigit("3369345023")).toBe(9);
  });

  it("gives 0 when the result is 11", () => {
    expect(cuilCheckDigit("2012345684")).toBe(0);
    expect(isValidCuil("20123456840")).toBe(true);
  });

  it("gives no digit when the result is 10: that prefix cannot carry the number, 23 does", () => {
    expect(cuilCheckDigit("2012345693")).toBeUndefined();
    for (const digit of "0123456789") expect(isValidCuil(`2012345693${digit}`)).toBe(false);
    expect(isValidCuil("23123456939")).toBe(true); // the man's CUIL moves to 23 with check digit 9
    expect(cuilCheckDigit("2712345687")).toBeUndefined();
    expect(isValidCuil("23123456874")).toBe(true); // the woman's moves to 23 with check digit 4
  });
});

describe("isValidCuil", () => {
  it("accepts CUILs and CUITs with the right check digit", () => {
    for (const document of ["20123456786", "27123456780", "23123456785", "24123456781", "30123456781", "33693450239"]) {
      expect(isValidCuil(document), document).toBe(true);
    }
  });

  it("refuses a wrong check digit, an unknown prefix, and other lengths", () => {
    expect(isValidCuil("20123456787")).toBe(false);
    expect(isValidCuil("33693450238")).toBe(false);
    expect(isValidCuil("2012345678")).toBe(false);
    expect(isValidCuil("201234567866")).toBe(false);
    expect(isValidCuil("20-12345678-6")).toBe(false);
    // 10-12345678-x with a correct digit for its sum is still not a CUIL: prefix 10 does not exist.
    const digit = cuilCheckDigit("1012345678");
    expect(digit).toBeDefined();
    expect(isValidCuil(`1012345678${digit}`)).toBe(false);
  });

  it("property: changing any one digit of a valid CUIL makes it invalid (weights 2–7 are prime to 11)", () => {
    const validCuil = fc
      .tuple(fc.constantFrom(...PERSON_PREFIXES, ...COMPANY_PREFIXES), fc.integer({ min: 0, max: 99_999_999 }))
      .map(([prefix, number]) => {
        const first = `${prefix}${String(number).padStart(8, "0")}`;
        const digit = cuilCheckDigit(first);
        return digit === undefined ? undefined : `${first}${digit}`;
      })
      .filter((cuil): cuil is string => cuil !== undefined);
    fc.assert(
      fc.property(validCuil, fc.integer({ min: 0, max: 10 }), fc.integer({ min: 1, max: 9 }), (cuil, position, shift) => {
        expect(isValidCuil(cuil)).toBe(true);
        const changed = cuil.slice(0, position) + ((Number(cuil[position]) + shift) % 10) + cuil.slice(position + 1);
        expect(isValidCuil(changed)).toBe(false);
      }),
      { numRuns: 2000 },
    );
  });

  it("exhaustively: no single-digit change of one CUIL is valid", () => {
    const cuil = "20123456786";
    for (let position = 0; position < 11; position++) {
      for (const digit of "0123456789") {
        if (digit === cuil[position]) continue;
        expect(isValidCuil(cuil.slice(0, position) + digit + cuil.slice(position + 1))).toBe(false);
      }
    }
  });
});

describe("classifyDocument", () => {
  it("tells CUILs (20, 23, 24, 27), CUITs (30, 33, 34) and DNIs (7–8 digits) apart", () => {
    expect(classifyDocument("20123456786")).toBe("cuil");
    expect(classifyDocument("27123456780")).toBe("cuil");
    expect(classifyDocument("23123456785")).toBe("cuil");
    expect(classifyDocument("24123456781")).toBe("cuil");
    expect(classifyDocument("30123456781")).toBe("cuit");
    expect(classifyDocument("33693450239")).toBe("cuit");
    expect(classifyDocument("12345678")).toBe("dni");
    expect(classifyDocument("1234567")).toBe("dni");
  });

  it("is undefined for anything else", () => {
    for (const document of ["20123456787", "123456", "123456789", "1234567890", "", "abcdefgh", "12.345.678"]) {
      expect(classifyDocument(document), document).toBeUndefined();
    }
  });
});

describe("DNI and CUIL", () => {
  it("finds the DNI inside a CUIL", () => {
    expect(dniOf("20123456786")).toBe("12345678");
    expect(dniOf(`2001234567${cuilCheckDigit("2001234567")}`)).toBe("01234567");
    expect(() => dniOf("12345678")).toThrow(RangeError);
  });

  it("lists the CUILs a DNI can have", () => {
    expect(cuilCandidatesOfDni("12345678")).toEqual(["20123456786", "23123456785", "24123456781", "27123456780"]);
    expect(cuilCandidatesOfDni("12345693")).toEqual(expect.not.arrayContaining([expect.stringMatching(/^20/)]));
    expect(cuilCandidatesOfDni("12345693")).toContain("23123456939");
    for (const cuil of cuilCandidatesOfDni("1234567")) {
      expect(isValidCuil(cuil)).toBe(true);
      expect(dniOf(cuil)).toBe("01234567");
    }
  });

  it("matches a document to a CUIL: the same CUIL, or the DNI it contains", () => {
    expect(documentMatchesCuil("20123456786", "20123456786")).toBe(true);
    expect(documentMatchesCuil("12345678", "20123456786")).toBe(true);
    expect(documentMatchesCuil("12345678", "27123456780")).toBe(true);
    const sevenDigitCuil = cuilCandidatesOfDni("1234567")[0]!;
    expect(documentMatchesCuil("1234567", sevenDigitCuil)).toBe(true);
    expect(documentMatchesCuil("12345679", "20123456786")).toBe(false);
    expect(documentMatchesCuil("27123456780", "20123456786")).toBe(false);
    // A company's CUIT contains no DNI.
    expect(documentMatchesCuil("12345678", "30123456781")).toBe(false);
    // Not a CUIL at all.
    expect(documentMatchesCuil("12345678", "20123456787")).toBe(false);
  });

  it("gives one payer key to a DNI and the CUILs that contain it", () => {
    expect(payerKeyOf("12345678")).toBe(payerKeyOf("20123456786"));
    expect(payerKeyOf("1234567")).toBe(payerKeyOf(cuilCandidatesOfDni("1234567")[0]!));
    expect(payerKeyOf("12345678")).not.toBe(payerKeyOf("12345679"));
    expect(payerKeyOf("30123456781")).not.toBe(payerKeyOf("12345678"));
    expect(payerKeyOf("20123456787")).toBeUndefined();
  });
});
