// CVU: the virtual account number a payer transfers to. It has the CBU's shape: 22 digits in two blocks,
// each ending in a check digit (10 - weighted sum mod 10) mod 10.
//   block 1 (8):  "000" + 4-digit provider code + check digit (weights 7,1,3,9,7,1,3)
//   block 2 (14): 13-digit account + check digit (weights 3,9,7,1,3,9,7,1,3,9,7,1,3)

const FIRST_BLOCK_WEIGHTS = [7, 1, 3, 9, 7, 1, 3];
const SECOND_BLOCK_WEIGHTS = [3, 9, 7, 1, 3, 9, 7, 1, 3, 9, 7, 1, 3];
/** A CBU starts with a bank code; a CVU with 000 (a virtual-account provider instead of a bank). */
const CVU_PREFIX = "000";
const ACCOUNT_DIGITS = 13;

/** A 22-digit CVU: `000` prefix and both check digits right. */
export function isValidCvu(cvu: string): boolean {
  return /^\d{22}$/.test(cvu) && cvu.startsWith(CVU_PREFIX) && hasValidCheckDigits(cvu);
}

/** Both check digits of a 22-digit CBU or CVU are right (no prefix rule). */
export function hasValidCheckDigits(cbu: string): boolean {
  if (!/^\d{22}$/.test(cbu)) return false;
  return checkDigit(cbu.slice(0, 7), FIRST_BLOCK_WEIGHTS) === Number(cbu[7]) && checkDigit(cbu.slice(8, 21), SECOND_BLOCK_WEIGHTS) === Number(cbu[21]);
}

/** The CVU of an account of a provider: `makeCvu("0031", 1)` → `0000031` + check + `0000000000001` + check. */
export function makeCvu(providerCode: string, account: number | string): string {
  if (!/^\d{4}$/.test(providerCode)) throw new RangeError(`a provider code is 4 digits: ${providerCode}`);
  const accountDigits = typeof account === "number" ? accountNumberText(account) : account.padStart(ACCOUNT_DIGITS, "0");
  if (!/^\d{13}$/.test(accountDigits)) throw new RangeError(`an account number is up to 13 digits: ${account}`);
  const firstBlock = `${CVU_PREFIX}${providerCode}`;
  return `${firstBlock}${checkDigit(firstBlock, FIRST_BLOCK_WEIGHTS)}${accountDigits}${checkDigit(accountDigits, SECOND_BLOCK_WEIGHTS)}`;
}

/** The 13-digit account part of a CVU. */
export function accountNumberOf(cvu: string): string {
  if (!/^\d{22}$/.test(cvu)) throw new RangeError(`a CVU is 22 digits: ${cvu}`);
  return cvu.slice(8, 8 + ACCOUNT_DIGITS);
}

/** The 4-digit provider code of a CVU. */
export function providerCodeOf(cvu: string): string {
  if (!/^\d{22}$/.test(cvu)) throw new RangeError(`a CVU is 22 digits: ${cvu}`);
  return cvu.slice(3, 7);
}

function accountNumberText(account: number): string {
  if (!Number.isSafeInteger(account) || account < 0) throw new RangeError(`an account number is a whole number ≥ 0: ${account}`);
  return String(account).padStart(ACCOUNT_DIGITS, "0");
}

function checkDigit(digits: string, weights: number[]): number {
  let sum = 0;
  for (let i = 0; i < weights.length; i++) sum += Number(digits[i]) * weights[i]!;
  return (10 - (sum % 10)) % 10;
}
