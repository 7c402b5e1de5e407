// The payer notifications' schedule and the payment-confirmation matrix: pure rules, row by row.
import { describe, expect, it } from "vitest";
import { parseDueDate } from "../../domain/argentina-time.ts";
import { chargeSchedule, confirmsPayment, messageStillDue, recipientsOf, scheduledMessages, type ScheduleTerms } from "../../domain/notifications/schedule.ts";

/** A charge's terms: created at 12:00 Argentina time on 2026-11-22 unless told, with an amount. */
function terms(options: {
  dueDates: string[];
  createdAt?: string;
  amount?: number | null;
  reminder?: string;
  deferred?: string;
  expiresAt?: string;
}): ScheduleTerms {
  const last = parseDueDate(options.dueDates[options.dueDates.length - 1]!)!;
  return {
    amount_cents: options.amount === undefined ? 100_000 : options.amount,
    created_at: new Date(options.createdAt ?? "2026-11-22T15:00:00Z"),
    due_dates: options.dueDates,
    final_due_at: options.expiresAt ? new Date(options.expiresAt) : last.dueAt,
    reminder_notification_date: options.reminder ?? null,
    deferred_initial_notification_date: options.deferred ?? null,
  };
}

/** The schedule as `kind day time(UTC)` lines, easy to read in a failure. */
function lines(scheduleTerms: ScheduleTerms): string[] {
  return chargeSchedule(scheduleTerms).map(({ kind, day, scheduledFor }) => `${kind} ${day} ${scheduledFor.toISOString()}`);
}

describe("chargeSchedule: the schedule table", () => {
  it("one due date: initial at creation, advance reminder the day before at 10:00, due date at 10:00 that day", () => {
    expect(lines(terms({ dueDates: ["2026-12-10"] }))).toEqual([
      "initial 2026-11-22 2026-11-22T15:00:00.000Z",
      "advance_reminder 2026-12-09 2026-12-09T13:00:00.000Z",
      "due_date 2026-12-10 2026-12-10T13:00:00.000Z",
    ]);
  });

  it("two due dates: also the day after the first and the second due date", () => {
    expect(lines(terms({ dueDates: ["2026-12-10", "2026-12-20"] }))).toEqual([
      "initial 2026-11-22 2026-11-22T15:00:00.000Z",
      "advance_reminder 2026-12-09 2026-12-09T13:00:00.000Z",
      "due_date 2026-12-10 2026-12-10T13:00:00.000Z",
      "first_due_date_passed 2026-12-11 2026-12-11T13:00:00.000Z",
      "second_due_date 2026-12-20 2026-12-20T13:00:00.000Z",
    ]);
  });

  it("two consecutive due dates: the second due date's message stands in for the first-passed notice of its day", () => {
    expect(lines(terms({ dueDates: ["2026-12-10", "2026-12-11"] }))).toEqual([
      "initial 2026-11-22 2026-11-22T15:00:00.000Z",
      "advance_reminder 2026-12-09 2026-12-09T13:00:00.000Z",
      "due_date 2026-12-10 2026-12-10T13:00:00.000Z",
      "second_due_date 2026-12-11 2026-12-11T13:00:00.000Z",
    ]);
  });

  it("deferredInitialNotificationDate: the initial message at 10:00 that day", () => {
    expect(lines(terms({ dueDates: ["2026-12-10"], deferred: "2026-12-01" }))).toEqual([
      "initial 2026-12-01 2026-12-01T13:00:00.000Z",
      "advance_reminder 2026-12-09 2026-12-09T13:00:00.000Z",
      "due_date 2026-12-10 2026-12-10T13:00:00.000Z",
    ]);
  });

  it("an initial deferred to the day before the due date stands in for the advance reminder", () => {
    expect(lines(terms({ dueDates: ["2026-12-10"], deferred: "2026-12-09" }))).toEqual([
      "initial 2026-12-09 2026-12-09T13:00:00.000Z",
      "due_date 2026-12-10 2026-12-10T13:00:00.000Z",
    ]);
  });

  it("reminderNotificationDate: the advance reminder at 10:00 that day instead of the day before", () => {
    expect(lines(terms({ dueDates: ["2026-12-10"], reminder: "2026-12-05" }))).toEqual([
      "initial 2026-11-22 2026-11-22T15:00:00.000Z",
      "advance_reminder 2026-12-05 2026-12-05T13:00:00.000Z",
      "due_date 2026-12-10 2026-12-10T13:00:00.000Z",
    ]);
    expect(lines(terms({ dueDates: ["2026-12-10"], deferred: "2026-12-01", reminder: "2026-12-05" }))).toEqual([
      "initial 2026-12-01 2026-12-01T13:00:00.000Z",
      "advance_reminder 2026-12-05 2026-12-05T13:00:00.000Z",
      "due_date 2026-12-10 2026-12-10T13:00:00.000Z",
    ]);
  });

  it("short-lived with under 24 hours to its due date: no advance reminder", () => {
    // Created 12:00 on 11-22, due 11:00 on 11-23 (23 hours): the 10:00 due-date message is before it.
    expect(lines(terms({ dueDates: ["2026-11-23T11:00"] }))).toEqual([
      "initial 2026-11-22 2026-11-22T15:00:00.000Z",
      "due_date 2026-11-23 2026-11-23T13:00:00.000Z",
    ]);
  });

  it("short-lived with a day or more to its due date: the advance reminder; none of the due day's 10:00 if it is due before then", () => {
    expect(lines(terms({ dueDates: ["2026-11-24T09:00"] }))).toEqual([
      "initial 2026-11-22 2026-11-22T15:00:00.000Z",
      "advance_reminder 2026-11-23 2026-11-23T13:00:00.000Z",
    ]);
  });

  it("short-lived due the day it is created: the initial message says it all (one message a day)", () => {
    expect(lines(terms({ dueDates: ["2026-11-22T18:00"], createdAt: "2026-11-22T11:00:00Z" }))).toEqual(["initial 2026-11-22 2026-11-22T11:00:00.000Z"]);
  });

  it("skips a time already past at creation: created at 15:00 the day before the due date, no advance reminder", () => {
    expect(lines(terms({ dueDates: ["2026-12-10"], createdAt: "2026-12-09T18:00:00Z" }))).toEqual([
      "initial 2026-12-09 2026-12-09T18:00:00.000Z",
      "due_date 2026-12-10 2026-12-10T13:00:00.000Z",
    ]);
  });

  it("created at 09:00 the day before the due date: the initial message stands in for the 10:00 advance reminder", () => {
    expect(lines(terms({ dueDates: ["2026-12-10"], createdAt: "2026-12-09T12:00:00Z" }))).toEqual([
      "initial 2026-12-09 2026-12-09T12:00:00.000Z",
      "due_date 2026-12-10 2026-12-10T13:00:00.000Z",
    ]);
  });

  it("skips a time at or after the final due instant: a checkout charge only has its initial message, none when deferred", () => {
    expect(lines(terms({ dueDates: ["2026-12-10"], expiresAt: "2026-11-22T15:30:00Z" }))).toEqual(["initial 2026-11-22 2026-11-22T15:00:00.000Z"]);
    expect(lines(terms({ dueDates: ["2026-12-10"], expiresAt: "2026-11-22T15:30:00Z", deferred: "2026-12-01" }))).toEqual([]);
  });

  it("a draft (no amount) has no schedule", () => {
    expect(chargeSchedule(terms({ dueDates: ["2026-12-10"], amount: null }))).toEqual([]);
  });
});

const phone = { countryCode: "+54", number: "9 11 2345-6789" };

describe("recipientsOf / scheduledMessages: per channel", () => {
  it("email needs its flag and an address; chat its flag and a phone number (as digits)", () => {
    const contacts = { send_email_notification: true, send_whatsapp_notification: true, customer_email: "juan@example.com", customer_phone: phone };
    expect(recipientsOf(contacts)).toEqual([
      { channel: "email", recipient: "juan@example.com" },
      { channel: "whatsapp", recipient: "5491123456789" },
    ]);
    expect(recipientsOf({ ...contacts, send_email_notification: false })).toEqual([{ channel: "whatsapp", recipient: "5491123456789" }]);
    expect(recipientsOf({ ...contacts, send_whatsapp_notification: false })).toEqual([{ channel: "email", recipient: "juan@example.com" }]);
    // A channel turned on for a bulk batch by another item, without this payer's contact: no message.
    expect(recipientsOf({ ...contacts, customer_email: null, customer_phone: null })).toEqual([]);
  });

  it("every schedule message once per channel", () => {
    const messages = scheduledMessages({
      ...terms({ dueDates: ["2026-12-10"] }),
      send_email_notification: true,
      send_whatsapp_notification: true,
      customer_email: "juan@example.com",
      customer_phone: phone,
    });
    expect(messages.map(({ kind, channel, recipient, day }) => `${channel} ${recipient} ${kind} ${day}`)).toEqual([
      "email juan@example.com initial 2026-11-22",
      "email juan@example.com advance_reminder 2026-12-09",
      "email juan@example.com due_date 2026-12-10",
      "whatsapp 5491123456789 initial 2026-11-22",
      "whatsapp 5491123456789 advance_reminder 2026-12-09",
      "whatsapp 5491123456789 due_date 2026-12-10",
    ]);
    const keys = messages.map(({ kind, channel, day }) => `${kind}/${channel}/${day}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});

describe("confirmsPayment: the payment-confirmation matrix", () => {
  it.each([
    [null, "cvu", "full", true],
    [null, "cvu", "partial", true],
    [null, "cuil", "full", false],
    [null, "cuil", "partial", false],
    [true, "cvu", "full", true],
    [true, "cvu", "partial", true],
    [true, "cuil", "full", true],
    [true, "cuil", "partial", false],
    [false, "cvu", "full", false],
    [false, "cvu", "partial", false],
    [false, "cuil", "full", false],
    [false, "cuil", "partial", false],
  ] as const)("flag %s, %s mode, %s payment: %s", (flag, mode, payment, expected) => {
    expect(confirmsPayment(flag, mode, payment)).toBe(expected);
  });
});

describe("messageStillDue", () => {
  const finalDueAt = new Date("2026-12-11T03:00:00Z");
  const reminder = (iso: string) => ({ kind: "due_date" as const, scheduled_for: new Date(iso) });

  it("while the charge is open", () => {
    expect(messageStillDue(reminder("2026-12-10T13:00:00Z"), { state: "pending", final_due_at: finalDueAt })).toBe(true);
    expect(messageStillDue(reminder("2026-12-10T13:00:00Z"), { state: "partial_payment", final_due_at: finalDueAt })).toBe(true);
  });

  it("past due: only what was scheduled before the charge closed", () => {
    expect(messageStillDue(reminder("2026-12-10T13:00:00Z"), { state: "overdue", final_due_at: finalDueAt })).toBe(true);
    expect(messageStillDue(reminder("2026-12-11T13:00:00Z"), { state: "partial_overdue", final_due_at: finalDueAt })).toBe(false);
  });

  it("never once paid or canceled; a payment confirmation always", () => {
    expect(messageStillDue(reminder("2026-12-10T13:00:00Z"), { state: "total_payment", final_due_at: finalDueAt })).toBe(false);
    expect(messageStillDue(reminder("2026-12-10T13:00:00Z"), { state: "canceled", final_due_at: finalDueAt })).toBe(false);
    expect(
      messageStillDue({ kind: "payment_confirmation", scheduled_for: new Date("2026-12-20T13:00:00Z") }, { state: "total_payment", final_due_at: finalDueAt }),
    ).toBe(true);
  });
});
