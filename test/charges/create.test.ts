// POST /payment-request: every kind of charge, every create rule of the seed, every error row.
import { beforeAll, describe, expect, it } from "vitest";
import { isValidCvu } from "../../domain/cvu.ts";
import { linkedMerchant, serviceForFile } from "../helpers/service.ts";
import { chargeBody, draftChargeBody } from "../helpers/charges.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

// 12:00 Argentina time on 2026-11-22.
const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") });
let m: Awaited<ReturnType<typeof linkedMerchant>>;

beforeAll(async () => {
  m = await linkedMerchant(t);
});

const base = () => draftChargeBody({ description: "Cuota de diciembre" });
const priced = () => chargeBody({ description: "Cuota de diciembre" });

function expectValidation(result: { status: number; json: any }, field: string) {
  expect(result.status, JSON.stringify(result.json)).toBe(400);
  expect(result.json.code).toBe("ValidationError");
  const fields: string[] = result.json.validationDetails.map((d: { field: string }) => d.field);
  expect(
    fields.some((f) => f === field || f.startsWith(`${field}.`) || f.startsWith(`${field}[`)),
    `${field} in ${fields.join(", ")}`,
  ).toBe(true);
}

describe("creating charges", () => {
  it("a CUIL-mode charge with two due dates and a surcharge echoes every field", async () => {
    const body = {
      referenceId: uniqueRef("REF"),
      description: "Cuota de diciembre",
      dueDates: ["2026-12-10", "2026-12-20"],
      amount: 15000.5,
      surcharge: { type: "percentage", value: 10 },
      customer: { name: "Juan Pérez", taxDocument: "20301234563", email: "juan@example.com", phoneNumber: { countryCode: "+54", number: "91123456789" } },
      sendWhatsappNotification: true,
      sendEmailNotification: true,
      sendWhatsappPaymentConfirmation: true,
      reminderNotificationDate: "2026-12-05",
      deferredInitialNotificationDate: "2026-11-25",
      conciliationType: "cuil",
      metadata: { orderId: "A-1001" },
    };
    const created = await m.call("POST", "/payment-request", body);
    expect(created.status).toBe(201);
    const { referenceId, ...rest } = body;
    expect(created.json).toMatchObject({ ...rest, referenceId, type: "standard", state: "pending" });
    expect(created.json.paymentRequestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.json.calculatedAmounts).toEqual([
      { dueDate: "2026-12-10", amount: 15000.5, isOriginalAmount: true },
      { dueDate: "2026-12-20", amount: 16500.55, surchargeApplied: 1500.05 },
    ]);
    expect(isValidCvu(created.json.CVU)).toBe(true);
    expect(created.json.bankAccountInfo).toEqual({
      accountHolderName: "Comercio de Prueba S.A.",
      accountHolderTaxId: "30712345671",
      bankName: expect.any(String),
    });
    expect((await m.call("GET", `/payment-request/${referenceId}`)).json).toEqual(created.json);
  });

  it("CVU mode (the default) ignores the taxDocument and does not echo it", async () => {
    const created = await m.call("POST", "/payment-request", { ...priced(), customer: { name: "Ana", taxDocument: "20301234563" } });
    expect(created.status).toBe(201);
    expect(created.json.conciliationType).toBe("cvu");
    expect(created.json.customer).toEqual({ name: "Ana" });
  });

  it("a fixed surcharge applies on the second due date", async () => {
    const created = await m.call("POST", "/payment-request", {
      ...priced(),
      dueDates: ["2026-12-10", "2026-12-20"],
      surcharge: { type: "fixed", value: 250.25 },
    });
    expect(created.json.calculatedAmounts[1]).toEqual({ dueDate: "2026-12-20", amount: 1250.25, surchargeApplied: 250.25 });
  });

  it("without an amount it is a draft: no CVU, no calculated amounts", async () => {
    const created = await m.call("POST", "/payment-request", base());
    expect(created.status).toBe(201);
    expect(created.json.state).toBe("draft");
    expect(created.json).not.toHaveProperty("CVU");
    expect(created.json).not.toHaveProperty("amount");
    expect(created.json.sendWhatsappNotification).toBe(false);
  });

  it("accepts what existing clients send: a one-date surcharge of type none, and null contacts", async () => {
    const created = await m.call("POST", "/payment-request", {
      ...priced(),
      surcharge: { type: "none", value: 0 },
      customer: { name: "Juan Pérez", phoneNumber: null, email: null },
      webhookUrl: null,
      metadata: null,
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json).not.toHaveProperty("surcharge");
    expect(created.json.customer).toEqual({ name: "Juan Pérez" });
  });

  it("a short-lived charge (a due date with a time, later today included) and a checkout charge", async () => {
    const shortLived = await m.call("POST", "/payment-request", { ...priced(), dueDates: ["2026-11-23T18:30"] });
    expect(shortLived.status).toBe(201);
    expect(shortLived.json.dueDates).toEqual(["2026-11-23T18:30"]);
    // "After today" is a calendar day for a date, an instant for a date with a time: later today is
    // accepted (it is 12:00 in Argentina), the current minute is not.
    const laterToday = await m.call("POST", "/payment-request", { ...priced(), dueDates: ["2026-11-22T12:01"] });
    expect(laterToday.status, JSON.stringify(laterToday.json)).toBe(201);
    expectValidation(await m.call("POST", "/payment-request", { ...priced(), dueDates: ["2026-11-22T12:00"] }), "dueDates[0]");
    const checkout = await m.call("POST", "/payment-request", { ...priced(), type: "checkout", expiresInMinutes: 15 });
    expect(checkout.status).toBe(201);
    expect(checkout.json).toMatchObject({ type: "checkout", expiresInMinutes: 15 });
  });
});

describe("lengths and sizes at their bounds", () => {
  const metadataOf = (keys: number, valueLength = 1) => Object.fromEntries(Array.from({ length: keys }, (_, i) => [`k${i}`, "v".repeat(valueLength)]));

  it.each([
    ["a description of 2 characters", { description: "ab" }, { field: "description", rule: "minLength", limit: 3 }],
    ["a description of 501 characters", { description: "d".repeat(501) }, { field: "description", rule: "maxLength", limit: 500 }],
    ["a customer name of 1 character", { customer: { name: "A" } }, { field: "customer.name", rule: "minLength", limit: 2 }],
    ["a customer name of 151 characters", { customer: { name: "n".repeat(151) } }, { field: "customer.name", rule: "maxLength", limit: 150 }],
    ["metadata with 51 keys", { metadata: metadataOf(51) }, { field: "metadata", rule: "maxProperties", limit: 50 }],
    ["a metadata value of 501 characters", { metadata: { note: "v".repeat(501) } }, { field: "metadata.note", rule: "maxLength", limit: 500 }],
  ])("400 for %s", async (_what, change, detail) => {
    const result = await m.call("POST", "/payment-request", { ...priced(), ...change });
    expect(result.status, JSON.stringify(result.json)).toBe(400);
    expect(result.json.code).toBe("ValidationError");
    expect(result.json.validationDetails).toEqual([expect.objectContaining(detail)]);
  });

  it.each([
    ["a description of 3 characters", { description: "abc" }],
    ["a description of 500 characters", { description: "d".repeat(500) }],
    ["a customer name of 2 characters", { customer: { name: "Al" } }],
    ["a customer name of 150 characters", { customer: { name: "n".repeat(150) } }],
    ["metadata with 50 keys", { metadata: metadataOf(50) }],
    ["a metadata value of 500 characters", { metadata: { note: "v".repeat(500) } }],
  ])("201 for %s, stored as sent", async (_what, change) => {
    const created = await m.call("POST", "/payment-request", { ...priced(), ...change });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json).toMatchObject(change);
  });
});

describe("create rules the schema cannot express", () => {
  it.each([
    ["a due date of today", { dueDates: ["2026-11-22"] }, "dueDates[0]"],
    ["a due date 36 days ahead", { dueDates: ["2026-12-28"] }, "dueDates[0]"],
    ["a second due date before the first", { dueDates: ["2026-12-10", "2026-12-05"], surcharge: { type: "none", value: 0 } }, "dueDates[1]"],
    ["a due date with a time in the past", { dueDates: ["2026-11-22T11:00"] }, "dueDates[0]"],
    ["two due dates when one has a time", { dueDates: ["2026-11-23T10:00", "2026-12-10"], surcharge: { type: "none", value: 0 } }, "dueDates"],
    ["two due dates without a surcharge", { dueDates: ["2026-12-10", "2026-12-20"] }, "surcharge"],
    ["an amount with 3 decimals", { amount: 10.001 }, "amount"],
    ["an amount over 200,000,000", { amount: 200000000.01 }, "amount"],
    ["a percentage over 100", { dueDates: ["2026-12-10", "2026-12-20"], surcharge: { type: "percentage", value: 101 } }, "surcharge.value"],
    ["a none surcharge with a value", { dueDates: ["2026-12-10", "2026-12-20"], surcharge: { type: "none", value: 5 } }, "surcharge.value"],
    ["email notifications without an email", { sendEmailNotification: true }, "customer.email"],
    ["chat notifications without a phone", { sendWhatsappNotification: true }, "customer.phoneNumber"],
    ["a reminder after the first due date", { reminderNotificationDate: "2026-12-11" }, "reminderNotificationDate"],
    [
      "a reminder before the deferred initial notification",
      { reminderNotificationDate: "2026-11-26", deferredInitialNotificationDate: "2026-11-28" },
      "reminderNotificationDate",
    ],
    ["CUIL mode without a taxDocument", { conciliationType: "cuil" }, "customer.taxDocument"],
    ["CUIL mode with a wrong check digit", { conciliationType: "cuil", customer: { name: "Ana", taxDocument: "20301234564" } }, "customer.taxDocument"],
    ["expiresInMinutes on a standard charge", { expiresInMinutes: 10 }, "expiresInMinutes"],
    ["a metadata key over 40 characters", { metadata: { ["k".repeat(41)]: "v" } }, "metadata"],
    ["metadata over 8 KB", { metadata: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`key${i}`, "v".repeat(450)])) }, "metadata"],
  ])("400 for %s", async (_what, change, field) => {
    expectValidation(await m.call("POST", "/payment-request", { ...priced(), ...change }), field);
  });

  it.each([
    [
      "notification flags on",
      { sendWhatsappNotification: true, customer: { name: "Ana", phoneNumber: { countryCode: "+54", number: "91123456789" } } },
      "sendWhatsappNotification",
    ],
    ["a surcharge", { surcharge: { type: "fixed", value: 10 } }, "surcharge"],
    ["a notification date", { reminderNotificationDate: "2026-12-01" }, "reminderNotificationDate"],
    ["two due dates", { dueDates: ["2026-12-10", "2026-12-20"] }, "dueDates"],
  ])("400 for a draft with %s", async (_what, change, field) => {
    expectValidation(await m.call("POST", "/payment-request", { ...base(), ...change }), field);
  });

  it("lists every problem at once", async () => {
    const result = await m.call("POST", "/payment-request", { ...priced(), dueDates: ["2026-11-22"], amount: 1.234, sendEmailNotification: true });
    const fields = result.json.validationDetails.map((d: { field: string }) => d.field);
    expect(fields).toEqual(expect.arrayContaining(["dueDates[0]", "amount", "customer.email"]));
  });
});

describe("webhookUrl", () => {
  it.each([
    ["loopback", "https://127.0.0.1/hook"],
    ["a private network", "https://10.1.2.3/hook"],
    ["link-local metadata", "https://169.254.169.254/latest/meta-data"],
    ["a name that resolves to loopback", "https://localhost/hook"],
    ["an IPv4-mapped IPv6 loopback", "https://[::ffff:127.0.0.1]/hook"],
    ["plain http on loopback", "http://127.0.0.1:8080/hook"],
  ])("400 WebhookUrlBlockedError for %s", async (_what, webhookUrl) => {
    const result = await m.call("POST", "/payment-request", { ...priced(), webhookUrl });
    expect(result.status).toBe(400);
    expect(result.json).toEqual({ code: "WebhookUrlBlockedError", message: expect.any(String), id: expect.any(String) });
  });

  it("accepts a public https URL and echoes it", async () => {
    const created = await m.call("POST", "/payment-request", { ...priced(), webhookUrl: "https://93.184.216.34/hooks/cobro" });
    expect(created.status).toBe(201);
    expect(created.json.webhookUrl).toBe("https://93.184.216.34/hooks/cobro");
  });
});

describe("referenceId", () => {
  it("409 ReferenceIdAlreadyExists with {error, message, referenceId}, canceled charges included", async () => {
    const body = priced();
    expect((await m.call("POST", "/payment-request", body)).status).toBe(201);
    const again = await m.call("POST", "/payment-request", body);
    expect(again.status).toBe(409);
    expect(again.json).toEqual({ error: "ReferenceIdAlreadyExists", message: expect.any(String), referenceId: body.referenceId });
    expect((await m.call("POST", `/payment-request/${body.referenceId}/cancel`)).status).toBe(200);
    expect((await m.call("POST", "/payment-request", body)).status).toBe(409);
  });

  it("409 ReferenceIdAlreadyExists for a CUIL-mode charge whose payer could join a shared CVU; the payer can still be charged", async () => {
    const first = chargeBody({ conciliationType: "cuil", customer: { name: "Pagador", taxDocument: "20301234563" } });
    const created = await m.call("POST", "/payment-request", first);
    expect(created.status).toBe(201);
    const otherPayer = { name: "Otra", taxDocument: "20123456786" };
    const again = await m.call("POST", "/payment-request", { ...first, customer: otherPayer });
    expect(again.status).toBe(409);
    expect(again.json).toEqual({ error: "ReferenceIdAlreadyExists", message: expect.any(String), referenceId: first.referenceId });
    expect((await m.call("POST", "/payment-request", chargeBody({ conciliationType: "cuil", customer: otherPayer }))).status).toBe(201);
  });

  it("is unique per integration and merchant: another merchant may use the same one", async () => {
    const other = await linkedMerchant(t);
    const body = priced();
    expect((await m.call("POST", "/payment-request", body)).status).toBe(201);
    expect((await other.call("POST", "/payment-request", body)).status).toBe(201);
    expect((await other.call("GET", `/payment-request/${body.referenceId}`)).json.paymentRequestId).not.toBe(
      (await m.call("GET", `/payment-request/${body.referenceId}`)).json.paymentRequestId,
    );
  });

  it("ten identical creates at once make one charge and nine 409s", async () => {
    const body = priced();
    const results = await Promise.all(Array.from({ length: 10 }, () => m.call("POST", "/payment-request", body)));
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
    const rows = await t.database.db.selectFrom("charges").select("id").where("reference_id", "=", body.referenceId).execute();
    expect(rows).toHaveLength(1);
  });
});
