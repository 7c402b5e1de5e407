// Argentina time: UTC-03:00 all year (no daylight saving). The one module that turns instants into
// Argentina calendar dates and back, so "today", day resets, the 10:00 reminders and due dates never
// depend on the server's time zone.

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;
/** Argentina's offset from UTC, in minutes. */
const ARGENTINA_OFFSET_MINUTES = -180;
const ARGENTINA_OFFSET_MS = ARGENTINA_OFFSET_MINUTES * MINUTE_MS;

export const ARGENTINA_UTC_OFFSET = "-03:00";
/** Payer reminders go out at 10 a.m. Argentina time. */
export const REMINDER_HOUR = 10;

const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DUE_DATE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2}))?(Z|[+-]\d{2}:\d{2})?)?$/;

/** The Argentina calendar date (`YYYY-MM-DD`) of an instant. */
export function argentinaDate(instant: Date): string {
  return new Date(instant.getTime() + ARGENTINA_OFFSET_MS).toISOString().slice(0, 10);
}

/** An instant written in Argentina time, to the second: `2026-11-22T10:15:00-03:00`. */
export function argentinaDateTime(instant: Date): string {
  const shifted = new Date(instant.getTime() + ARGENTINA_OFFSET_MS).toISOString();
  return `${shifted.slice(0, 19)}${ARGENTINA_UTC_OFFSET}`;
}

/** A calendar date as people in Argentina write it: `2026-12-10` → `10/12/2026`. */
export function argentinaDisplayDate(date: string): string {
  const match = CALENDAR_DATE.exec(date);
  if (match === null) throw new RangeError(`not a calendar date (YYYY-MM-DD): ${date}`);
  return `${match[3]}/${match[2]}/${match[1]}`;
}

/** An instant as people in Argentina read it: `29/11/2026 a las 10:05`. */
export function argentinaDisplayInstant(instant: Date): string {
  return `${argentinaDisplayDate(argentinaDate(instant))} a las ${argentinaDateTime(instant).slice(11, 16)}`;
}

/** A due date as payers read it: `10/12/2026`, or `10/12/2026 a las 15:30` for one with a time. */
export function dueDateForPayers(dueDate: DueDate): string {
  const date = argentinaDisplayDate(dueDate.argentinaDate);
  return dueDate.kind === "datetime" ? `${date} a las ${argentinaDateTime(dueDate.dueAt).slice(11, 16)}` : date;
}

/** True for a real calendar date `YYYY-MM-DD` (not 2026-02-30, not 2026-13-01). */
export function isCalendarDate(date: string): boolean {
  const match = CALENDAR_DATE.exec(date);
  return match !== null && isRealDate(Number(match[1]), Number(match[2]), Number(match[3]));
}

/** 00:00 Argentina time of a calendar date. */
export function startOfArgentinaDay(date: string): Date {
  return new Date(utcMidnight(date) - ARGENTINA_OFFSET_MS);
}

/** The end of an Argentina day, exclusive: 00:00 Argentina time of the next day. */
export function endOfArgentinaDay(date: string): Date {
  return new Date(startOfArgentinaDay(date).getTime() + DAY_MS);
}

/** The first 00:00 Argentina time strictly after an instant (daily caps and quotas reset then). */
export function nextArgentinaMidnight(instant: Date): Date {
  return endOfArgentinaDay(argentinaDate(instant));
}

/** The calendar date `days` days after (or before, when negative) a date. */
export function addDays(date: string, days: number): string {
  return new Date(utcMidnight(date) + days * DAY_MS).toISOString().slice(0, 10);
}

/** Whole calendar days from one date to another (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((utcMidnight(to) - utcMidnight(from)) / DAY_MS);
}

/** 10:00 Argentina time of a calendar date: when that day's payer reminders go out. */
export function reminderInstant(date: string): Date {
  return new Date(startOfArgentinaDay(date).getTime() + REMINDER_HOUR * 60 * MINUTE_MS);
}

export type DueDate = {
  /** `date`: `YYYY-MM-DD`, due at the end of that day; `datetime`: due at that minute (short-lived). */
  kind: "date" | "datetime";
  /** As the client sent it (echoed back in responses). */
  input: string;
  /** The first instant at which the due date has passed: next 00:00 for a date, the instant itself for a datetime. */
  dueAt: Date;
  /** The Argentina calendar date on which it falls (for a date, the date itself). */
  argentinaDate: string;
};

/**
 * Reads `YYYY-MM-DD` or `YYYY-MM-DDTHH:MM[:SS]` with an optional `Z` or `±HH:MM` (no zone: -03:00).
 * Undefined when the text has another shape or names an impossible date or time (2026-02-30, 25:00).
 */
export function parseDueDate(input: string): DueDate | undefined {
  const match = DUE_DATE.exec(input);
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second, zone] = match;
  if (!isRealDate(Number(year), Number(month), Number(day))) return undefined;
  const date = `${year}-${month}-${day}`;
  if (hour === undefined) {
    return { kind: "date", input, dueAt: endOfArgentinaDay(date), argentinaDate: date };
  }
  const offsetMinutes = zone === undefined ? ARGENTINA_OFFSET_MINUTES : parseOffset(zone);
  if (Number(hour) > 23 || Number(minute) > 59 || Number(second ?? 0) > 59 || offsetMinutes === undefined) {
    return undefined;
  }
  const wallClockMs = utcMidnight(date) + ((Number(hour) * 60 + Number(minute)) * 60 + Number(second ?? 0)) * 1000;
  const dueAt = new Date(wallClockMs - offsetMinutes * MINUTE_MS);
  return { kind: "datetime", input, dueAt, argentinaDate: argentinaDate(dueAt) };
}

/** `Z` → 0, `-03:00` → -180; undefined for an offset outside ±23:59. */
function parseOffset(zone: string): number | undefined {
  if (zone === "Z") return 0;
  const hours = Number(zone.slice(1, 3));
  const minutes = Number(zone.slice(4, 6));
  if (hours > 23 || minutes > 59) return undefined;
  return (zone.startsWith("-") ? -1 : 1) * (hours * 60 + minutes);
}

function isRealDate(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Milliseconds of 00:00 UTC of a calendar date; throws for anything that is not a real date. */
function utcMidnight(date: string): number {
  const match = CALENDAR_DATE.exec(date);
  if (match === null || !isRealDate(Number(match[1]), Number(match[2]), Number(match[3]))) {
    throw new RangeError(`not a calendar date (YYYY-MM-DD): ${date}`);
  }
  // setUTCFullYear, not Date.UTC, which maps years 0–99 to 1900–1999.
  return new Date(0).setUTCFullYear(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
}
