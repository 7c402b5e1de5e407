// The business rules of creating a charge that the contract's JSON Schema cannot express (dates against
// today, fields that depend on other fields, check digits, cents, metadata size). The schema has already
// checked types, lengths, patterns, enums, item counts and unknown fields. Pure: no database, no clock
// other than the `now` it is given.
import type { components } from "../../generated/types/integration.ts";
import { addDays, argentinaDate, argentinaDateTime, isCalendarDate, parseDueDate, type DueDate } from "../argentina-time.ts";
import { ValidationError, type FieldProblem, type ValidationRule } from "../errors.ts";
import { AT_MOST_TWO_DECIMALS, centsOf, fromCents, MAX_AMOUNT_CENTS, percentOfCents } from "../money.ts";
import { classifyDocument, payerKeyOf } from "../tax-id.ts";
import type { AmountTerms } from "../amount-owed.ts";

type Schemas = components["schemas"];
export type PaymentRequestCreate = Schemas["PaymentRequestCreate"];
export type BulkPaymentRequestItem = Schemas["BulkPaymentRequestItem"];
type SurchargeInput = NonNullable<PaymentRequestCreate["surcharge"]>;

/** Due dates may be at most this many Argentina calendar days after today. */
export const MAX_DAYS_AHEAD = 35;
export const CHECKOUT_MINUTES = { min: 3, max: 60, default: 30 } as const;
export const METADATA_LIMITS = { keyCharacters: 40, totalBytes: 8 * 1024 } as const;

export type ChargeKind = "standard" | "draft" | "short-lived" | "checkout";

/** A surcharge that applies from the second due date, in the units the service computes with. */
export type SurchargeSpec = { type: "percentage"; percent: number } | { type: "fixed"; cents: number } | { type: "none" };

export type ChargeCustomer = {
  name: string;
  /** Only in `cuil` mode: ignored (and never echoed) in `cvu` mode. */
  taxDocument?: string;
  email?: string;
  phoneNumber?: Schemas["PhoneNumber"];
};

/** A create request that passed every rule, normalised: `null` gone, defaults applied, money in cents. */
export type ChargeSpec = {
  kind: ChargeKind;
  type: "standard" | "checkout";
  referenceId: string;
  description: string;
  /** Undefined for a draft. */
  amountCents?: number;
  /** 1 or 2, in order. */
  dueDates: DueDate[];
  /** Only with two due dates (a one-date `none` surcharge is dropped). */
  surcharge?: SurchargeSpec;
  sendWhatsappNotification: boolean;
  sendEmailNotification: boolean;
  /** Undefined when omitted: its meaning then depends on the conciliation type. */
  sendWhatsappPaymentConfirmation?: boolean;
  reminderNotificationDate?: string;
  deferredInitialNotificationDate?: string;
  conciliationType: "cvu" | "cuil";
  customer: ChargeCustomer;
  /** Passed through: the SSRF guard checks it elsewhere. */
  webhookUrl?: string;
  metadata?: Record<string, string>;
  /** Checkout charges only. */
  expiresInMinutes?: number;
  expiresAt?: Date;
};

/** Checks a `POST /payment-request` body; throws one ValidationError listing every problem. */
export function validateCreateRequest(body: PaymentRequestCreate, now: Date): ChargeSpec {
  return specOrThrow(checkCharge(body, now, { path: "", bulk: false }));
}

/**
 * Checks one item of a bulk (always `cuil` mode, date-only due dates); field paths start with
 * `paymentRequests[index].`. The taxDocument's check digit is not judged here: a bulk answers it with
 * a 422 reason (see `bulkRefusals`).
 */
export function validateBulkItem(item: BulkPaymentRequestItem, index: number, now: Date): ChargeSpec {
  return specOrThrow(checkBulkItem(item, index, now));
}

/** Checks every item of a bulk; throws one ValidationError with the problems of all items. */
export function validateBulkItems(items: BulkPaymentRequestItem[], now: Date): ChargeSpec[] {
  const results = items.map((item, index) => checkBulkItem(item, index, now));
  const problems = results.flatMap((result) => result.problems);
  if (problems.length > 0) throw new ValidationError(problems);
  return results.map((result) => result.spec!);
}

/** The documented 422 reasons of a bulk, word for word. */
export const BULK_REFUSAL_REASONS = {
  duplicateReferenceId: "Duplicate referenceId within the batch",
  existingReferenceId: "The referenceId already exists for this integration",
  invalidTaxDocument: "The taxDocument does not resolve to a valid CUIL",
  duplicatePayer: "Duplicate payer within the batch",
} as const;

export type BulkRefusal = {
  index: number;
  referenceId: string;
  reason: (typeof BULK_REFUSAL_REASONS)[keyof typeof BULK_REFUSAL_REASONS];
};

/**
 * The 422 refusals that need no database, in item order: an invalid taxDocument, and a referenceId or
 * payer that an earlier item of the batch already has (the first occurrence is not refused). A DNI and
 * the CUIL that contains it are the same payer.
 */
export function bulkRefusals(specs: ChargeSpec[]): BulkRefusal[] {
  const refusals: BulkRefusal[] = [];
  const seenReferenceIds = new Set<string>();
  const seenPayers = new Set<string>();
  specs.forEach((spec, index) => {
    const refuse = (reason: BulkRefusal["reason"]) => refusals.push({ index, referenceId: spec.referenceId, reason });
    if (seenReferenceIds.has(spec.referenceId)) refuse(BULK_REFUSAL_REASONS.duplicateReferenceId);
    seenReferenceIds.add(spec.referenceId);
    const payer = payerKeyOf(spec.customer.taxDocument ?? "");
    if (payer === undefined) refuse(BULK_REFUSAL_REASONS.invalidTaxDocument);
    else if (seenPayers.has(payer)) refuse(BULK_REFUSAL_REASONS.duplicatePayer);
    if (payer !== undefined) seenPayers.add(payer);
  });
  return refusals;
}

/**
 * The notification flags of a whole batch: a channel is on if any item turns it on; the payment
 * confirmation is the items' common value, or `false` when they differ (omitted counts as a value).
 */
export function batchNotificationFlags(specs: ChargeSpec[]): {
  sendWhatsappNotification: boolean;
  sendEmailNotification: boolean;
  sendWhatsappPaymentConfirmation?: boolean;
} {
  const confirmations = new Set(specs.map((spec) => spec.sendWhatsappPaymentConfirmation));
  const [common] = confirmations;
  return {
    sendWhatsappNotification: specs.some((spec) => spec.sendWhatsappNotification),
    sendEmailNotification: specs.some((spec) => spec.sendEmailNotification),
    ...(confirmations.size === 1 ? optional("sendWhatsappPaymentConfirmation", common) : { sendWhatsappPaymentConfirmation: false }),
  };
}

/** The surcharge in cents (0 without one). */
export function surchargeCents(spec: ChargeSpec): number {
  const surcharge = spec.surcharge;
  if (surcharge === undefined || surcharge.type === "none" || spec.amountCents === undefined) return 0;
  return surcharge.type === "fixed" ? surcharge.cents : percentOfCents(spec.amountCents, surcharge.percent);
}

/** The amount terms a new charge stores, from its checked spec. */
export function amountTermsOf(spec: ChargeSpec): AmountTerms {
  return {
    amount_cents: spec.amountCents ?? null,
    surcharge_cents: surchargeCents(spec),
    due_dates: spec.dueDates.map((date) => date.input),
    first_due_at: spec.dueDates[0]!.dueAt,
  };
}

/** The surcharge as the contract writes it: `{type, value}` with `value` in pesos or percent. */
export function surchargeJson(surcharge: SurchargeSpec): Schemas["Surcharge"] {
  switch (surcharge.type) {
    case "percentage":
      return { type: "percentage", value: surcharge.percent };
    case "fixed":
      return { type: "fixed", value: fromCents(surcharge.cents) };
    case "none":
      return { type: "none", value: 0 };
  }
}

// ---------------------------------------------------------------------------------------------------

type Checked = { spec?: ChargeSpec; problems: FieldProblem[] };

/** Fields of a create body that a bulk item must not carry (the closed schema refuses them first). */
const NOT_IN_BULK = ["conciliationType", "type", "expiresInMinutes", "webhookUrl"] as const;

function checkBulkItem(item: BulkPaymentRequestItem, index: number, now: Date): Checked {
  const path = `paymentRequests[${index}].`;
  const foreign: FieldProblem[] = NOT_IN_BULK.filter((field) => Object.hasOwn(item, field)).map((field) => ({
    field: `${path}${field}`,
    rule: "notAccepted",
    message: `${path}${field} is not accepted in a bulk item (bulk charges reconcile by CUIL; events go to the integration's URL)`,
  }));
  const checked = checkCharge({ ...item, conciliationType: "cuil" }, now, { path, bulk: true });
  return foreign.length === 0 ? checked : { problems: [...foreign, ...checked.problems] };
}

function specOrThrow({ spec, problems }: Checked): ChargeSpec {
  if (problems.length > 0 || spec === undefined) throw new ValidationError(problems);
  return spec;
}

function checkCharge(body: PaymentRequestCreate, now: Date, { path, bulk }: { path: string; bulk: boolean }): Checked {
  const problems: FieldProblem[] = [];
  // Every message starts with the field's full path, so it reads on its own as the error's `message`.
  const refuse: Refuse = (field, rule, complaint, bound = {}) =>
    problems.push({ field: `${path}${field}`, rule, message: `${path}${field} ${complaint}`, ...bound });

  const today = argentinaDate(now);
  const lastDay = addDays(today, MAX_DAYS_AHEAD);
  const type = body.type ?? "standard";
  // The rules below depend on whether an amount was sent, not on whether it is valid, so that one bad
  // amount is one problem rather than a cascade of draft rules.
  const hasAmount = body.amount != null;
  const amountCents = checkAmount(body.amount ?? undefined, refuse);

  // Due dates: each on its own, then against each other.
  const dueDates = body.dueDates.map((text, i) => checkDueDate(text, `dueDates[${i}]`, { now, today, lastDay, bulk }, refuse));
  const shortLived = dueDates.some((dueDate) => dueDate?.kind === "datetime");
  const twoDates = body.dueDates.length === 2;
  if (body.dueDates.length < 1 || body.dueDates.length > 2) refuse("dueDates", "invalid", "must have 1 or 2 dates");
  if (shortLived && body.dueDates.length > 1) {
    refuse("dueDates", "maxItems", "must have exactly one date when a date has a time (short-lived charge)", { limit: 1 });
  }
  if (!hasAmount && body.dueDates.length > 1) refuse("dueDates", "maxItems", "must have one date for a draft (a charge without amount)", { limit: 1 });
  const [first, second] = dueDates;
  if (first && second && second.dueAt.getTime() <= first.dueAt.getTime())
    refuse("dueDates[1]", "dateOrder", "must be after dueDates[0]", { fields: [`${path}dueDates[0]`] });

  // Surcharge: it applies from the second due date, so it needs an amount and two dates. Existing
  // clients send `{type: "none", value: 0}` with one date: accepted, and treated as no surcharge.
  const surchargeInput = body.surcharge ?? undefined;
  let surcharge: SurchargeSpec | undefined;
  if (surchargeInput !== undefined) {
    const checkedSurcharge = checkSurcharge(surchargeInput, refuse);
    const harmless = surchargeInput.type === "none";
    if (!hasAmount) refuse("surcharge", "notAccepted", "is not allowed without an amount (a draft has no surcharge)");
    else if (shortLived && !harmless) refuse("surcharge", "notAccepted", "is not allowed with a due date that has a time (short-lived charge)");
    else if (!twoDates && !harmless) refuse("surcharge", "notAccepted", "is only allowed with two due dates (it applies from the second)");
    else if (twoDates) surcharge = checkedSurcharge;
  } else if (hasAmount && twoDates) {
    refuse("surcharge", "required", "is required with an amount and two due dates");
  }

  // Notification flags: required with an amount; a draft sends nothing, so only false.
  const sendWhatsappNotification = checkFlag("sendWhatsappNotification", body.sendWhatsappNotification, hasAmount, refuse);
  const sendEmailNotification = checkFlag("sendEmailNotification", body.sendEmailNotification, hasAmount, refuse);

  // Notification dates: only with an amount, after today, before the first due date; reminder after deferred.
  const deferred = checkNotificationDate("deferredInitialNotificationDate", body.deferredInitialNotificationDate, { hasAmount, today, first }, refuse);
  const reminder = checkNotificationDate("reminderNotificationDate", body.reminderNotificationDate, { hasAmount, today, first }, refuse);
  if (deferred !== undefined && reminder !== undefined && reminder <= deferred) {
    refuse("reminderNotificationDate", "dateOrder", `must be after deferredInitialNotificationDate (${deferred})`, {
      fields: [`${path}deferredInitialNotificationDate`],
    });
  }

  // Customer: the document matters only in cuil mode; contacts are required by their channels.
  const conciliationType = body.conciliationType ?? "cvu";
  const { name, email, phoneNumber } = body.customer;
  const taxDocument = body.customer.taxDocument ?? undefined;
  if (conciliationType === "cuil") {
    if (taxDocument === undefined) refuse("customer.taxDocument", "required", "is required when conciliationType is cuil");
    else if (!bulk && classifyDocument(taxDocument) === undefined) {
      refuse("customer.taxDocument", "taxDocument", "must be an 11-digit CUIL or CUIT with a valid check digit, or a 7- or 8-digit DNI");
    }
  }
  if (sendEmailNotification && email == null) refuse("customer.email", "required", "is required when sendEmailNotification is true");
  if (sendWhatsappNotification && phoneNumber == null) {
    refuse("customer.phoneNumber", "required", "is required when sendWhatsappNotification is true");
  }

  const metadata = body.metadata ?? undefined;
  if (metadata !== undefined) checkMetadata(metadata, refuse);

  // Checkout: paid from the widget within minutes, so it needs an amount; only it takes expiresInMinutes.
  const expiresInMinutesInput = body.expiresInMinutes ?? undefined;
  let expiresInMinutes: number | undefined;
  if (type === "checkout") {
    expiresInMinutes = expiresInMinutesInput ?? CHECKOUT_MINUTES.default;
    if (!Number.isInteger(expiresInMinutes) || expiresInMinutes < CHECKOUT_MINUTES.min || expiresInMinutes > CHECKOUT_MINUTES.max) {
      refuse("expiresInMinutes", "outOfRange", `must be a whole number of minutes from ${CHECKOUT_MINUTES.min} to ${CHECKOUT_MINUTES.max}`);
    }
    if (!hasAmount) refuse("amount", "required", "is required for a checkout charge");
  } else if (expiresInMinutesInput !== undefined) {
    refuse("expiresInMinutes", "notAccepted", "is only allowed with type checkout");
  }

  if (problems.length > 0) return { problems };
  const kind: ChargeKind = type === "checkout" ? "checkout" : !hasAmount ? "draft" : shortLived ? "short-lived" : "standard";
  const spec: ChargeSpec = {
    kind,
    type,
    referenceId: body.referenceId,
    description: body.description,
    ...optional("amountCents", amountCents),
    dueDates: dueDates as DueDate[],
    ...optional("surcharge", surcharge),
    sendWhatsappNotification,
    sendEmailNotification,
    ...optional("sendWhatsappPaymentConfirmation", body.sendWhatsappPaymentConfirmation ?? undefined),
    ...optional("reminderNotificationDate", reminder),
    ...optional("deferredInitialNotificationDate", deferred),
    conciliationType,
    customer: {
      name,
      ...optional("taxDocument", conciliationType === "cuil" ? taxDocument : undefined),
      ...optional("email", email ?? undefined),
      ...optional("phoneNumber", phoneNumber ? { countryCode: phoneNumber.countryCode, number: phoneNumber.number } : undefined),
    },
    ...optional("webhookUrl", body.webhookUrl ?? undefined),
    ...optional("metadata", metadata),
    ...optional("expiresInMinutes", expiresInMinutes),
    ...optional("expiresAt", expiresInMinutes === undefined ? undefined : new Date(now.getTime() + expiresInMinutes * 60_000)),
  };
  return { spec, problems };
}

type Refuse = (field: string, rule: ValidationRule, complaint: string, bound?: Pick<FieldProblem, "limit" | "format" | "fields">) => void;

/** The amount in cents, or undefined (absent, or refused). */
function checkAmount(amount: number | undefined, refuse: Refuse): number | undefined {
  if (amount === undefined) return undefined;
  const cents = centsOf(amount);
  if (cents === undefined) refuse("amount", "decimals", AT_MOST_TWO_DECIMALS, { limit: 2 });
  else if (cents <= 0 || cents > MAX_AMOUNT_CENTS) refuse("amount", "outOfRange", "must be greater than 0 and at most 200,000,000");
  else return cents;
  return undefined;
}

function checkDueDate(
  text: string,
  field: string,
  { now, today, lastDay, bulk }: { now: Date; today: string; lastDay: string; bulk: boolean },
  refuse: Refuse,
): DueDate | undefined {
  const dueDate = parseDueDate(text);
  if (dueDate === undefined) {
    refuse(field, "format", "must be a real date: YYYY-MM-DD, or YYYY-MM-DDTHH:MM[:SS] with an optional Z or ±HH:MM offset (without one, -03:00)");
    return undefined;
  }
  if (bulk && dueDate.kind === "datetime") {
    refuse(field, "format", "must be a date without a time (YYYY-MM-DD): a bulk charge cannot be short-lived");
  }
  // A date must be a later calendar day; a date with a time, a later instant (it may be today).
  if (dueDate.kind === "date" && dueDate.argentinaDate <= today) refuse(field, "outOfRange", `must be after today (${today}, Argentina time)`);
  else if (dueDate.kind === "datetime" && dueDate.dueAt.getTime() <= now.getTime()) {
    refuse(field, "outOfRange", `must be in the future (now is ${argentinaDateTime(now)}, Argentina time)`);
  } else if (dueDate.argentinaDate > lastDay) {
    refuse(field, "outOfRange", `must be at most ${MAX_DAYS_AHEAD} days ahead (on or before ${lastDay}, Argentina time)`, { limit: MAX_DAYS_AHEAD });
  }
  return dueDate;
}

/** The surcharge normalised, or undefined when its value is refused. */
function checkSurcharge({ type, value }: SurchargeInput, refuse: Refuse): SurchargeSpec | undefined {
  switch (type) {
    case "percentage":
      if (Number.isFinite(value) && value >= 0 && value <= 100) return { type, percent: value };
      refuse("surcharge.value", "outOfRange", "must be from 0 to 100 for a percentage surcharge");
      return undefined;
    case "fixed": {
      const cents = centsOf(value);
      if (cents === undefined) refuse("surcharge.value", "decimals", AT_MOST_TWO_DECIMALS, { limit: 2 });
      else if (cents < 0 || cents > MAX_AMOUNT_CENTS) refuse("surcharge.value", "outOfRange", "must be from 0 to 200,000,000 for a fixed surcharge");
      else return { type, cents };
      return undefined;
    }
    case "none":
      if (value === 0) return { type };
      refuse("surcharge.value", "invalid", "must be 0 for a surcharge of type none");
      return undefined;
  }
}

function checkFlag(field: string, flag: boolean | null | undefined, hasAmount: boolean, refuse: Refuse): boolean {
  if (hasAmount && flag == null) refuse(field, "required", "is required with an amount (true or false)");
  if (!hasAmount && flag === true) refuse(field, "invalid", "can only be false without an amount (a draft sends no notifications)");
  return flag === true;
}

/** The date, or undefined (absent, or refused). */
function checkNotificationDate(
  field: string,
  date: string | null | undefined,
  { hasAmount, today, first }: { hasAmount: boolean; today: string; first: DueDate | undefined },
  refuse: Refuse,
): string | undefined {
  if (date == null) return undefined;
  if (!hasAmount) {
    refuse(field, "notAccepted", "is only allowed with an amount (a draft sends no notifications)");
    return undefined;
  }
  if (!isCalendarDate(date)) {
    refuse(field, "format", "must be a real calendar date (YYYY-MM-DD)");
    return undefined;
  }
  let ok = true;
  if (date <= today) {
    refuse(field, "outOfRange", `must be after today (${today}, Argentina time)`);
    ok = false;
  }
  if (first !== undefined && date >= first.argentinaDate) {
    refuse(field, "dateOrder", `must be before the first due date (${first.argentinaDate}, Argentina time)`);
    ok = false;
  }
  return ok ? date : undefined;
}

function checkMetadata(metadata: Record<string, string>, refuse: Refuse): void {
  let totalBytes = 0;
  for (const [key, value] of Object.entries(metadata)) {
    // Characters as JSON Schema counts them (code points), bytes as UTF-8.
    if ([...key].length > METADATA_LIMITS.keyCharacters) {
      refuse(`metadata.${key}`, "maxLength", `has a key longer than ${METADATA_LIMITS.keyCharacters} characters`, { limit: METADATA_LIMITS.keyCharacters });
    }
    totalBytes += Buffer.byteLength(key, "utf8") + Buffer.byteLength(value, "utf8");
  }
  if (totalBytes > METADATA_LIMITS.totalBytes) {
    refuse("metadata", "invalid", `must be at most 8 KB in total (${METADATA_LIMITS.totalBytes} bytes of keys and values in UTF-8; it has ${totalBytes})`);
  }
}

/** `{[key]: value}` when the value is defined, `{}` otherwise: optional fields stay absent, not undefined. */
function optional<Key extends string, Value>(key: Key, value: Value | undefined): { [K in Key]?: Value } {
  return (value === undefined ? {} : { [key]: value }) as { [K in Key]?: Value };
}
