// Argentina time (UTC-03:00, no daylight saving): dates, day boundaries and due dates.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addDays,
  argentinaDate,
  argentinaDateTime,
  daysBetween,
  endOfArgentinaDay,
  isCalendarDate,
  nextArgentinaMidnight,
  parseDueDate,
  reminderInstant,
  startOfArgentinaDay,
} from "../../domain/argentina-time.ts";

const at = (iso: string) => new Date(iso);

describe("argentinaDate", () => {
  it("is the UTC date until 03:00 UTC, then the same day; the previous day before", () => {
    expect(argentinaDate(at("2026-11-23T02:59:59.999Z"))).toBe("2026-11-22"); // 23:59:59.999 -03:00
    expect(argentinaDate(at("2026-11-23T03:00:00.000Z"))).toBe("2026-11-23"); // 00:00 -03:00
    expect(argentinaDate(at("2026-11-23T00:00:00.000Z"))).toBe("2026-11-22"); // UTC midnight is 21:00 the day before
  });

  it("does not follow any daylight saving (same offset in January and July)", () => {
    expect(argentinaDate(at("2026-01-15T02:59:00Z"))).toBe("2026-01-14");
    expect(argentinaDate(at("2026-07-15T02:59:00Z"))).toBe("2026-07-14");
  });

  it("crosses years and leap days", () => {
    expect(argentinaDate(at("2027-01-01T02:00:00Z"))).toBe("2026-12-31");
    expect(argentinaDate(at("2028-03-01T02:00:00Z"))).toBe("2028-02-29");
  });

  it("writes instants in Argentina time", () => {
    expect(argentinaDateTime(at("2026-11-23T01:15:30.250Z"))).toBe("2026-11-22T22:15:30-03:00");
  });
});

describe("day boundaries", () => {
  it("starts a day at 03:00 UTC and ends it (exclusive) at the next one", () => {
    expect(startOfArgentinaDay("2026-11-22").toISOString()).toBe("2026-11-22T03:00:00.000Z");
    expect(endOfArgentinaDay("2026-11-22").toISOString()).toBe("2026-11-23T03:00:00.000Z");
    expect(endOfArgentinaDay("2026-12-31").toISOString()).toBe("2027-01-01T03:00:00.000Z");
  });

  it("finds the next midnight strictly after an instant", () => {
    expect(nextArgentinaMidnight(at("2026-11-23T02:59:59Z")).toISOString()).toBe("2026-11-23T03:00:00.000Z");
    expect(nextArgentinaMidnight(at("2026-11-23T03:00:00Z")).toISOString()).toBe("2026-11-24T03:00:00.000Z");
  });

  it("sends reminders at 10:00 Argentina time (13:00 UTC)", () => {
    expect(reminderInstant("2026-12-09").toISOString()).toBe("2026-12-09T13:00:00.000Z");
  });

  it("refuses to compute with impossible dates", () => {
    expect(() => startOfArgentinaDay("2026-02-30")).toThrow(RangeError);
    expect(() => addDays("2026-13-01", 1)).toThrow(RangeError);
  });

  it("property: every instant lies in [start, end) of its own Argentina date", () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2100, 0, 1) }), (ms) => {
        const instant = new Date(ms);
        const date = argentinaDate(instant);
        expect(startOfArgentinaDay(date).getTime()).toBeLessThanOrEqual(ms);
        expect(endOfArgentinaDay(date).getTime()).toBeGreaterThan(ms);
        expect(nextArgentinaMidnight(instant)).toEqual(endOfArgentinaDay(date));
      }),
    );
  });
});

describe("calendar arithmetic", () => {
  it("adds days across months, years and leap days", () => {
    expect(addDays("2026-11-22", 35)).toBe("2026-12-27");
    expect(addDays("2026-12-31", 1)).toBe("2027-01-01");
    expect(addDays("2028-02-28", 1)).toBe("2028-02-29");
    expect(addDays("2027-02-28", 1)).toBe("2027-03-01");
    expect(addDays("2026-03-01", -1)).toBe("2026-02-28");
  });

  it("counts days between dates", () => {
    expect(daysBetween("2026-11-22", "2026-12-27")).toBe(35);
    expect(daysBetween("2026-12-27", "2026-11-22")).toBe(-35);
  });

  it("property: addDays and daysBetween agree", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 50_000 }), fc.integer({ min: -1000, max: 1000 }), (offset, days) => {
        const from = addDays("1990-01-01", offset);
        expect(daysBetween(from, addDays(from, days))).toBe(days);
      }),
    );
  });

  it("knows which calendar dates exist", () => {
    expect(isCalendarDate("2026-02-28")).toBe(true);
    expect(isCalendarDate("2028-02-29")).toBe(true);
    expect(isCalendarDate("2000-02-29")).toBe(true);
    expect(isCalendarDate("1900-02-29")).toBe(false);
    expect(isCalendarDate("2026-02-29")).toBe(false);
    expect(isCalendarDate("2026-02-30")).toBe(false);
    expect(isCalendarDate("2026-04-31")).toBe(false);
    expect(isCalendarDate("2026-13-01")).toBe(false);
    expect(isCalendarDate("2026-00-10")).toBe(false);
    expect(isCalendarDate("2026-01-00")).toBe(false);
    expect(isCalendarDate("2026-1-01")).toBe(false);
    expect(isCalendarDate("2026-01-01T10:00")).toBe(false);
  });
});

describe("parseDueDate", () => {
  it("a date is due at the end of that day: overdue at the next 00:00 -03:00", () => {
    expect(parseDueDate("2026-12-10")).toEqual({
      kind: "date",
      input: "2026-12-10",
      dueAt: at("2026-12-11T03:00:00Z"),
      argentinaDate: "2026-12-10",
    });
  });

  it("a date with a time and no zone is Argentina time", () => {
    expect(parseDueDate("2026-12-10T18:30")).toEqual({
      kind: "datetime",
      input: "2026-12-10T18:30",
      dueAt: at("2026-12-10T21:30:00Z"),
      argentinaDate: "2026-12-10",
    });
    expect(parseDueDate("2026-12-10T18:30:15")?.dueAt).toEqual(at("2026-12-10T21:30:15Z"));
  });

  it("honours Z and explicit offsets, and dates the instant in Argentina", () => {
    const utc = parseDueDate("2026-12-10T01:00Z");
    expect(utc?.dueAt).toEqual(at("2026-12-10T01:00:00Z"));
    expect(utc?.argentinaDate).toBe("2026-12-09"); // 22:00 the day before in Argentina
    expect(parseDueDate("2026-12-10T18:30:00-03:00")?.dueAt).toEqual(at("2026-12-10T21:30:00Z"));
    expect(parseDueDate("2026-12-10T18:30+05:30")?.dueAt).toEqual(at("2026-12-10T13:00:00Z"));
    expect(parseDueDate("2026-12-10T23:30-05:00")?.argentinaDate).toBe("2026-12-11");
  });

  it("rejects impossible dates and times", () => {
    for (const input of [
      "2026-02-30",
      "2026-02-29T10:00",
      "2026-13-01",
      "2026-12-10T25:00",
      "2026-12-10T24:00",
      "2026-12-10T10:60",
      "2026-12-10T10:00:60",
      "2026-12-10T10:00+24:00",
      "2026-12-10T10:00+03:60",
    ]) {
      expect(parseDueDate(input), input).toBeUndefined();
    }
  });

  it("rejects other shapes", () => {
    for (const input of [
      "",
      "2026-12-1",
      "10/12/2026",
      "2026-12-10T10",
      "2026-12-10 10:00",
      "2026-12-10T10:00z",
      "2026-12-10T10:00+0300",
      "2026-12-10T10:00:00.000Z",
    ]) {
      expect(parseDueDate(input), input).toBeUndefined();
    }
  });
});
