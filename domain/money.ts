// Pesos travel as JSON numbers; the service computes and stores integer cents. Decimals are judged on a
// number's decimal text (what the client wrote), never by multiplying floats: 19.99 * 100 is 1998.9999….
import { ValidationError, type FieldProblem } from "./errors.ts";

/** The largest amount the service accepts: 200,000,000 pesos. */
export const MAX_AMOUNT_PESOS = 200_000_000;
export const MAX_AMOUNT_CENTS = MAX_AMOUNT_PESOS * 100;

/** The cents of an amount in pesos, or undefined when it is not exact to the cent (10.001, NaN, ∞). */
export function centsOf(pesos: number): number | undefined {
  const decimal = decimalOf(pesos);
  if (decimal === undefined || decimal.scale > 2) return undefined;
  const cents = decimal.digits * 10n ** BigInt(2 - decimal.scale);
  return cents <= BigInt(Number.MAX_SAFE_INTEGER) && cents >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(cents) : undefined;
}

/**
 * The request rule "at most 2 decimals" for a field in pesos (or a percentage, which has the same
 * precision): the problem to report, or undefined when the value is exact to the hundredth.
 */
/** What a request field with more than 2 decimals is told, after its name. */
export const AT_MOST_TWO_DECIMALS = "must have at most 2 decimals";

export function decimalsProblem(field: string, value: number): FieldProblem | undefined {
  return centsOf(value) === undefined ? { field, rule: "decimals", limit: 2, message: `${field} ${AT_MOST_TWO_DECIMALS}` } : undefined;
}

/** The hundredths of a request field (cents of an amount): a ValidationError naming the field past 2 decimals. */
export function requireCents(field: string, value: number): number {
  const cents = centsOf(value);
  if (cents === undefined) throw new ValidationError([decimalsProblem(field, value)!]);
  return cents;
}

/** Like `centsOf`, for values already validated: throws a RangeError for more than 2 decimals. */
export function toCents(pesos: number): number {
  const cents = centsOf(pesos);
  if (cents === undefined) throw new RangeError(`not an amount exact to the cent: ${pesos}`);
  return cents;
}

/** Pesos for JSON. Exact: a correctly rounded division gives the same number as the text `X.YY`. */
export function fromCents(cents: number): number {
  assertSafeCents(cents);
  return cents / 100;
}

/** `percent` % of an amount in cents, rounded half-up to the cent, computed exactly. */
export function percentOfCents(cents: number, percent: number): number {
  assertSafeCents(cents);
  const decimal = decimalOf(percent);
  if (cents < 0 || decimal === undefined || decimal.digits < 0n) {
    throw new RangeError(`percentOfCents needs cents ≥ 0 and a finite percent ≥ 0 (got ${cents}, ${percent})`);
  }
  // cents × digits / (100 × 10^scale), rounded half-up: floor((2 × numerator + denominator) / (2 × denominator)).
  const numerator = BigInt(cents) * decimal.digits;
  const denominator = 100n * 10n ** BigInt(decimal.scale);
  return Number((2n * numerator + denominator) / (2n * denominator));
}

/**
 * An amount as Argentines read it: `$ 1.234,56` (dots between thousands, a comma before the cents, a
 * plain space after the sign). Computed from the cents, never through a float or the host's locale data.
 */
export function formatPesos(cents: number): string {
  assertSafeCents(cents);
  const magnitude = Math.abs(cents);
  const whole = String(Math.floor(magnitude / 100)).replace(/\B(?=(\d{3})+$)/g, ".");
  return `${cents < 0 ? "-" : ""}$ ${whole},${String(magnitude % 100).padStart(2, "0")}`;
}

/** The sum of amounts in cents; throws rather than lose precision past 2^53. */
export function addCents(...amounts: number[]): number {
  let total = 0;
  for (const amount of amounts) {
    assertSafeCents(amount);
    total += amount;
  }
  assertSafeCents(total);
  return total;
}

function assertSafeCents(cents: number): void {
  if (!Number.isSafeInteger(cents)) throw new RangeError(`not a safe integer number of cents: ${cents}`);
}

/**
 * A finite number as `digits / 10^scale`, read from its shortest decimal text (`String(19.99)` is
 * "19.99"; `String(1e21)` is "1e+21"). Undefined for NaN and ±Infinity.
 */
function decimalOf(value: number): { digits: bigint; scale: number } | undefined {
  if (!Number.isFinite(value)) return undefined;
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(value));
  if (match === null) return undefined;
  const [, sign, whole, fraction = "", exponent = "0"] = match;
  let digits = BigInt(`${sign}${whole}${fraction}`);
  let scale = fraction.length - Number(exponent);
  if (scale < 0) {
    digits *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { digits, scale };
}
