// Properties of the create rules: any valid body (at any moment, of any kind) is accepted and its spec
// echoes it; one violation added to a valid body is refused under that field's name.
import fc, { type GeneratorValue } from "fast-check";
import { describe, expect, it } from "vitest";
import { addDays, argentinaDate, argentinaDateTime, daysBetween, endOfArgentinaDay } from "../../domain/argentina-time.ts";
import { amountOwedCents, calculatedAmounts } from "../../domain/amount-owed.ts";
import { amountTermsOf, surchargeJson, validateCreateRequest, type PaymentRequestCreate } from "../../domain/charges/charge-rules.ts";
import { ValidationError } from "../../domain/errors.ts";
import { fromCents, MAX_AMOUNT_CENTS } from "../../domain/money.ts";
import { cuilCheckDigit, PERSON_PREFIXES, COMPANY_PREFIXES } from "../../domain/tax-id.ts";

type Shape = "draft" | "one date" | "two dates" | "short-lived";
type Generated = { now: Date; body: PaymentRequestCreate; shape: Shape; amountCents: number | undefined };

const MINUTE = 60_000;

const validTaxDocument = fc.oneof(
  fc
    .tuple(fc.constantFrom(...PERSON_PREFIXES, ...COMPANY_PREFIXES), fc.integer({ min: 0, max: 99_999_999 }))
    .map(([prefix, number]) => `${prefix}${String(number).padStart(8, "0")}`)
    .filter((first) => cuilCheckDigit(first) !== undefined)
    .map((first) => `${first}${cuilCheckDigit(first)}`),
  fc.integer({ min: 1_000_000, max: 99_999_999 }).map(String),
);

// fc.gen() caches each arbitrary it builds by builder and arguments and searches that cache linearly:
// generate with fixed builders and arguments only (no per-run bounds), or runs slow down quadratically.
const referenceIds = () => fc.stringMatching(/^[A-Za-z0-9_-]{8,100}$/);
const descriptions = () => fc.string({ minLength: 3, maxLength: 500 });
const names = () => fc.string({ minLength: 2, maxLength: 150 });
const taxDocuments = () => validTaxDocument;
const metadatas = () => fc.option(fc.dictionary(fc.string({ minLength: 1, maxLength: 40 }), fc.string({ maxLength: 100 }), { maxKeys: 10 }), { nil: null });
const checkoutMinutes = () => fc.option(fc.integer({ min: 3, max: 60 }), { nil: null });

/** An integer in [min, max], often one of the bounds (where rules break). */
function between(g: GeneratorValue, min: number, max: number): number {
  const pick = g(fc.nat, 3);
  if (pick === 0) return min;
  if (pick === 1) return max;
  return min + (g(fc.maxSafeNat) % (max - min + 1));
}

/** A body that breaks no rule, of any shape, and the moment it is sent. */
function generateValid(g: GeneratorValue): Generated {
  const now = new Date(between(g, Date.UTC(2020, 0, 1), Date.UTC(2035, 0, 1)));
  const today = argentinaDate(now);
  const amountCents = g(fc.boolean) ? between(g, 1, MAX_AMOUNT_CENTS) : undefined;
  const hasAmount = amountCents !== undefined;
  const shape: Shape = hasAmount ? g(fc.constantFrom, "one date" as Shape, "two dates" as Shape, "short-lived" as Shape) : "draft";
  const type = hasAmount ? g(fc.constantFrom, undefined, null, "standard", "checkout") : g(fc.constantFrom, undefined, null, "standard");

  let dueDates: string[];
  let firstDueDate: string; // its Argentina date
  if (shape === "two dates") {
    const first = between(g, 1, 34);
    dueDates = [addDays(today, first), addDays(today, between(g, first + 1, 35))];
    firstDueDate = dueDates[0]!;
  } else if (shape === "short-lived") {
    const nextMinute = Math.floor(now.getTime() / MINUTE) * MINUTE + MINUTE;
    const lastMinute = endOfArgentinaDay(addDays(today, 35)).getTime() - MINUTE;
    const dueAt = new Date(nextMinute + between(g, 0, (lastMinute - nextMinute) / MINUTE) * MINUTE);
    const written = g(fc.constantFrom, "Argentina", "Z", "+05:30");
    if (written === "Argentina") dueDates = [argentinaDateTime(dueAt).slice(0, 16)];
    else if (written === "Z") dueDates = [`${dueAt.toISOString().slice(0, 16)}Z`];
    else dueDates = [`${new Date(dueAt.getTime() + 330 * MINUTE).toISOString().slice(0, 16)}+05:30`];
    firstDueDate = argentinaDate(dueAt);
  } else {
    dueDates = [addDays(today, between(g, 1, 35))];
    firstDueDate = dueDates[0]!;
  }

  let surcharge: PaymentRequestCreate["surcharge"];
  if (shape === "two dates") {
    surcharge =
      g(fc.constantFrom, "percentage", "fixed", "none") === "percentage"
        ? { type: "percentage", value: between(g, 0, 10_000) / 100 }
        : g(fc.boolean)
          ? { type: "fixed", value: fromCents(between(g, 0, MAX_AMOUNT_CENTS)) }
          : { type: "none", value: 0 };
  } else {
    surcharge = hasAmount ? g(fc.constantFrom, undefined, null, { type: "none" as const, value: 0 }) : g(fc.constantFrom, undefined, null);
  }

  const whatsapp = hasAmount ? g(fc.boolean) : g(fc.constantFrom, undefined, null, false);
  const email = hasAmount ? g(fc.boolean) : g(fc.constantFrom, undefined, null, false);

  // Notification dates fit strictly between today and the first due date, the reminder after the deferred one.
  let deferred: string | null | undefined = g(fc.constantFrom, undefined, null);
  let reminder: string | null | undefined = g(fc.constantFrom, undefined, null);
  const daysInBetween = daysBetween(today, firstDueDate) - 1;
  if (hasAmount && daysInBetween >= 1) {
    let earliestReminder = 1;
    if (g(fc.boolean)) {
      const offset = between(g, 1, daysInBetween);
      deferred = addDays(today, offset);
      earliestReminder = offset + 1;
    }
    if (earliestReminder <= daysInBetween && g(fc.boolean)) reminder = addDays(today, between(g, earliestReminder, daysInBetween));
  }

  const conciliationType = g(fc.constantFrom, undefined, null, "cvu", "cuil");
  const taxDocument =
    conciliationType === "cuil" ? g(taxDocuments) : g(fc.constantFrom, undefined, null, "20123456787" /* a bad check digit: ignored in cvu mode */, "12345678");

  const body: PaymentRequestCreate = compact({
    referenceId: g(referenceIds),
    description: g(descriptions),
    dueDates,
    customer: compact({
      name: g(names),
      taxDocument,
      email: email ? g(fc.emailAddress) : g(fc.constantFrom, undefined, null, "payer@example.com"),
      phoneNumber: whatsapp ? { countryCode: "+54", number: "1155550000" } : g(fc.constantFrom, undefined, null, { countryCode: "+1", number: "5550000" }),
    }),
    amount: amountCents === undefined ? g(fc.constantFrom, undefined, null) : fromCents(amountCents),
    surcharge,
    sendWhatsappNotification: whatsapp,
    sendEmailNotification: email,
    sendWhatsappPaymentConfirmation: g(fc.constantFrom, undefined, null, true, false),
    reminderNotificationDate: reminder,
    deferredInitialNotificationDate: deferred,
    conciliationType,
    webhookUrl: g(fc.constantFrom, undefined, null, "https://merchant.example/hooks"),
    metadata: g(metadatas),
    type,
    expiresInMinutes: type === "checkout" ? g(checkoutMinutes) : g(fc.constantFrom, undefined, null),
  });
  return { now, body, shape, amountCents };
}

describe("a valid create body", () => {
  it("property: is accepted, and its spec echoes every field", () => {
    fc.assert(
      fc.property(fc.gen(), (g) => {
        const { now, body, shape, amountCents } = generateValid(g);
        const spec = validateCreateRequest(body, now);

        const checkout = body.type === "checkout";
        expect(spec.kind).toBe(checkout ? "checkout" : shape === "draft" ? "draft" : shape === "short-lived" ? "short-lived" : "standard");
        expect(spec.type).toBe(body.type ?? "standard");
        expect(spec.referenceId).toBe(body.referenceId);
        expect(spec.description).toBe(body.description);
        expect(spec.amountCents).toBe(amountCents);
        if (spec.amountCents !== undefined) expect(fromCents(spec.amountCents)).toBe(body.amount);
        expect(spec.dueDates.map((dueDate) => dueDate.input)).toEqual(body.dueDates);
        expect(spec.dueDates.every((dueDate) => dueDate.dueAt.getTime() > now.getTime())).toBe(true);
        if (shape === "two dates") expect(surchargeJson(spec.surcharge!)).toEqual(body.surcharge);
        else expect(spec.surcharge).toBeUndefined();
        expect(spec.sendWhatsappNotification).toBe(body.sendWhatsappNotification === true);
        expect(spec.sendEmailNotification).toBe(body.sendEmailNotification === true);
        expect(spec.sendWhatsappPaymentConfirmation).toBe(body.sendWhatsappPaymentConfirmation ?? undefined);
        expect(spec.reminderNotificationDate).toBe(body.reminderNotificationDate ?? undefined);
        expect(spec.deferredInitialNotificationDate).toBe(body.deferredInitialNotificationDate ?? undefined);
        expect(spec.conciliationType).toBe(body.conciliationType ?? "cvu");
        expect(spec.customer).toStrictEqual(
          compact({
            name: body.customer.name,
            taxDocument: spec.conciliationType === "cuil" ? body.customer.taxDocument : undefined,
            email: body.customer.email ?? undefined,
            phoneNumber: body.customer.phoneNumber ?? undefined,
          }),
        );
        expect(spec.webhookUrl).toBe(body.webhookUrl ?? undefined);
        expect(spec.metadata).toEqual(body.metadata ?? undefined);
        const minutes = checkout ? (body.expiresInMinutes ?? 30) : undefined;
        expect(spec.expiresInMinutes).toBe(minutes);
        expect(spec.expiresAt?.getTime()).toBe(minutes === undefined ? undefined : now.getTime() + minutes * MINUTE);
        expect(calculatedAmounts(amountTermsOf(spec)) !== undefined).toBe(shape === "two dates");
        expect(amountOwedCents(amountTermsOf(spec), now)).toBe(amountCents);
      }),
      { numRuns: 1000 },
    );
  });
});

/** One violation each, as [the field it must be reported under, how to break a valid body]. */
const violations: Array<[string, (body: PaymentRequestCreate, now: Date) => PaymentRequestCreate | undefined]> = [
  ["dueDates[0]", (body, now) => ({ ...body, dueDates: [argentinaDate(now), ...body.dueDates.slice(1)] })],
  ["dueDates[0]", (body, now) => (body.dueDates.length === 1 ? { ...body, dueDates: [addDays(argentinaDate(now), 36)] } : undefined)],
  ["amount", (body) => (typeof body.amount === "number" ? { ...body, amount: withThirdDecimal(body.amount) } : undefined)],
  ["surcharge", (body) => (body.dueDates.length === 2 ? { ...body, surcharge: undefined } : undefined)],
  ["sendEmailNotification", (body) => (typeof body.amount === "number" ? { ...body, sendEmailNotification: null } : undefined)],
  ["sendWhatsappNotification", (body) => (body.amount == null ? { ...body, sendWhatsappNotification: true } : undefined)],
  [
    "customer.email",
    (body) => (typeof body.amount === "number" ? { ...body, sendEmailNotification: true, customer: { ...body.customer, email: null } } : undefined),
  ],
  ["customer.taxDocument", (body) => ({ ...body, conciliationType: "cuil", customer: { ...body.customer, taxDocument: "20123456787" } })],
  ["reminderNotificationDate", (body, now) => (typeof body.amount === "number" ? { ...body, reminderNotificationDate: argentinaDate(now) } : undefined)],
  [`metadata.${"k".repeat(41)}`, (body) => ({ ...body, metadata: { ...body.metadata, ["k".repeat(41)]: "v" } })],
  ["expiresInMinutes", (body) => (body.type !== "checkout" ? { ...body, expiresInMinutes: 30 } : undefined)],
];

describe("a valid create body with one violation", () => {
  it("property: is refused, naming the broken field", () => {
    fc.assert(
      fc.property(fc.gen(), fc.integer({ min: 0, max: violations.length - 1 }), (g, which) => {
        const { now, body } = generateValid(g);
        const [field, violate] = violations[which]!;
        const broken = violate(structuredClone(body), now);
        fc.pre(broken !== undefined);
        try {
          validateCreateRequest(broken!, now);
        } catch (error) {
          expect(error).toBeInstanceOf(ValidationError);
          expect((error as ValidationError).details.problems.map((problem) => problem.field)).toContain(field);
          return;
        }
        expect.unreachable(`accepted a body whose ${field} was broken`);
      }),
      { numRuns: 1000 },
    );
  });
});

/** The same amount with a third decimal: 12.3 → 12.305. */
function withThirdDecimal(pesos: number): number {
  const mills = Math.round(pesos * 100) * 10 + 5;
  return Number(`${Math.trunc(mills / 1000)}.${String(mills % 1000).padStart(3, "0")}`);
}

/** Drops keys whose value is undefined, as a JSON body has none. */
function compact<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}
