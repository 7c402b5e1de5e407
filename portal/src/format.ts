// Argentine formats, in Argentina's time whatever the browser's zone: `$ 1.234,56`, `dd/mm/aaaa`, `14:05`.
const ZONE = "America/Argentina/Buenos_Aires";

const money = new Intl.NumberFormat("es-AR", { style: "currency", currency: "ARS", minimumFractionDigits: 2, maximumFractionDigits: 2 });
const date = new Intl.DateTimeFormat("es-AR", { timeZone: ZONE, day: "2-digit", month: "2-digit", year: "numeric" });
const time = new Intl.DateTimeFormat("es-AR", { timeZone: ZONE, hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
const dayKey = new Intl.DateTimeFormat("en-CA", { timeZone: ZONE, year: "numeric", month: "2-digit", day: "2-digit" });

/** Who paid, as far as the bank said: `Juan Pérez · 20301234563`, either alone, or `—`. */
export function payerText(name: string | undefined, cuil: string | undefined): string {
  return [name, cuil].filter(Boolean).join(" · ") || "—";
}

/** A calendar day as the date inputs, the URLs and the API carry it: `2026-11-22`. */
export const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** Pesos as the API carries them (a number) → `$ 1.234,56` (with a plain space after the sign). */
export function formatMoney(pesos: number): string {
  return money.format(pesos).replace(/\u00a0/g, " ");
}

const count = new Intl.NumberFormat("es-AR", { maximumFractionDigits: 0 });

/** `1 cobro`, `1.000 cobros`: a count with its noun in the right number. */
export function plural(value: number, one: string, many: string): string {
  return `${count.format(value)} ${value === 1 ? one : many}`;
}

/** A count → `1.000`. */
export function formatCount(value: number): string {
  return count.format(value);
}

/** An instant (ISO 8601) or a calendar date (`2026-11-22`) → `22/11/2026`. */
export function formatDate(value: string): string {
  if (DAY.test(value)) {
    const [year, month, day] = value.split("-");
    return `${day}/${month}/${year}`;
  }
  return date.format(new Date(value));
}

/** An instant → `22/11/2026 10:05` in Argentina's time. */
export function formatDateTime(value: string): string {
  const instant = new Date(value);
  return `${date.format(instant)} ${time.format(instant)}`;
}

/** An instant → `10:05` in Argentina's time. */
export function formatTime(value: string): string {
  return time.format(new Date(value));
}

/** The calendar day in Argentina of an instant (`2026-11-22`), to compare days. */
export function argentinaDay(value: string | Date): string {
  return dayKey.format(typeof value === "string" ? new Date(value) : value);
}

/**
 * Argentina days (`2026-11-22`; either may be empty) as the API's `from` and `to`: the first day's start, and
 * the start of the day after the last, so that both days are included (the API's `to` is exclusive).
 * Argentina is UTC-03:00 all year.
 */
export function argentinaDayRange(first: string, last: string): { from?: string; to?: string } {
  const start = (day: string) => `${day}T00:00:00-03:00`;
  const dayAfter = (day: string) => {
    const [year, month, date] = day.split("-").map(Number);
    return new Date(Date.UTC(year!, month! - 1, date! + 1)).toISOString().slice(0, 10);
  };
  return { ...(first ? { from: start(first) } : {}), ...(last ? { to: start(dayAfter(last)) } : {}) };
}

/**
 * How far a clock is ahead of the real one, in words: `23 días y 10 h adelante`, `1 día adelante`,
 * `45 min adelante`; 0: `En la hora real`. Seconds are left out.
 */
export function formatClockOffset(offsetSeconds: number): string {
  const minutesAhead = Math.floor(offsetSeconds / 60);
  if (minutesAhead <= 0) return "En la hora real";
  const days = Math.floor(minutesAhead / 1440);
  const hours = Math.floor((minutesAhead % 1440) / 60);
  const minutes = minutesAhead % 60;
  const parts = [days > 0 ? plural(days, "día", "días") : "", hours > 0 ? `${hours} h` : "", minutes > 0 ? `${minutes} min` : ""].filter(Boolean);
  const said = parts.length > 1 ? `${parts.slice(0, -1).join(", ")} y ${parts.at(-1)}` : parts[0];
  return `${said} adelante`;
}
