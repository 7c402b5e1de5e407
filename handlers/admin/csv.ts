// The Admin API's CSV exports (RFC 4180): the earnings and the daily statement.

/**
 * A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. Text that a spreadsheet
 * would run as a formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return) is prefixed with `'`.
 */
export function csvText(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}
