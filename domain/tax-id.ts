// Argentine payer documents. A CUIL (people) or CUIT (companies) is 11 digits: a 2-digit prefix, the
// 8-digit DNI (for people) and a check digit. A DNI is 7 or 8 digits: the middle part of a person's CUIL.

const CHECK_WEIGHTS = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2];
/** Prefixes of people's CUILs (20 men, 27 women, 23 when 20/27 give no check digit, 24 duplicates). */
export const PERSON_PREFIXES = ["20", "23", "24", "27"] as const;
/** Prefixes of companies' CUITs. */
export const COMPANY_PREFIXES = ["30", "33", "34"] as const;

export type DocumentKind = "cuil" | "cuit" | "dni";

/**
 * The check digit of the first 10 digits: 11 - (weighted sum mod 11), where 11 gives 0. Undefined when
 * the result is 10: that prefix cannot carry this number (the registry then issues it under 23).
 */
export function cuilCheckDigit(firstTenDigits: string): number | undefined {
  if (!/^\d{10}$/.test(firstTenDigits)) throw new RangeError(`expected 10 digits: ${firstTenDigits}`);
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += Number(firstTenDigits[i]) * CHECK_WEIGHTS[i]!;
  const digit = 11 - (sum % 11);
  if (digit === 11) return 0;
  return digit === 10 ? undefined : digit;
}

/** An 11-digit CUIL or CUIT with a known prefix and the right check digit (both share the format). */
export function isValidCuil(document: string): boolean {
  const kind = classifyDocument(document);
  return kind === "cuil" || kind === "cuit";
}

/** What a payer document is: a valid CUIL, a valid CUIT, a 7- or 8-digit DNI, or undefined (not valid). */
export function classifyDocument(document: string): DocumentKind | undefined {
  if (/^\d{7,8}$/.test(document)) return "dni";
  if (!/^\d{11}$/.test(document)) return undefined;
  if (cuilCheckDigit(document.slice(0, 10)) !== Number(document[10])) return undefined;
  const prefix = document.slice(0, 2);
  if ((PERSON_PREFIXES as readonly string[]).includes(prefix)) return "cuil";
  if ((COMPANY_PREFIXES as readonly string[]).includes(prefix)) return "cuit";
  return undefined;
}

/** The 8-digit DNI inside an 11-digit CUIL (with its leading zero for 7-digit DNIs). */
export function dniOf(cuil: string): string {
  if (!/^\d{11}$/.test(cuil)) throw new RangeError(`expected an 11-digit CUIL: ${cuil}`);
  return cuil.slice(2, 10);
}

/** The valid CUILs that contain a DNI, one per person prefix that can carry it. */
export function cuilCandidatesOfDni(dni: string): string[] {
  if (!/^\d{7,8}$/.test(dni)) throw new RangeError(`expected a 7- or 8-digit DNI: ${dni}`);
  const middle = dni.padStart(8, "0");
  return PERSON_PREFIXES.flatMap((prefix) => {
    const digit = cuilCheckDigit(`${prefix}${middle}`);
    return digit === undefined ? [] : [`${prefix}${middle}${digit}`];
  });
}

/**
 * Whether a payer document names the holder of a CUIL: the same 11 digits, or a DNI that is the middle
 * part of a person's CUIL (a company's CUIT contains no DNI).
 */
export function documentMatchesCuil(document: string, cuil: string): boolean {
  if (/^\d{11}$/.test(document)) return document === cuil;
  if (!/^\d{7,8}$/.test(document) || classifyDocument(cuil) !== "cuil") return false;
  return document.padStart(8, "0") === dniOf(cuil);
}

/**
 * The key under which two documents name the same payer: a person's DNI (so a DNI and the CUIL that
 * contains it collide), or a company's whole CUIT. Undefined for an invalid document.
 */
export function payerKeyOf(document: string): string | undefined {
  switch (classifyDocument(document)) {
    case "dni":
      return `dni:${document.padStart(8, "0")}`;
    case "cuil":
      return `dni:${dniOf(document)}`;
    case "cuit":
      return `cuit:${document}`;
    default:
      return undefined;
  }
}
