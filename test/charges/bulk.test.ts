// POST /payment-request/bulk: 1 to 100 CUIL-mode charges on one shared CVU, all or nothing; every 422
// reason of the seed, batch-wide notification flags, the chat-message cap counted for the whole batch.
import { beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { isValidCvu, makeCvu } from "../../domain/cvu.ts";
import { cuilCandidatesOfDni } from "../../domain/tax-id.ts";
import { linkedMerchant, serviceForFile } from "../helpers/service.ts";
import { chargeBody } from "../helpers/charges.ts";

type Merchant = Awaited<ReturnType<typeof linkedMerchant>>;

// 12:00 Argentina time on 2026-11-22.
const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") });
let m: Merchant;

beforeAll(async () => {
  m = await linkedMerchant(t);
});

const REASONS = {
  duplicateReferenceId: "Duplicate referenceId within the batch",
  existingReferenceId: "The referenceId already exists for this integration",
  invalidTaxDocument: "The taxDocument does not resolve to a valid CUIL",
  duplicatePayer: "Duplicate payer within the batch",
};

/** A fresh payer's valid CUIL (a new DNI each time). */
let dni = 30_000_000;
const payer = () => cuilCandidatesOfDni(String(++dni))[0]!;
const item = (extra: Record<string, unknown> = {}) =>
  chargeBody({ description: "Expensas diciembre", amount: 42000, customer: { name: "Juan Pérez", taxDocument: payer() }, ...extra });
const bulk = (merchant: Merchant, items: unknown[]) => merchant.call("POST", "/payment-request/bulk", { paymentRequests: items });

async function chargeCount(): Promise<number> {
  const row = await t.database.db
    .selectFrom("charges")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function integrationIdOf(merchant: Merchant): Promise<string> {
  const row = await t.database.db
    .selectFrom("integration_clients")
    .select("id")
    .where("provider_client_id", "=", merchant.sandbox.integration.clientId)
    .executeTakeFirstOrThrow();
  return row.id;
}

function expectValidation(result: { status: number; json: any }, field: string) {
  expect(result.status, JSON.stringify(result.json)).toBe(400);
  expect(result.json.code).toBe("ValidationError");
  const fields: string[] = result.json.validationDetails.map((d: { field: string }) => d.field);
  expect(fields, `${field} in ${fields.join(", ")}`).toContain(field);
}

/** A 422 with exactly these errors, and nothing created. */
async function expectRefused(items: unknown[], errors: Array<{ index: number; referenceId: string; reason: string }>, merchant = m) {
  const before = await chargeCount();
  const result = await bulk(merchant, items);
  expect(result.status, JSON.stringify(result.json)).toBe(422);
  expect(result.json).toEqual({ message: expect.any(String), errors });
  expect(await chargeCount()).toBe(before);
  return result;
}

describe("a created batch", () => {
  it("answers every field; every item is pending, in cuil mode, on the shared CVU", async () => {
    const dniPayer = String(++dni); // a 8-digit DNI is a valid document too
    const items = [
      item({ customer: { name: "Juan Pérez", taxDocument: payer() }, metadata: { unit: "UF 1" } }),
      item({
        amount: 38500.5,
        dueDates: ["2026-12-10", "2026-12-20"],
        surcharge: { type: "percentage", value: 10 },
        customer: { name: "María Gómez", taxDocument: dniPayer, email: null, phoneNumber: null },
      }),
    ];
    const result = await bulk(m, items);
    expect(result.status, JSON.stringify(result.json)).toBe(201);
    expect(result.json).toEqual({
      batchId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      total: 2,
      created: 2,
      sharedCvu: expect.stringMatching(/^\d{22}$/),
      accountInfo: { accountHolderName: "Comercio de Prueba S.A.", accountHolderTaxId: "30712345671", bankName: expect.any(String) },
      paymentRequests: items.map((i) => ({ referenceId: i.referenceId, state: "pending" })),
    });
    expect(isValidCvu(result.json.sharedCvu)).toBe(true);

    const first = await m.call("GET", `/payment-request/${items[0]!.referenceId}`);
    expect(first.json).toMatchObject({
      state: "pending",
      conciliationType: "cuil",
      CVU: result.json.sharedCvu,
      amount: 42000,
      metadata: { unit: "UF 1" },
      customer: items[0]!.customer,
    });
    expect(first.json).not.toHaveProperty("webhookUrl");
    expect(first.json.bankAccountInfo).toEqual(result.json.accountInfo);
    const second = await m.call("GET", `/payment-request/${items[1]!.referenceId}`);
    expect(second.json).toMatchObject({
      state: "pending",
      conciliationType: "cuil",
      CVU: result.json.sharedCvu,
      customer: { name: "María Gómez", taxDocument: dniPayer },
    });
    expect(second.json.customer).not.toHaveProperty("email");
    expect(second.json.calculatedAmounts).toEqual([
      { dueDate: "2026-12-10", amount: 38500.5, isOriginalAmount: true },
      { dueDate: "2026-12-20", amount: 42350.55, surchargeApplied: 3850.05 },
    ]);

    const rows = await t.database.db
      .selectFrom("charges")
      .select(["batch_id"])
      .where(
        "reference_id",
        "in",
        items.map((i) => i.referenceId),
      )
      .execute();
    expect(rows.map((r) => r.batch_id)).toEqual([result.json.batchId, result.json.batchId]);
  });

  it("a later batch joins a shared CVU where none of its payers is; a payer already there moves the batch to another CVU", async () => {
    const own = await linkedMerchant(t);
    const [p1, p2] = [payer(), payer()];
    const a = await bulk(own, [item({ customer: { name: "Uno", taxDocument: p1 } }), item({ customer: { name: "Dos", taxDocument: p2 } })]);
    const b = await bulk(own, [item()]);
    const c = await bulk(own, [item(), item({ customer: { name: "Uno otra vez", taxDocument: p1 } })]);
    expect([a.status, b.status, c.status]).toEqual([201, 201, 201]);
    expect(b.json.sharedCvu).toBe(a.json.sharedCvu);
    expect(c.json.sharedCvu).not.toBe(a.json.sharedCvu);
  });

  it("keeps request order for 100 items", async () => {
    const own = await linkedMerchant(t);
    const items = Array.from({ length: 100 }, () => item());
    const result = await bulk(own, items);
    expect(result.status, JSON.stringify(result.json)).toBe(201);
    expect(result.json.total).toBe(100);
    expect(result.json.created).toBe(100);
    expect(result.json.paymentRequests.map((p: { referenceId: string }) => p.referenceId)).toEqual(items.map((i) => i.referenceId));
  });
});

describe("422 BulkPaymentRequestValidationError: every failing item, nothing created", () => {
  it("Duplicate referenceId within the batch (the first occurrence passes)", async () => {
    const first = item();
    await expectRefused(
      [first, item(), item({ referenceId: first.referenceId })],
      [{ index: 2, referenceId: first.referenceId, reason: REASONS.duplicateReferenceId }],
    );
  });

  it("The taxDocument does not resolve to a valid CUIL (wrong check digit, unknown prefix)", async () => {
    const wrongDigit = item({ customer: { name: "Juan", taxDocument: "20301234560" } });
    const badPrefix = item({ customer: { name: "Juan", taxDocument: "11301234563" } });
    await expectRefused(
      [item(), wrongDigit, badPrefix],
      [
        { index: 1, referenceId: wrongDigit.referenceId, reason: REASONS.invalidTaxDocument },
        { index: 2, referenceId: badPrefix.referenceId, reason: REASONS.invalidTaxDocument },
      ],
    );
  });

  it("Duplicate payer within the batch (the same CUIL, or a DNI and the CUIL that contains it)", async () => {
    const cuil = payer();
    const sameCuil = item({ customer: { name: "Otra", taxDocument: cuil } });
    const itsDni = item({ customer: { name: "Otra más", taxDocument: cuil.slice(2, 10) } });
    await expectRefused(
      [item({ customer: { name: "Juan", taxDocument: cuil } }), sameCuil, itsDni],
      [
        { index: 1, referenceId: sameCuil.referenceId, reason: REASONS.duplicatePayer },
        { index: 2, referenceId: itsDni.referenceId, reason: REASONS.duplicatePayer },
      ],
    );
  });

  it("The referenceId already exists for this integration (a single create, canceled charges included)", async () => {
    const single = await m.call("POST", "/payment-request", { ...item(), conciliationType: "cuil" });
    expect(single.status).toBe(201);
    const canceled = await m.call("POST", "/payment-request", item());
    expect((await m.call("POST", `/payment-request/${canceled.json.referenceId}/cancel`)).status).toBe(200);
    await expectRefused(
      [item(), item({ referenceId: single.json.referenceId }), item({ referenceId: canceled.json.referenceId })],
      [
        { index: 1, referenceId: single.json.referenceId, reason: REASONS.existingReferenceId },
        { index: 2, referenceId: canceled.json.referenceId, reason: REASONS.existingReferenceId },
      ],
    );
  });

  it("another integration's referenceId does not count", async () => {
    const other = await linkedMerchant(t);
    const mine = item();
    expect((await bulk(m, [mine])).status).toBe(201);
    expect((await bulk(other, [item({ referenceId: mine.referenceId })])).status).toBe(201);
  });

  it("several reasons together, in item order", async () => {
    const existing = item();
    expect((await bulk(m, [existing])).status).toBe(201);
    const cuil = payer();
    const items = [
      item({ customer: { name: "Juan", taxDocument: cuil } }),
      item({ customer: { name: "Mal", taxDocument: "20301234560" } }),
      item(),
      item({ referenceId: existing.referenceId }),
      item({ customer: { name: "Repetido", taxDocument: cuil } }),
    ];
    items[2]!.referenceId = items[0]!.referenceId;
    await expectRefused(items, [
      { index: 1, referenceId: items[1]!.referenceId, reason: REASONS.invalidTaxDocument },
      { index: 2, referenceId: items[0]!.referenceId, reason: REASONS.duplicateReferenceId },
      { index: 3, referenceId: existing.referenceId, reason: REASONS.existingReferenceId },
      { index: 4, referenceId: items[4]!.referenceId, reason: REASONS.duplicatePayer },
    ]);
  });

  it("a retried batch that was created: every item is The referenceId already exists, nothing new", async () => {
    const items = [item(), item(), item()];
    expect((await bulk(m, items)).status).toBe(201);
    await expectRefused(
      items,
      items.map((i, index) => ({ index, referenceId: i.referenceId, reason: REASONS.existingReferenceId })),
    );
  });

  it("two identical batches at the same time: one is created, the other is refused whole", async () => {
    const own = await linkedMerchant(t);
    const items = Array.from({ length: 5 }, () => item());
    const before = await chargeCount();
    const results = await Promise.all([bulk(own, items), bulk(own, items), bulk(own, items)]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 422, 422]);
    for (const refused of results.filter((r) => r.status === 422)) {
      expect(refused.json.errors).toEqual(items.map((i, index) => ({ index, referenceId: i.referenceId, reason: REASONS.existingReferenceId })));
    }
    expect(await chargeCount()).toBe(before + 5);
  });
});

describe("400 ValidationError: nothing created", () => {
  it("a due date with a time", async () => {
    const before = await chargeCount();
    expectValidation(await bulk(m, [item(), item({ dueDates: ["2026-12-10T10:00"] })]), "paymentRequests[1].dueDates[0]");
    expectValidation(await bulk(m, [item({ dueDates: ["2026-12-10T10:00:00-03:00"] })]), "paymentRequests[0].dueDates[0]");
    expect(await chargeCount()).toBe(before);
  });

  it.each([
    ["webhookUrl", "https://example.com/hooks"],
    ["conciliationType", "cuil"],
    ["type", "standard"],
    ["expiresInMinutes", 10],
  ])("an item with %s, naming the field", async (field, value) => {
    const before = await chargeCount();
    expectValidation(await bulk(m, [item(), item({ [field]: value })]), `paymentRequests[1].${field}`);
    expect(await chargeCount()).toBe(before);
  });

  it("no items, or over 100", async () => {
    expectValidation(await bulk(m, []), "paymentRequests");
    const before = await chargeCount();
    expectValidation(
      await bulk(
        m,
        Array.from({ length: 101 }, () => item()),
      ),
      "paymentRequests",
    );
    expect(await chargeCount()).toBe(before);
  });

  it("a rule of a standard charge broken by one item (date not after today, missing taxDocument)", async () => {
    expectValidation(await bulk(m, [item(), item({ dueDates: ["2026-11-22"] })]), "paymentRequests[1].dueDates[0]");
    expectValidation(await bulk(m, [item({ customer: { name: "Sin documento" } })]), "paymentRequests[0].customer.taxDocument");
  });

  it("an item without an amount (a bulk charge takes the shared CVU; a draft cannot)", async () => {
    const { amount: _amount, sendWhatsappNotification: _w, sendEmailNotification: _e, ...draft } = item();
    const before = await chargeCount();
    expectValidation(await bulk(m, [item(), draft]), "paymentRequests[1].amount");
    expect(await chargeCount()).toBe(before);
  });
});

describe("batch-wide notification flags", () => {
  it("a channel is on for every charge if any item turns it on; differing payment confirmations give false", async () => {
    const own = await linkedMerchant(t);
    const items = [
      item({
        sendWhatsappNotification: true,
        sendWhatsappPaymentConfirmation: true,
        customer: { name: "Con teléfono", taxDocument: payer(), phoneNumber: { countryCode: "+54", number: "91123456789" } },
      }),
      item({
        sendEmailNotification: true,
        sendWhatsappPaymentConfirmation: false,
        customer: { name: "Con email", taxDocument: payer(), email: "pagador@example.com" },
      }),
      item(),
    ];
    expect((await bulk(own, items)).status).toBe(201);
    for (const { referenceId } of items) {
      const charge = (await own.call("GET", `/payment-request/${referenceId}`)).json;
      expect(charge, referenceId).toMatchObject({ sendWhatsappNotification: true, sendEmailNotification: true, sendWhatsappPaymentConfirmation: false });
    }
    // Every charge of the batch with WhatsApp on counts against the cap.
    const usage = await t.database.db
      .selectFrom("daily_message_usage")
      .select("messages")
      .where("scope", "=", `integration:${await integrationIdOf(own)}`)
      .executeTakeFirstOrThrow();
    expect(usage.messages).toBe(3);
  });

  it("the common payment confirmation is kept; omitted everywhere stays omitted; all channels off stay off", async () => {
    const agreeing = [item({ sendWhatsappPaymentConfirmation: true }), item({ sendWhatsappPaymentConfirmation: true })];
    const silent = [item(), item()];
    expect((await bulk(m, agreeing)).status).toBe(201);
    expect((await bulk(m, silent)).status).toBe(201);
    for (const { referenceId } of agreeing) {
      expect((await m.call("GET", `/payment-request/${referenceId}`)).json.sendWhatsappPaymentConfirmation).toBe(true);
    }
    for (const { referenceId } of silent) {
      const charge = (await m.call("GET", `/payment-request/${referenceId}`)).json;
      expect(charge).not.toHaveProperty("sendWhatsappPaymentConfirmation");
      expect(charge).toMatchObject({ sendWhatsappNotification: false, sendEmailNotification: false });
    }
  });
});

describe("limits", () => {
  it("429 when the batch does not fit under the chat-message cap: nothing is created, the cap is untouched", async () => {
    const own = await linkedMerchant(t);
    const scope = `integration:${await integrationIdOf(own)}`;
    await t.database.db.insertInto("daily_message_usage").values({ scope, day: "2026-11-22", messages: 19 }).execute();
    const whatsapp = () =>
      item({ sendWhatsappNotification: true, customer: { name: "Juan", taxDocument: payer(), phoneNumber: { countryCode: "+54", number: "91123456789" } } });
    const before = await chargeCount();
    const refused = await bulk(own, [whatsapp(), whatsapp()]);
    expect(refused.status, JSON.stringify(refused.json)).toBe(429);
    expect(refused.json).toEqual({
      code: "IntegrationDailyRequestLimitExceededError",
      message: expect.any(String),
      availableAt: "2026-11-23T00:00:00-03:00",
      maxRequestsPerDay: 20,
      maxMessagesPerDay: 20,
    });
    expect(await chargeCount()).toBe(before);
    const usage = () => t.database.db.selectFrom("daily_message_usage").select("messages").where("scope", "=", scope).executeTakeFirstOrThrow();
    expect((await usage()).messages).toBe(19);
    // A batch without WhatsApp does not count; one message still fits.
    expect((await bulk(own, [item(), item()])).status).toBe(201);
    expect((await bulk(own, [whatsapp()])).status).toBe(201);
    expect((await usage()).messages).toBe(20);
  });

  it("503 IntegrationDailyLimitUnavailableError when the chat-message cap cannot be checked: nothing is created", async () => {
    const own = await linkedMerchant(t);
    const scope = `integration:${await integrationIdOf(own)}`;
    await t.database.db.insertInto("daily_message_usage").values({ scope, day: "2026-11-22", messages: 0 }).execute();
    const items = [
      item({ sendWhatsappNotification: true, customer: { name: "Juan", taxDocument: payer(), phoneNumber: { countryCode: "+54", number: "91123456789" } } }),
      item(),
    ];
    const before = await chargeCount();
    // Another transaction holds the integration's counter: the create gives up rather than wait.
    const holder = new pg.Client({ connectionString: t.database.connectionString });
    await holder.connect();
    try {
      await holder.query("begin");
      await holder.query("select * from daily_message_usage where scope = $1 for update", [scope]);
      const result = await bulk(own, items);
      expect(result.status, JSON.stringify(result.json)).toBe(503);
      expect(result.json).toEqual({ code: "IntegrationDailyLimitUnavailableError", message: expect.any(String), id: expect.any(String) });
      await holder.query("rollback");
    } finally {
      await holder.end();
    }
    expect(await chargeCount()).toBe(before);
    for (const { referenceId } of items) expect((await own.call("GET", `/payment-request/${referenceId}`)).status).toBe(404);
  });

  it("400 InsufficientActiveAccountsError when no CVU of the pool can hold the batch: nothing created", async () => {
    const own = await linkedMerchant(t);
    const merchantAccountId: string = (await own.call("GET", "/me")).json.merchantUserId; // the test tokens' merchant account
    // A full pool of 100 CVUs, each held by a cvu-mode charge.
    await t.database.db
      .insertInto("cvu_accounts")
      .values(
        Array.from({ length: 100 }, (_, i) => ({
          merchant_account_id: merchantAccountId,
          cvu: makeCvu("0999", 1 + i),
          holding: "exclusive" as const,
          open_charges: 1,
        })),
      )
      .execute();
    const before = await chargeCount();
    const result = await bulk(own, [item(), item()]);
    expect(result.status, JSON.stringify(result.json)).toBe(400);
    expect(result.json).toMatchObject({ code: "InsufficientActiveAccountsError", message: expect.any(String), id: expect.any(String) });
    expect(await chargeCount()).toBe(before);
  });
});
