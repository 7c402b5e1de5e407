// Bulk items: the create rules in cuil mode with date-only due dates, the 422 refusals that need no
// database, and the batch-wide notification flags.
import { describe, expect, it } from "vitest";
import {
  batchNotificationFlags,
  BULK_REFUSAL_REASONS,
  bulkRefusals,
  validateBulkItem,
  validateBulkItems,
  type BulkPaymentRequestItem,
  type ChargeSpec,
} from "../../domain/charges/charge-rules.ts";
import { ValidationError, type FieldProblem } from "../../domain/errors.ts";

const NOW = new Date("2026-11-22T15:00:00Z"); // 12:00 -03:00

function item(changes: Partial<BulkPaymentRequestItem> = {}): BulkPaymentRequestItem {
  return {
    referenceId: "BULK-2026-0001",
    description: "Cuota de diciembre",
    dueDates: ["2026-12-10"],
    customer: { name: "Juan Pérez", taxDocument: "20123456786" },
    amount: 1000,
    sendWhatsappNotification: false,
    sendEmailNotification: false,
    ...changes,
  };
}

function problemsOf(action: () => unknown): FieldProblem[] {
  try {
    action();
  } catch (error) {
    if (error instanceof ValidationError) return error.details.problems;
    throw error;
  }
  throw new Error("expected a ValidationError");
}

describe("validateBulkItem", () => {
  it("is a standard charge in cuil mode that keeps the taxDocument", () => {
    const spec = validateBulkItem(item(), 0, NOW);
    expect(spec.conciliationType).toBe("cuil");
    expect(spec.type).toBe("standard");
    expect(spec.kind).toBe("standard");
    expect(spec.customer.taxDocument).toBe("20123456786");
    expect(spec.amountCents).toBe(100_000);
  });

  it("prefixes field paths with paymentRequests[index]", () => {
    expect(problemsOf(() => validateBulkItem(item({ dueDates: ["2026-11-22"] }), 3, NOW))).toEqual([
      {
        field: "paymentRequests[3].dueDates[0]",
        rule: "outOfRange",
        message: "paymentRequests[3].dueDates[0] must be after today (2026-11-22, Argentina time)",
      },
    ]);
  });

  it("applies the same rules as create (examples: surcharge, flags, contacts, dates)", () => {
    const fields = (changes: Partial<BulkPaymentRequestItem>) => problemsOf(() => validateBulkItem(item(changes), 1, NOW)).map((problem) => problem.field);
    expect(fields({ dueDates: ["2026-12-10", "2026-12-20"] })).toEqual(["paymentRequests[1].surcharge"]);
    expect(fields({ dueDates: ["2026-12-28"] })).toEqual(["paymentRequests[1].dueDates[0]"]);
    expect(fields({ sendEmailNotification: true })).toEqual(["paymentRequests[1].customer.email"]);
    expect(fields({ sendWhatsappNotification: null })).toEqual(["paymentRequests[1].sendWhatsappNotification"]);
    expect(fields({ amount: 5.555 })).toEqual(["paymentRequests[1].amount"]);
    expect(fields({ reminderNotificationDate: "2026-12-10" })).toEqual(["paymentRequests[1].reminderNotificationDate"]);
  });

  it("refuses a due date with a time: a bulk charge cannot be short-lived", () => {
    expect(problemsOf(() => validateBulkItem(item({ dueDates: ["2026-12-10T10:00"] }), 0, NOW))).toEqual([
      {
        field: "paymentRequests[0].dueDates[0]",
        rule: "format",
        message: "paymentRequests[0].dueDates[0] must be a date without a time (YYYY-MM-DD): a bulk charge cannot be short-lived",
      },
    ]);
  });

  it("refuses the create-only fields if they get past the schema", () => {
    const withForeign = { ...item(), conciliationType: "cvu", type: "checkout", expiresInMinutes: 10, webhookUrl: "https://x.example" };
    const fields = problemsOf(() => validateBulkItem(withForeign as BulkPaymentRequestItem, 2, NOW)).map((problem) => problem.field);
    expect(fields).toEqual([
      "paymentRequests[2].conciliationType",
      "paymentRequests[2].type",
      "paymentRequests[2].expiresInMinutes",
      "paymentRequests[2].webhookUrl",
    ]);
  });

  it("leaves the taxDocument's check digit to the 422 (the seed's reason), and accepts a DNI", () => {
    expect(validateBulkItem(item({ customer: { name: "Ana", taxDocument: "20123456787" } }), 0, NOW).customer.taxDocument).toBe("20123456787");
    expect(validateBulkItem(item({ customer: { name: "Ana", taxDocument: "1234567" } }), 0, NOW).customer.taxDocument).toBe("1234567");
  });
});

describe("validateBulkItems", () => {
  it("reports the problems of every item in one ValidationError", () => {
    const items = [item(), item({ dueDates: ["2026-11-22"] }), item(), item({ amount: 1.234 })];
    expect(problemsOf(() => validateBulkItems(items, NOW)).map((problem) => problem.field)).toEqual([
      "paymentRequests[1].dueDates[0]",
      "paymentRequests[3].amount",
    ]);
  });

  it("returns the specs in request order when all pass", () => {
    const specs = validateBulkItems([item({ referenceId: "BULK-A-0001" }), item({ referenceId: "BULK-B-0002" })], NOW);
    expect(specs.map((spec) => spec.referenceId)).toEqual(["BULK-A-0001", "BULK-B-0002"]);
  });
});

describe("bulkRefusals", () => {
  const spec = (referenceId: string, taxDocument: string) => validateBulkItem(item({ referenceId, customer: { name: "Ana", taxDocument } }), 0, NOW);

  it("is empty for a clean batch", () => {
    expect(bulkRefusals([spec("BULK-0000001", "20123456786"), spec("BULK-0000002", "27123456799")])).toEqual([]);
  });

  it("refuses a repeated referenceId after its first occurrence, with the seed's reason", () => {
    expect(bulkRefusals([spec("BULK-0000001", "20123456786"), spec("BULK-0000002", "27123456799"), spec("BULK-0000001", "20123456808")])).toEqual([
      { index: 2, referenceId: "BULK-0000001", reason: "Duplicate referenceId within the batch" },
    ]);
  });

  it("refuses a repeated payer, a DNI and the CUIL that contains it included", () => {
    expect(bulkRefusals([spec("BULK-0000001", "20123456786"), spec("BULK-0000002", "12345678"), spec("BULK-0000003", "20123456786")])).toEqual([
      { index: 1, referenceId: "BULK-0000002", reason: BULK_REFUSAL_REASONS.duplicatePayer },
      { index: 2, referenceId: "BULK-0000003", reason: "Duplicate payer within the batch" },
    ]);
  });

  it("refuses a taxDocument that is not a valid CUIL", () => {
    expect(bulkRefusals([spec("BULK-0000001", "20123456787")])).toEqual([
      { index: 0, referenceId: "BULK-0000001", reason: "The taxDocument does not resolve to a valid CUIL" },
    ]);
  });

  it("lists several reasons of one item", () => {
    expect(bulkRefusals([spec("BULK-0000001", "20123456786"), spec("BULK-0000001", "12345678")]).map((refusal) => refusal.reason)).toEqual([
      BULK_REFUSAL_REASONS.duplicateReferenceId,
      BULK_REFUSAL_REASONS.duplicatePayer,
    ]);
  });

  it("spells the reason the database check uses as the seed does", () => {
    expect(BULK_REFUSAL_REASONS.existingReferenceId).toBe("The referenceId already exists for this integration");
  });
});

describe("batchNotificationFlags", () => {
  const flags = (whatsapp: boolean, email: boolean, confirmation?: boolean): ChargeSpec =>
    validateBulkItem(
      item({
        sendWhatsappNotification: whatsapp,
        sendEmailNotification: email,
        sendWhatsappPaymentConfirmation: confirmation,
        customer: { name: "Ana", taxDocument: "20123456786", email: "a@b.ar", phoneNumber: { countryCode: "+54", number: "1155550000" } },
      }),
      0,
      NOW,
    );

  it("turns a channel on for the batch if any item turns it on", () => {
    expect(batchNotificationFlags([flags(false, false), flags(true, false)])).toEqual({ sendWhatsappNotification: true, sendEmailNotification: false });
    expect(batchNotificationFlags([flags(false, true), flags(false, false)])).toEqual({ sendWhatsappNotification: false, sendEmailNotification: true });
  });

  it("keeps the payment confirmation the items agree on, and false when they differ", () => {
    expect(batchNotificationFlags([flags(false, false, true), flags(false, false, true)]).sendWhatsappPaymentConfirmation).toBe(true);
    expect(batchNotificationFlags([flags(false, false, true), flags(false, false, false)]).sendWhatsappPaymentConfirmation).toBe(false);
    expect(batchNotificationFlags([flags(false, false, true), flags(false, false)]).sendWhatsappPaymentConfirmation).toBe(false);
    expect("sendWhatsappPaymentConfirmation" in batchNotificationFlags([flags(false, false), flags(false, false)])).toBe(false);
  });
});
