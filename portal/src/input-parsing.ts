// What an admin types in a form, read as the API's numbers: Argentine decimals (`1.234,56`, `1,5`) and the
// plain ones (`1234.56`) alike. Each answers `undefined` when the text is not such a number.

/** `1.234,56`, `1234,56` or `1234.56` → 1234.56. */
export function parsePesos(text: string): number | undefined {
  const trimmed = text.trim();
  const normalized = trimmed.includes(",") ? trimmed.replace(/\./g, "").replace(",", ".") : trimmed;
  if (!/^\d+(\.\d{1,2})?$/.test(normalized)) return undefined;
  return Number(normalized);
}

/** `1,5` or `1.5` → 1.5; empty → null (no percentage). Whether it is at most 100 is the API's to say. */
export function parsePercentage(text: string): number | null | undefined {
  const trimmed = text.trim().replace(",", ".");
  if (trimmed === "") return null;
  if (!/^\d{1,3}(\.\d{1,4})?$/.test(trimmed)) return undefined;
  return Number(trimmed);
}

/** `1.000` or `1000` → 1000 (a count, like messages a day). */
export function parseWholeNumber(text: string): number | undefined {
  const normalized = text.trim().replace(/\./g, "");
  if (!/^\d{1,9}$/.test(normalized)) return undefined;
  return Number(normalized);
}

/** A number as the form shows it again: `1.5` → `1,5`; null → empty. */
export function decimalText(value: number | null | undefined): string {
  return value === null || value === undefined ? "" : String(value).replace(".", ",");
}
