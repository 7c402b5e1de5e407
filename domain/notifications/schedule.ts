// Which payer notifications a charge gets, and when: pure rules over the charge's terms, in the
// integration's time (the Sandbox clock's in the Sandbox). Reminders go out at 10:00 Argentina time.
//
//   initial                at creation, or 10:00 on `deferredInitialNotificationDate`
//   advance_reminder       10:00 the day before the first due date, or on `reminderNotificationDate`;
//                          none for a short-lived charge with under 24 hours from creation to its due date
//   due_date               10:00 on the first due date's day
//   first_due_date_passed  two dates: 10:00 the day after the first (the amount now has the surcharge)
//   second_due_date        two dates: 10:00 on the second
//
// What the table leaves open, decided here:
// - A time that is already past at creation is skipped (a charge created at 15:00 the day before its due
//   date gets no advance reminder for 10:00 that day): a late reminder would be news about the past. The
//   initial message is never skipped: it is at creation or later.
// - A time at or after the charge's final due instant is skipped: the charge is closed by then (overdue,
//   expired), and closed charges send nothing more. So a short-lived charge due at 09:00 gets no 10:00
//   due-date message, and a checkout charge (minutes to live) only its initial one (none if deferred).
// - No reminder goes out before the initial message (a deferred initial on the day before the due date).
// - One message per channel and day: the payer hears from us once a day. When two fall on one day, the
//   initial stands in for a reminder of its day (it says everything), and the second due date's message
//   for the notice that the first one passed (the second due date is the day after the first).
import { addDays, argentinaDate, parseDueDate, reminderInstant } from "../argentina-time.ts";
import type { Charge, ChargeState } from "../../db/tables/charges.table.ts";
import type { NotificationChannel, NotificationKind } from "../../db/tables/notifications.table.ts";
import { chatRecipient } from "./outbox.ts";

/** The columns of a charge that decide its schedule. */
export type ScheduleTerms = Pick<
  Charge,
  "amount_cents" | "created_at" | "due_dates" | "final_due_at" | "reminder_notification_date" | "deferred_initial_notification_date"
>;

/** The columns of a charge that decide who hears from us, and on which channel. */
export type NotificationContacts = Pick<Charge, "send_email_notification" | "send_whatsapp_notification" | "customer_email" | "customer_phone">;

export type ScheduleKind = Exclude<NotificationKind, "payment_confirmation">;

export interface ScheduledTime {
  kind: ScheduleKind;
  /** The Argentina day the message belongs to (`YYYY-MM-DD`). */
  day: string;
  scheduledFor: Date;
}

export interface ScheduledMessage extends ScheduledTime {
  channel: NotificationChannel;
  recipient: string;
}

const HOUR_MS = 3_600_000;

/** Which kind stands when two fall on one day: the first of the pair over the second. */
const STANDS_OVER: ReadonlyArray<[ScheduleKind, ScheduleKind]> = [
  ["initial", "advance_reminder"],
  ["initial", "due_date"],
  ["second_due_date", "first_due_date_passed"],
];

/** When each schedule message of a charge goes out, in time order; none for a draft (no amount). */
export function chargeSchedule(terms: ScheduleTerms): ScheduledTime[] {
  if (terms.amount_cents === null) return [];
  const [first, second] = terms.due_dates.map((text) => {
    const parsed = parseDueDate(text);
    if (parsed === undefined) throw new RangeError(`a stored due date that does not parse: ${text}`);
    return parsed;
  });
  if (first === undefined) return [];
  const createdAt = terms.created_at;
  const at = (kind: ScheduleKind, day: string): ScheduledTime => ({ kind, day, scheduledFor: reminderInstant(day) });

  const initial: ScheduledTime = terms.deferred_initial_notification_date
    ? at("initial", terms.deferred_initial_notification_date)
    : { kind: "initial", day: argentinaDate(createdAt), scheduledFor: createdAt };

  const shortLivedUnderADay = first.kind === "datetime" && first.dueAt.getTime() - createdAt.getTime() < 24 * HOUR_MS;
  const candidates: ScheduledTime[] = [
    ...(shortLivedUnderADay ? [] : [at("advance_reminder", terms.reminder_notification_date ?? addDays(first.argentinaDate, -1))]),
    at("due_date", first.argentinaDate),
    ...(second ? [at("first_due_date_passed", addDays(first.argentinaDate, 1)), at("second_due_date", second.argentinaDate)] : []),
  ];
  const beforeClosing = (time: ScheduledTime) => time.scheduledFor.getTime() < terms.final_due_at.getTime();
  const notBefore = (time: ScheduledTime, instant: Date) => time.scheduledFor.getTime() >= instant.getTime();
  const all = [
    ...(beforeClosing(initial) ? [initial] : []),
    ...candidates.filter((time) => beforeClosing(time) && notBefore(time, createdAt) && notBefore(time, initial.scheduledFor)),
  ];
  const kept = all.filter(
    (time) => !all.some((other) => other.day === time.day && STANDS_OVER.some(([winner, loser]) => other.kind === winner && time.kind === loser)),
  );
  return kept.sort((a, b) => a.scheduledFor.getTime() - b.scheduledFor.getTime());
}

/**
 * The channels a charge's payer hears on, with the address: email with `sendEmailNotification` and an
 * email address, chat with `sendWhatsappNotification` and a phone number. A channel without its contact
 * has no messages (a bulk charge may get a channel another item of the batch turned on).
 */
export function recipientsOf(contacts: NotificationContacts): Array<{ channel: NotificationChannel; recipient: string }> {
  return [
    ...(contacts.send_email_notification && contacts.customer_email ? [{ channel: "email" as const, recipient: contacts.customer_email }] : []),
    ...(contacts.send_whatsapp_notification && contacts.customer_phone
      ? [{ channel: "whatsapp" as const, recipient: chatRecipient(contacts.customer_phone) }]
      : []),
  ];
}

/** Every schedule message of a charge, per channel, in time order. */
export function scheduledMessages(charge: ScheduleTerms & NotificationContacts): ScheduledMessage[] {
  const schedule = chargeSchedule(charge);
  return recipientsOf(charge).flatMap(({ channel, recipient }) => schedule.map((time) => ({ ...time, channel, recipient })));
}

/**
 * Whether a payment gets a chat confirmation (`sendWhatsappPaymentConfirmation`): omitted, in CVU mode on
 * full and partial payments and never in CUIL mode; `true`, in CVU mode on full and partial payments and
 * in CUIL mode on full ones; `false`, never. (In CUIL mode the payer may still ask for it from the payer page.)
 */
export function confirmsPayment(flag: boolean | null, conciliationType: "cvu" | "cuil", payment: "full" | "partial"): boolean {
  if (flag === false) return false;
  if (conciliationType === "cvu") return true;
  return flag === true && payment === "full";
}

/** A charge state in which its schedule messages still go out. */
const OPEN_STATES: ReadonlySet<ChargeState> = new Set(["pending", "partial_payment"]);
/**
 * The states the time sweep closes a charge into, at its final due instant: charges/charge-states.ts' set,
 * written again because notifications/ sits below charges/ in the domain's stack.
 */
const PAST_DUE_STATES: ReadonlySet<ChargeState> = new Set(["overdue", "partial_overdue"]);

/**
 * Whether a schedule message still goes out: while its charge is open, or, for a charge that fell past
 * due, when its time came before the charge closed (a Sandbox clock jump over the due date queues, and
 * sends, what those days would have sent). Payment confirmations always go out.
 */
export function messageStillDue(message: { kind: NotificationKind; scheduled_for: Date }, charge: Pick<Charge, "state" | "final_due_at">): boolean {
  if (message.kind === "payment_confirmation") return true;
  if (OPEN_STATES.has(charge.state)) return true;
  return PAST_DUE_STATES.has(charge.state) && message.scheduled_for.getTime() < charge.final_due_at.getTime();
}
