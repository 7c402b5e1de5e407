// The create rules of a charge that JSON Schema cannot express, one test per rule, at its boundaries.
import { describe, expect, it } from "vitest";
import { amountOwedCents, calculatedAmounts } from "../../domain/amount-owed.ts";
import { amountTermsOf, validateCreateRequest, type ChargeSpec, type PaymentRequestCreate } from "../../domain/charges/charge-rules.ts";
import { ValidationError, type FieldProblem } from "../../domain/errors.ts";

// 12:00 in Argentina on 2026-11-22: today is 2026-11-22 and the last allowed due date 2026-12-27.
const NOW = new Date("2026-11-22T15:00:00Z");

/** A valid one-date charge with an amount; each test changes what it is about. */
function charge(changes: Partial<PaymentRequestCreate> = {}): PaymentRequestCreate {
  return {
    referenceId: "INV-2026-000123",
    description: "Cuota de diciembre",
    dueDates: ["2026-12-10"],
    customer: { name: "Juan Pérez" },
    amount: 1500.5,
    sendWhatsappNotification: false,
    sendEmailNotification: false,
    ...changes,
  };
}

/** A valid draft (no amount). */
function draft(changes: Partial<PaymentRequestCreate> = {}): PaymentRequestCreate {
  const { amount: _amount, sendWhatsappNotification: _w, sendEmailNotification: _e, ...rest } = charge();
  return { ...rest, ...changes };
}

const twoDates = (changes: Partial<PaymentRequestCreate> = {}) =>
  charge({ dueDates: ["2026-12-10", "2026-12-20"], surcharge: { type: "percentage", value: 10 }, ...changes });

function problems(body: PaymentRequestCreate, now = NOW): FieldProblem[] {
  try {
    validateCreateRequest(body, now);
  } catch (error) {
    if (error instanceof ValidationError) return error.details.problems;
    throw error;
  }
  throw new Error("expected a ValidationError, the body was accepted");
}

const fields = (body: PaymentRequestCreate, now = NOW) => problems(body, now).map((problem) => problem.field);
const accepts = (body: PaymentRequestCreate, now = NOW): ChargeSpec => validateCreateRequest(body, now);

describe("dueDates: a date without a time must be after today, Argentina time", () => {
  it("refuses today and accepts tomorrow", () => {
    expect(problems(charge({ dueDates: ["2026-11-22"] }))).toEqual([
      { field: "dueDates[0]", rule: "outOfRange", message: "dueDates[0] must be after today (2026-11-22, Argentina time)" },
    ]);
    expect(accepts(charge({ dueDates: ["2026-11-23"] })).dueDates[0]?.argentinaDate).toBe("2026-11-23");
    expect(fields(charge({ dueDates: ["2026-11-21"] }))).toEqual(["dueDates[0]"]);
  });

  it("at 23:59 -03:00 tomorrow is still allowed; at 00:00 -03:00 it has become today", () => {
    const lastMinuteOfThe22nd = new Date("2026-11-23T02:59:59Z"); // 23:59:59 -03:00 on the 22nd
    const midnightOfThe23rd = new Date("2026-11-23T03:00:00Z"); // 00:00 -03:00 on the 23rd
    expect(accepts(charge({ dueDates: ["2026-11-23"] }), lastMinuteOfThe22nd).kind).toBe("standard");
    expect(problems(charge({ dueDates: ["2026-11-23"] }), midnightOfThe23rd)).toEqual([
      { field: "dueDates[0]", rule: "outOfRange", message: "dueDates[0] must be after today (2026-11-23, Argentina time)" },
    ]);
  });

  it("uses Argentina's date, not UTC's, between 00:00 and 03:00 UTC", () => {
    const utcMidnight = new Date("2026-11-23T00:30:00Z"); // UTC says the 23rd; Argentina says 21:30 on the 22nd
    expect(accepts(charge({ dueDates: ["2026-11-23"] }), utcMidnight).kind).toBe("standard");
  });

  it("allows exactly 35 days ahead and refuses 36", () => {
    expect(accepts(charge({ dueDates: ["2026-12-27"] })).dueDates[0]?.input).toBe("2026-12-27");
    expect(problems(charge({ dueDates: ["2026-12-28"] }))).toEqual([
      { field: "dueDates[0]", rule: "outOfRange", limit: 35, message: "dueDates[0] must be at most 35 days ahead (on or before 2026-12-27, Argentina time)" },
    ]);
  });

  it("counts the 35 days from Argentina's today around midnight", () => {
    expect(fields(charge({ dueDates: ["2026-12-28"] }), new Date("2026-11-23T02:59:59Z"))).toEqual(["dueDates[0]"]);
    expect(accepts(charge({ dueDates: ["2026-12-28"] }), new Date("2026-11-23T03:00:00Z")).kind).toBe("standard");
  });

  it("refuses impossible and malformed dates", () => {
    for (const dueDate of ["2026-02-30", "2026-11-31", "2026-12-10T25:00", "2026-12-10T10:61"]) {
      expect(problems(charge({ dueDates: [dueDate] })), dueDate).toEqual([
        {
          field: "dueDates[0]",
          rule: "format",
          message: "dueDates[0] must be a real date: YYYY-MM-DD, or YYYY-MM-DDTHH:MM[:SS] with an optional Z or ±HH:MM offset (without one, -03:00)",
        },
      ]);
    }
  });

  it("reports each bad date under its own index", () => {
    expect(fields(twoDates({ dueDates: ["2026-11-22", "2027-01-30"] }))).toEqual(["dueDates[0]", "dueDates[1]"]);
  });
});

describe("dueDates: a date with a time must be in the future (short-lived charge)", () => {
  it("without a zone is Argentina time: one minute after now is accepted, now is refused", () => {
    // NOW is 12:00 -03:00.
    const spec = accepts(charge({ dueDates: ["2026-11-22T12:01"] }));
    expect(spec.kind).toBe("short-lived");
    expect(spec.dueDates[0]?.dueAt).toEqual(new Date("2026-11-22T15:01:00Z"));
    expect(problems(charge({ dueDates: ["2026-11-22T12:00"] }))).toEqual([
      { field: "dueDates[0]", rule: "outOfRange", message: "dueDates[0] must be in the future (now is 2026-11-22T12:00:00-03:00, Argentina time)" },
    ]);
    expect(fields(charge({ dueDates: ["2026-11-22T11:59:59"] }))).toEqual(["dueDates[0]"]);
    expect(accepts(charge({ dueDates: ["2026-11-22T12:00:01"] })).kind).toBe("short-lived");
  });

  it("honours Z and offsets", () => {
    expect(fields(charge({ dueDates: ["2026-11-22T14:59Z"] }))).toEqual(["dueDates[0]"]); // 11:59 -03:00
    expect(accepts(charge({ dueDates: ["2026-11-22T15:01Z"] })).kind).toBe("short-lived");
    expect(accepts(charge({ dueDates: ["2026-11-22T12:01-03:00"] })).kind).toBe("short-lived");
    expect(fields(charge({ dueDates: ["2026-11-22T17:30+05:30"] }))).toEqual(["dueDates[0]"]); // 09:00 -03:00
  });

  it("is at most 35 days ahead by its Argentina date", () => {
    expect(accepts(charge({ dueDates: ["2026-12-27T23:59"] })).kind).toBe("short-lived");
    expect(accepts(charge({ dueDates: ["2026-12-28T02:59Z"] })).kind).toBe("short-lived"); // 23:59 on the 27th
    expect(fields(charge({ dueDates: ["2026-12-28T03:00Z"] }))).toEqual(["dueDates[0]"]); // 00:00 on the 28th
    expect(fields(charge({ dueDates: ["2026-12-28T00:00"] }))).toEqual(["dueDates[0]"]);
  });

  it("allows exactly one due date", () => {
    expect(problems(charge({ dueDates: ["2026-12-10T10:00", "2026-12-20"], surcharge: { type: "none", value: 0 } }))).toEqual([
      { field: "dueDates", rule: "maxItems", limit: 1, message: "dueDates must have exactly one date when a date has a time (short-lived charge)" },
    ]);
    expect(fields(twoDates({ dueDates: ["2026-12-10", "2026-12-20T10:00"] }))).toContain("dueDates");
  });

  it("allows no surcharge (a none surcharge is harmless)", () => {
    expect(problems(charge({ dueDates: ["2026-12-10T10:00"], surcharge: { type: "fixed", value: 10 } }))).toEqual([
      { field: "surcharge", rule: "notAccepted", message: "surcharge is not allowed with a due date that has a time (short-lived charge)" },
    ]);
    expect(accepts(charge({ dueDates: ["2026-12-10T10:00"], surcharge: { type: "none", value: 0 } })).surcharge).toBeUndefined();
  });
});

describe("dueDates: the second after the first", () => {
  it("refuses the same day or an earlier one", () => {
    expect(problems(twoDates({ dueDates: ["2026-12-10", "2026-12-10"] }))).toEqual([
      { field: "dueDates[1]", rule: "dateOrder", fields: ["dueDates[0]"], message: "dueDates[1] must be after dueDates[0]" },
    ]);
    expect(fields(twoDates({ dueDates: ["2026-12-10", "2026-12-09"] }))).toEqual(["dueDates[1]"]);
    expect(accepts(twoDates({ dueDates: ["2026-12-10", "2026-12-11"] })).dueDates).toHaveLength(2);
  });
});

describe("amount", () => {
  it("accepts up to 2 decimals, in cents", () => {
    expect(accepts(charge({ amount: 19.99 })).amountCents).toBe(1999);
    expect(accepts(charge({ amount: 0.07 })).amountCents).toBe(7);
    expect(accepts(charge({ amount: 1234567.89 })).amountCents).toBe(123456789);
    expect(accepts(charge({ amount: 0.01 })).amountCents).toBe(1);
    expect(accepts(charge({ amount: 200_000_000 })).amountCents).toBe(20_000_000_000);
  });

  it("refuses 3 decimals", () => {
    expect(problems(charge({ amount: 10.001 }))).toEqual([{ field: "amount", rule: "decimals", limit: 2, message: "amount must have at most 2 decimals" }]);
    expect(fields(charge({ amount: 19.999 }))).toEqual(["amount"]);
  });

  it("refuses 0, negatives and more than 200,000,000 (also checked here, not only by the schema)", () => {
    for (const amount of [0, -5, 200_000_000.01, 300_000_000]) {
      expect(problems(charge({ amount })), String(amount)).toEqual([
        { field: "amount", rule: "outOfRange", message: "amount must be greater than 0 and at most 200,000,000" },
      ]);
    }
  });

  it("is one problem, not a cascade of draft rules, when invalid", () => {
    expect(fields(twoDates({ amount: 10.001, sendEmailNotification: true, customer: { name: "Ana", email: "a@b.ar" } }))).toEqual(["amount"]);
  });
});

describe("draft (no amount)", () => {
  it("is accepted with one date, flags false, and nothing else", () => {
    const spec = accepts(draft());
    expect(spec.kind).toBe("draft");
    expect(spec.amountCents).toBeUndefined();
    expect(spec.sendWhatsappNotification).toBe(false);
    expect(spec.sendEmailNotification).toBe(false);
    expect(accepts(draft({ sendWhatsappNotification: false, sendEmailNotification: false })).kind).toBe("draft");
    expect(accepts(draft({ amount: null, sendWhatsappNotification: null, sendEmailNotification: null })).kind).toBe("draft");
  });

  it("allows one due date only", () => {
    expect(problems(draft({ dueDates: ["2026-12-10", "2026-12-20"] }))).toEqual([
      { field: "dueDates", rule: "maxItems", limit: 1, message: "dueDates must have one date for a draft (a charge without amount)" },
    ]);
  });

  it("allows no surcharge, not even a none one", () => {
    for (const surcharge of [
      { type: "percentage", value: 5 },
      { type: "none", value: 0 },
    ] as const) {
      expect(problems(draft({ surcharge })), surcharge.type).toEqual([
        { field: "surcharge", rule: "notAccepted", message: "surcharge is not allowed without an amount (a draft has no surcharge)" },
      ]);
    }
  });

  it("allows notification flags only false", () => {
    expect(
      problems(
        draft({
          sendWhatsappNotification: true,
          sendEmailNotification: true,
          customer: { name: "Ana", email: "a@b.ar", phoneNumber: { countryCode: "+54", number: "1155550000" } },
        }),
      ),
    ).toEqual([
      {
        field: "sendWhatsappNotification",
        rule: "invalid",
        message: "sendWhatsappNotification can only be false without an amount (a draft sends no notifications)",
      },
      {
        field: "sendEmailNotification",
        rule: "invalid",
        message: "sendEmailNotification can only be false without an amount (a draft sends no notifications)",
      },
    ]);
  });

  it("allows no notification dates", () => {
    expect(problems(draft({ reminderNotificationDate: "2026-12-01", deferredInitialNotificationDate: "2026-11-25" }))).toEqual([
      {
        field: "deferredInitialNotificationDate",
        rule: "notAccepted",
        message: "deferredInitialNotificationDate is only allowed with an amount (a draft sends no notifications)",
      },
      {
        field: "reminderNotificationDate",
        rule: "notAccepted",
        message: "reminderNotificationDate is only allowed with an amount (a draft sends no notifications)",
      },
    ]);
  });
});

describe("notification flags with an amount", () => {
  it("are required, and null does not count", () => {
    const { sendWhatsappNotification: _w, sendEmailNotification: _e, ...withoutFlags } = charge();
    expect(problems(withoutFlags)).toEqual([
      { field: "sendWhatsappNotification", rule: "required", message: "sendWhatsappNotification is required with an amount (true or false)" },
      { field: "sendEmailNotification", rule: "required", message: "sendEmailNotification is required with an amount (true or false)" },
    ]);
    expect(fields(charge({ sendWhatsappNotification: null }))).toEqual(["sendWhatsappNotification"]);
    expect(fields(charge({ sendEmailNotification: null }))).toEqual(["sendEmailNotification"]);
  });

  it("require the matching contact when true", () => {
    expect(problems(charge({ sendEmailNotification: true }))).toEqual([
      { field: "customer.email", rule: "required", message: "customer.email is required when sendEmailNotification is true" },
    ]);
    expect(problems(charge({ sendWhatsappNotification: true, customer: { name: "Ana", phoneNumber: null } }))).toEqual([
      { field: "customer.phoneNumber", rule: "required", message: "customer.phoneNumber is required when sendWhatsappNotification is true" },
    ]);
    const spec = accepts(
      charge({
        sendEmailNotification: true,
        sendWhatsappNotification: true,
        customer: { name: "Ana", email: "ana@example.com", phoneNumber: { countryCode: "+54", number: "1155550000" } },
      }),
    );
    expect(spec.sendEmailNotification).toBe(true);
    expect(spec.sendWhatsappNotification).toBe(true);
    expect(spec.customer).toEqual({ name: "Ana", email: "ana@example.com", phoneNumber: { countryCode: "+54", number: "1155550000" } });
  });

  it("accept null contacts when the flags are false (what existing clients send)", () => {
    const spec = accepts(charge({ customer: { name: "Ana", email: null, phoneNumber: null, taxDocument: null } }));
    expect(spec.customer).toEqual({ name: "Ana" });
    expect(Object.keys(spec.customer)).toEqual(["name"]);
  });
});

describe("surcharge", () => {
  it("is required with an amount and two due dates", () => {
    expect(problems(twoDates({ surcharge: undefined }))).toEqual([
      { field: "surcharge", rule: "required", message: "surcharge is required with an amount and two due dates" },
    ]);
    expect(fields(twoDates({ surcharge: null }))).toEqual(["surcharge"]);
  });

  it("percentage: 0 to 100", () => {
    expect(accepts(twoDates({ surcharge: { type: "percentage", value: 0 } })).surcharge).toEqual({ type: "percentage", percent: 0 });
    expect(accepts(twoDates({ surcharge: { type: "percentage", value: 100 } })).surcharge).toEqual({ type: "percentage", percent: 100 });
    expect(accepts(twoDates({ surcharge: { type: "percentage", value: 12.5 } })).surcharge).toEqual({ type: "percentage", percent: 12.5 });
    expect(problems(twoDates({ surcharge: { type: "percentage", value: 100.01 } }))).toEqual([
      { field: "surcharge.value", rule: "outOfRange", message: "surcharge.value must be from 0 to 100 for a percentage surcharge" },
    ]);
    expect(fields(twoDates({ surcharge: { type: "percentage", value: -1 } }))).toEqual(["surcharge.value"]);
  });

  it("fixed: pesos up to 200,000,000 with at most 2 decimals, in cents", () => {
    expect(accepts(twoDates({ surcharge: { type: "fixed", value: 99.99 } })).surcharge).toEqual({ type: "fixed", cents: 9999 });
    expect(accepts(twoDates({ surcharge: { type: "fixed", value: 200_000_000 } })).surcharge).toEqual({ type: "fixed", cents: 20_000_000_000 });
    expect(accepts(twoDates({ surcharge: { type: "fixed", value: 0 } })).surcharge).toEqual({ type: "fixed", cents: 0 });
    expect(problems(twoDates({ surcharge: { type: "fixed", value: 10.001 } }))).toEqual([
      { field: "surcharge.value", rule: "decimals", limit: 2, message: "surcharge.value must have at most 2 decimals" },
    ]);
    expect(problems(twoDates({ surcharge: { type: "fixed", value: 200_000_000.01 } }))).toEqual([
      { field: "surcharge.value", rule: "outOfRange", message: "surcharge.value must be from 0 to 200,000,000 for a fixed surcharge" },
    ]);
  });

  it("none: value 0", () => {
    expect(accepts(twoDates({ surcharge: { type: "none", value: 0 } })).surcharge).toEqual({ type: "none" });
    expect(problems(twoDates({ surcharge: { type: "none", value: 5 } }))).toEqual([
      { field: "surcharge.value", rule: "invalid", message: "surcharge.value must be 0 for a surcharge of type none" },
    ]);
  });

  it("with one due date: none/0 is accepted and treated as no surcharge; any other is refused", () => {
    const spec = accepts(charge({ surcharge: { type: "none", value: 0 } }));
    expect(spec.surcharge).toBeUndefined();
    expect("surcharge" in spec).toBe(false);
    expect(problems(charge({ surcharge: { type: "percentage", value: 10 } }))).toEqual([
      { field: "surcharge", rule: "notAccepted", message: "surcharge is only allowed with two due dates (it applies from the second)" },
    ]);
    expect(fields(charge({ surcharge: { type: "fixed", value: 0 } }))).toEqual(["surcharge"]);
    expect(fields(charge({ surcharge: { type: "none", value: 1 } }))).toEqual(["surcharge.value"]);
  });

  it("null means absent", () => {
    expect(accepts(charge({ surcharge: null })).surcharge).toBeUndefined();
  });
});

describe("notification dates", () => {
  const withDates = (deferredInitialNotificationDate?: string, reminderNotificationDate?: string) =>
    charge({ deferredInitialNotificationDate, reminderNotificationDate });

  it("are accepted after today, before the first due date, reminder after deferred", () => {
    const spec = accepts(withDates("2026-11-23", "2026-12-09"));
    expect(spec.deferredInitialNotificationDate).toBe("2026-11-23");
    expect(spec.reminderNotificationDate).toBe("2026-12-09");
  });

  it("must be after today", () => {
    expect(problems(withDates("2026-11-22"))).toEqual([
      {
        field: "deferredInitialNotificationDate",
        rule: "outOfRange",
        message: "deferredInitialNotificationDate must be after today (2026-11-22, Argentina time)",
      },
    ]);
    expect(fields(withDates(undefined, "2026-11-22"))).toEqual(["reminderNotificationDate"]);
  });

  it("must be before the first due date", () => {
    expect(problems(withDates(undefined, "2026-12-10"))).toEqual([
      {
        field: "reminderNotificationDate",
        rule: "dateOrder",
        message: "reminderNotificationDate must be before the first due date (2026-12-10, Argentina time)",
      },
    ]);
    expect(fields(withDates("2026-12-10"))).toEqual(["deferredInitialNotificationDate"]);
    expect(fields(twoDates({ reminderNotificationDate: "2026-12-15" }))).toEqual(["reminderNotificationDate"]);
  });

  it("compare with the Argentina date of a first due date that has a time", () => {
    expect(accepts(charge({ dueDates: ["2026-12-10T09:00"], reminderNotificationDate: "2026-12-09" })).kind).toBe("short-lived");
    expect(fields(charge({ dueDates: ["2026-12-10T09:00"], reminderNotificationDate: "2026-12-10" }))).toEqual(["reminderNotificationDate"]);
  });

  it("the reminder must be after the deferred initial notification", () => {
    expect(problems(withDates("2026-12-01", "2026-12-01"))).toEqual([
      {
        field: "reminderNotificationDate",
        rule: "dateOrder",
        fields: ["deferredInitialNotificationDate"],
        message: "reminderNotificationDate must be after deferredInitialNotificationDate (2026-12-01)",
      },
    ]);
    expect(fields(withDates("2026-12-02", "2026-12-01"))).toEqual(["reminderNotificationDate"]);
    expect(accepts(withDates("2026-12-01", "2026-12-02")).reminderNotificationDate).toBe("2026-12-02");
  });

  it("must be real calendar dates", () => {
    expect(problems(withDates("2026-11-31"))).toEqual([
      { field: "deferredInitialNotificationDate", rule: "format", message: "deferredInitialNotificationDate must be a real calendar date (YYYY-MM-DD)" },
    ]);
    expect(fields(withDates(undefined, "2026-02-29"))).toEqual(["reminderNotificationDate"]);
  });

  it("null means absent", () => {
    const spec = accepts(charge({ reminderNotificationDate: null, deferredInitialNotificationDate: null }));
    expect("reminderNotificationDate" in spec || "deferredInitialNotificationDate" in spec).toBe(false);
  });
});

describe("conciliation type and customer.taxDocument", () => {
  it("defaults to cvu, where the taxDocument is ignored (not validated, not kept)", () => {
    const spec = accepts(charge({ customer: { name: "Ana", taxDocument: "20123456787" } })); // wrong check digit
    expect(spec.conciliationType).toBe("cvu");
    expect(spec.customer.taxDocument).toBeUndefined();
    expect(accepts(charge({ conciliationType: null })).conciliationType).toBe("cvu");
    expect(accepts(charge({ conciliationType: "cvu", customer: { name: "Ana", taxDocument: "20123456786" } })).customer).toEqual({ name: "Ana" });
  });

  it("cuil mode requires the taxDocument", () => {
    expect(problems(charge({ conciliationType: "cuil" }))).toEqual([
      { field: "customer.taxDocument", rule: "required", message: "customer.taxDocument is required when conciliationType is cuil" },
    ]);
    expect(fields(charge({ conciliationType: "cuil", customer: { name: "Ana", taxDocument: null } }))).toEqual(["customer.taxDocument"]);
  });

  it("cuil mode validates an 11-digit document's check digit", () => {
    expect(problems(charge({ conciliationType: "cuil", customer: { name: "Ana", taxDocument: "20123456787" } }))).toEqual([
      {
        field: "customer.taxDocument",
        rule: "taxDocument",
        message: "customer.taxDocument must be an 11-digit CUIL or CUIT with a valid check digit, or a 7- or 8-digit DNI",
      },
    ]);
    expect(fields(charge({ conciliationType: "cuil", customer: { name: "Ana", taxDocument: "10123456780" } }))).toEqual(["customer.taxDocument"]);
  });

  it("cuil mode accepts a valid CUIL or CUIT and a 7- or 8-digit DNI, and keeps it", () => {
    for (const taxDocument of ["20123456786", "33693450239", "12345678", "1234567"]) {
      const spec = accepts(charge({ conciliationType: "cuil", customer: { name: "Ana", taxDocument } }));
      expect(spec.conciliationType).toBe("cuil");
      expect(spec.customer.taxDocument).toBe(taxDocument);
    }
  });
});

describe("metadata", () => {
  it("accepts keys up to 40 characters and refuses 41, counting characters not bytes", () => {
    expect(accepts(charge({ metadata: { ["k".repeat(40)]: "v" } })).metadata).toEqual({ ["k".repeat(40)]: "v" });
    expect(accepts(charge({ metadata: { ["ñ".repeat(40)]: "v" } })).metadata).toBeDefined();
    expect(accepts(charge({ metadata: { ["😀".repeat(40)]: "v" } })).metadata).toBeDefined();
    const longKey = "k".repeat(41);
    expect(problems(charge({ metadata: { ok: "1", [longKey]: "v" } }))).toEqual([
      { field: `metadata.${longKey}`, rule: "maxLength", limit: 40, message: `metadata.${longKey} has a key longer than 40 characters` },
    ]);
  });

  it("accepts 8 KB (8192 UTF-8 bytes of keys and values) and refuses one byte more", () => {
    const entries: Record<string, string> = {};
    let bytes = 0;
    for (let i = 0; bytes + 500 + 3 <= 8192; i++) {
      const key = `k${String(i).padStart(2, "0")}`; // 3 bytes
      entries[key] = "x".repeat(500);
      bytes += 503;
    }
    entries.end = "x".repeat(8192 - bytes - 3);
    expect(accepts(charge({ metadata: entries })).metadata).toEqual(entries);
    const oneMore = { ...entries, end: `${entries.end}x` };
    expect(problems(charge({ metadata: oneMore }))).toEqual([
      { field: "metadata", rule: "invalid", message: "metadata must be at most 8 KB in total (8192 bytes of keys and values in UTF-8; it has 8193)" },
    ]);
  });

  it("counts multi-byte characters as their UTF-8 bytes", () => {
    // 17 values of 240 "ñ" (480 bytes each) + 2-byte keys = 17 × 482 = 8194 bytes, though only 4114 characters.
    const metadata = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${String.fromCharCode(97 + i)}`, "ñ".repeat(240)]));
    expect(fields(charge({ metadata }))).toEqual(["metadata"]);
  });

  it("null means absent", () => {
    expect("metadata" in accepts(charge({ metadata: null }))).toBe(false);
  });
});

describe("type and expiresInMinutes", () => {
  it("type defaults to standard", () => {
    expect(accepts(charge()).type).toBe("standard");
    expect(accepts(charge({ type: null })).type).toBe("standard");
  });

  it("checkout defaults to 30 minutes and expires then", () => {
    const spec = accepts(charge({ type: "checkout" }));
    expect(spec.kind).toBe("checkout");
    expect(spec.expiresInMinutes).toBe(30);
    expect(spec.expiresAt).toEqual(new Date("2026-11-22T15:30:00Z"));
  });

  it("checkout accepts 3 to 60 minutes and refuses 2 and 61 (also checked here)", () => {
    expect(accepts(charge({ type: "checkout", expiresInMinutes: 3 })).expiresAt).toEqual(new Date("2026-11-22T15:03:00Z"));
    expect(accepts(charge({ type: "checkout", expiresInMinutes: 60 })).expiresInMinutes).toBe(60);
    for (const expiresInMinutes of [2, 61, 10.5]) {
      expect(problems(charge({ type: "checkout", expiresInMinutes })), String(expiresInMinutes)).toEqual([
        { field: "expiresInMinutes", rule: "outOfRange", message: "expiresInMinutes must be a whole number of minutes from 3 to 60" },
      ]);
    }
  });

  it("expiresInMinutes is only for checkout", () => {
    expect(problems(charge({ expiresInMinutes: 30 }))).toEqual([
      { field: "expiresInMinutes", rule: "notAccepted", message: "expiresInMinutes is only allowed with type checkout" },
    ]);
    expect(fields(charge({ type: "standard", expiresInMinutes: 30 }))).toEqual(["expiresInMinutes"]);
    const spec = accepts(charge({ expiresInMinutes: null }));
    expect(spec.expiresInMinutes).toBeUndefined();
    expect(spec.expiresAt).toBeUndefined();
  });

  it("a checkout charge needs an amount", () => {
    expect(problems(draft({ type: "checkout" }))).toEqual([{ field: "amount", rule: "required", message: "amount is required for a checkout charge" }]);
  });
});

describe("webhookUrl", () => {
  it("is passed through unchecked (the SSRF guard judges it elsewhere)", () => {
    expect(accepts(charge({ webhookUrl: "https://10.0.0.1/hook" })).webhookUrl).toBe("https://10.0.0.1/hook");
    expect("webhookUrl" in accepts(charge({ webhookUrl: null }))).toBe(false);
  });
});

describe("the whole request", () => {
  it("reports every problem at once, in a stable order, each message naming its field", () => {
    const found = problems({
      referenceId: "INV-2026-000123",
      description: "Cuota",
      dueDates: ["2026-11-22", "2026-11-20"],
      customer: { name: "Ana" },
      amount: 10.001,
      sendEmailNotification: true,
      reminderNotificationDate: "2026-11-21",
      conciliationType: "cuil",
      metadata: { ["k".repeat(41)]: "v" },
      expiresInMinutes: 10,
    });
    expect(found.map((problem) => problem.field)).toEqual([
      "amount",
      "dueDates[0]",
      "dueDates[1]",
      "dueDates[1]",
      "surcharge",
      "sendWhatsappNotification",
      "reminderNotificationDate",
      "customer.taxDocument",
      "customer.email",
      `metadata.${"k".repeat(41)}`,
      "expiresInMinutes",
    ]);
    for (const problem of found) expect(problem.message.startsWith(problem.field)).toBe(true);
  });

  it("throws a ValidationError whose message is the first problem's", () => {
    try {
      validateCreateRequest(charge({ dueDates: ["2026-11-22"] }), NOW);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).code).toBe("ValidationError");
      expect((error as ValidationError).message).toBe("dueDates[0] must be after today (2026-11-22, Argentina time)");
    }
  });

  it("treats every null optional field as absent", () => {
    const withNulls = draft({
      amount: null,
      surcharge: null,
      sendWhatsappNotification: null,
      sendEmailNotification: null,
      sendWhatsappPaymentConfirmation: null,
      reminderNotificationDate: null,
      deferredInitialNotificationDate: null,
      conciliationType: null,
      webhookUrl: null,
      metadata: null,
      type: null,
      expiresInMinutes: null,
      customer: { name: "Juan Pérez", taxDocument: null, email: null, phoneNumber: null },
    });
    expect(accepts(withNulls)).toStrictEqual(accepts(draft()));
  });

  it("normalises a full two-date charge", () => {
    const spec = accepts(
      twoDates({
        amount: 1500.5,
        surcharge: { type: "percentage", value: 10 },
        sendWhatsappNotification: true,
        sendEmailNotification: false,
        sendWhatsappPaymentConfirmation: true,
        deferredInitialNotificationDate: "2026-11-25",
        reminderNotificationDate: "2026-12-08",
        conciliationType: "cuil",
        webhookUrl: "https://merchant.example/hooks",
        metadata: { order: "A-1" },
        customer: { name: "Ana", taxDocument: "27123456780", phoneNumber: { countryCode: "+54", number: "1155550000" } },
      }),
    );
    expect(spec).toStrictEqual({
      kind: "standard",
      type: "standard",
      referenceId: "INV-2026-000123",
      description: "Cuota de diciembre",
      amountCents: 150050,
      dueDates: [
        { kind: "date", input: "2026-12-10", dueAt: new Date("2026-12-11T03:00:00Z"), argentinaDate: "2026-12-10" },
        { kind: "date", input: "2026-12-20", dueAt: new Date("2026-12-21T03:00:00Z"), argentinaDate: "2026-12-20" },
      ],
      surcharge: { type: "percentage", percent: 10 },
      sendWhatsappNotification: true,
      sendEmailNotification: false,
      sendWhatsappPaymentConfirmation: true,
      reminderNotificationDate: "2026-12-08",
      deferredInitialNotificationDate: "2026-11-25",
      conciliationType: "cuil",
      customer: { name: "Ana", taxDocument: "27123456780", phoneNumber: { countryCode: "+54", number: "1155550000" } },
      webhookUrl: "https://merchant.example/hooks",
      metadata: { order: "A-1" },
    });
  });
});

describe("calculatedAmounts", () => {
  it("lists the original amount, then the surcharged one", () => {
    expect(calculatedAmounts(amountTermsOf(accepts(twoDates({ amount: 1500.5, surcharge: { type: "percentage", value: 10 } }))))).toEqual([
      { dueDate: "2026-12-10", amount: 1500.5, isOriginalAmount: true },
      { dueDate: "2026-12-20", amount: 1650.55, surchargeApplied: 150.05 },
    ]);
    expect(calculatedAmounts(amountTermsOf(accepts(twoDates({ amount: 1500.5, surcharge: { type: "fixed", value: 100.1 } }))))).toEqual([
      { dueDate: "2026-12-10", amount: 1500.5, isOriginalAmount: true },
      { dueDate: "2026-12-20", amount: 1600.6, surchargeApplied: 100.1 },
    ]);
    expect(calculatedAmounts(amountTermsOf(accepts(twoDates({ amount: 0.1, surcharge: { type: "fixed", value: 0.2 } }))))?.[1]?.amount).toBe(0.3);
  });

  it("rounds a percentage half-up to the cent", () => {
    // 10 % of 0.05 is half a cent → 0.01; 12.5 % of 19.99 is 2.49875 → 2.50.
    expect(calculatedAmounts(amountTermsOf(accepts(twoDates({ amount: 0.05, surcharge: { type: "percentage", value: 10 } }))))?.[1]).toEqual({
      dueDate: "2026-12-20",
      amount: 0.06,
      surchargeApplied: 0.01,
    });
    expect(calculatedAmounts(amountTermsOf(accepts(twoDates({ amount: 19.99, surcharge: { type: "percentage", value: 12.5 } }))))?.[1]?.surchargeApplied).toBe(
      2.5,
    );
  });

  it("shows a none surcharge as 0", () => {
    expect(calculatedAmounts(amountTermsOf(accepts(twoDates({ amount: 100, surcharge: { type: "none", value: 0 } }))))?.[1]).toEqual({
      dueDate: "2026-12-20",
      amount: 100,
      surchargeApplied: 0,
    });
  });

  it("is absent with one date or without an amount", () => {
    expect(calculatedAmounts(amountTermsOf(accepts(charge())))).toBeUndefined();
    expect(calculatedAmounts(amountTermsOf(accepts(charge({ surcharge: { type: "none", value: 0 } }))))).toBeUndefined();
    expect(calculatedAmounts(amountTermsOf(accepts(draft())))).toBeUndefined();
  });
});

describe("amountOwedCents", () => {
  const terms = amountTermsOf(accepts(twoDates({ amount: 1000, surcharge: { type: "fixed", value: 250 } })));

  it("is the amount up to the end of the first due date (Argentina time)", () => {
    expect(amountOwedCents(terms, NOW)).toBe(100_000);
    expect(amountOwedCents(terms, new Date("2026-12-11T02:59:59.999Z"))).toBe(100_000); // 23:59:59.999 on the 10th
  });

  it("adds the surcharge from 00:00 of the day after, and keeps it past the second date", () => {
    expect(amountOwedCents(terms, new Date("2026-12-11T03:00:00Z"))).toBe(125_000);
    expect(amountOwedCents(terms, new Date("2027-01-30T00:00:00Z"))).toBe(125_000);
  });

  it("is the amount forever with one date, and undefined for a draft", () => {
    const oneDate = amountTermsOf(accepts(charge({ amount: 1000 })));
    expect(amountOwedCents(oneDate, new Date("2027-01-30T00:00:00Z"))).toBe(100_000);
    expect(amountOwedCents(amountTermsOf(accepts(draft())), NOW)).toBeUndefined();
  });
});
