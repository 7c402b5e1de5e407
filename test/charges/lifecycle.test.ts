// Reading, listing, completing a draft, changing the payer and canceling: every rule and error row.
import { beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { linkedMerchant, serviceForFile } from "../helpers/service.ts";
import { chargeBody, draftChargeBody } from "../helpers/charges.ts";

const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") });
let m: Awaited<ReturnType<typeof linkedMerchant>>;

beforeAll(async () => {
  m = await linkedMerchant(t);
});

const cuil = (taxDocument = "20301234563", extra: object = {}) =>
  chargeBody({ conciliationType: "cuil", customer: { name: "Juan Pérez", taxDocument }, ...extra });
const draft = () => draftChargeBody({ description: "Reparación", dueDates: ["2026-12-05"] });
const create = async (body: { referenceId: string }) => {
  const result = await m.call("POST", "/payment-request", body);
  expect(result.status, JSON.stringify(result.json)).toBe(201);
  return result.json;
};
const notFound = { message: "Payment request not found" };

describe("GET /payment-request/{referenceId}", () => {
  it("404 {message} for a charge that does not exist or is another merchant's", async () => {
    const missing = await m.call("GET", "/payment-request/NOPE-00000000");
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual(notFound);
    const mine = await create(chargeBody());
    const other = await linkedMerchant(t);
    const theirs = await other.call("GET", `/payment-request/${mine.referenceId}`);
    expect(theirs.status).toBe(404);
    expect(theirs.json).toEqual(notFound);
  });
});

describe("GET /payment-request", () => {
  it("lists the charges created in a range of Argentina days, oldest first, with the total in X-Total-Count", async () => {
    const own = await linkedMerchant(t);
    const day1 = await own.call("POST", "/payment-request", chargeBody());
    t.clock.advance(24 * 3600 * 1000); // 2026-11-23; the tokens of the day before have expired
    await own.renew();
    await m.renew();
    const day2a = await own.call("POST", "/payment-request", chargeBody({ dueDates: ["2026-12-11"] }));
    t.clock.advance(1000);
    const day2b = await own.call("POST", "/payment-request", chargeBody({ dueDates: ["2026-12-11"] }));
    const all = await own.call("GET", "/payment-request");
    expect(all.headers.get("x-total-count")).toBe("3");
    expect(all.json.map((c: { referenceId: string }) => c.referenceId)).toEqual([day1.json.referenceId, day2a.json.referenceId, day2b.json.referenceId]);
    expect(all.json[0]).toMatchObject({ paidAmount: 0, createdAt: "2026-11-22T15:00:00.000Z", state: "pending" });

    const second = await own.call("GET", "/payment-request?startDate=2026-11-23&endDate=2026-11-23");
    expect(second.json.map((c: { referenceId: string }) => c.referenceId)).toEqual([day2a.json.referenceId, day2b.json.referenceId]);
    const paged = await own.call("GET", "/payment-request?startDate=2026-11-23&limit=1&offset=1");
    expect(paged.headers.get("x-total-count")).toBe("2");
    expect(paged.json.map((c: { referenceId: string }) => c.referenceId)).toEqual([day2b.json.referenceId]);
    expect((await own.call("GET", "/payment-request?startDate=2026-11-24")).json).toEqual([]);
  });

  it("400 ValidationError for a bad date or a reversed range", async () => {
    for (const query of ["startDate=22-11-2026", "startDate=2026-11-23&endDate=2026-11-22", "limit=1001"]) {
      const result = await m.call("GET", `/payment-request?${query}`);
      expect(result.status, query).toBe(400);
      expect(result.json.code).toBe("ValidationError");
    }
  });
});

describe("PATCH /payment-request/{referenceId} (complete a draft)", () => {
  it("gives a draft its amount: pending, with a CVU", async () => {
    const created = await create(draft());
    const result = await m.call("PATCH", `/payment-request/${created.referenceId}`, { amount: 8200.5 });
    expect(result.status).toBe(200);
    expect(result.json).toEqual({
      referenceId: created.referenceId,
      previousAmount: null,
      amount: 8200.5,
      description: "Reparación",
      state: "pending",
      dueDates: ["2026-12-05"],
    });
    const after = await m.call("GET", `/payment-request/${created.referenceId}`);
    expect(after.json.state).toBe("pending");
    expect(after.json.CVU).toMatch(/^\d{22}$/);
    expect(after.json.sendWhatsappNotification).toBe(false);
  });

  it("409 PaymentRequestCannotBeModified with {error, message, data} for a charge that is not a draft", async () => {
    const created = await create(chargeBody());
    const result = await m.call("PATCH", `/payment-request/${created.referenceId}`, { amount: 10 });
    expect(result.status).toBe(409);
    expect(result.json).toEqual({
      error: "PaymentRequestCannotBeModified",
      message: expect.any(String),
      data: { referenceId: created.referenceId, state: "pending", paidAmount: 0 },
    });
  });

  it("400 for a missing, non-positive, over-precise or too large amount; 404 for a missing charge", async () => {
    const created = await create(draft());
    for (const body of [{}, { amount: 0 }, { amount: -1 }, { amount: 1.001 }, { amount: 200000000.01 }]) {
      const result = await m.call("PATCH", `/payment-request/${created.referenceId}`, body);
      expect(result.status, JSON.stringify(body)).toBe(400);
      expect(result.json.validationDetails[0].field).toBe("amount");
    }
    expect((await m.call("PATCH", "/payment-request/NOPE-00000000", { amount: 5 })).json).toEqual(notFound);
  });
});

describe("POST /payment-request/{referenceId}/cancel", () => {
  it("cancels a pending charge and gives its CVU back to the pool", async () => {
    const own = await linkedMerchant(t);
    const first = (await own.call("POST", "/payment-request", chargeBody())).json;
    const canceled = await own.call("POST", `/payment-request/${first.referenceId}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.json).toEqual({ referenceId: first.referenceId, state: "canceled" });
    expect((await own.call("GET", `/payment-request/${first.referenceId}`)).json.state).toBe("canceled");
    const next = (await own.call("POST", "/payment-request", chargeBody())).json;
    expect(next.CVU).toBe(first.CVU);
  });

  it("cancels a draft", async () => {
    const created = await create(draft());
    expect((await m.call("POST", `/payment-request/${created.referenceId}/cancel`)).json.state).toBe("canceled");
  });

  it("409 PaymentRequestCannotBeCanceled for a canceled charge or one with payments; 404 for a missing one", async () => {
    const created = await create(chargeBody());
    await m.call("POST", `/payment-request/${created.referenceId}/cancel`);
    const again = await m.call("POST", `/payment-request/${created.referenceId}/cancel`);
    expect(again.status).toBe(409);
    expect(again.json).toEqual({
      error: "PaymentRequestCannotBeCanceled",
      message: expect.any(String),
      data: { referenceId: created.referenceId, state: "canceled", paidAmount: 0 },
    });

    const paid = await create(chargeBody());
    await t.database.db.updateTable("charges").set({ paid_cents: 50000, state: "partial_payment" }).where("reference_id", "=", paid.referenceId).execute();
    const withPayments = await m.call("POST", `/payment-request/${paid.referenceId}/cancel`);
    expect(withPayments.status).toBe(409);
    expect(withPayments.json.data).toEqual({ referenceId: paid.referenceId, state: "partial_payment", paidAmount: 500 });
    expect((await m.call("POST", "/payment-request/NOPE-00000000/cancel")).json).toEqual(notFound);
  });
});

describe("PATCH /payment-request/{referenceId}/customer", () => {
  const patch = (referenceId: string, body: object, who = m) => who.call("PATCH", `/payment-request/${referenceId}/customer`, body);
  const refusal = (reason: string) => ({ error: "PaymentRequestCustomerCannotBeModified", message: expect.any(String), data: { reason } });

  it("changes the payer and answers the full charge", async () => {
    const created = await create(cuil("20301234563"));
    const result = await patch(created.referenceId, { taxDocument: "20123456786", name: "María Gómez" });
    expect(result.status).toBe(200);
    expect(result.json).toMatchObject({
      referenceId: created.referenceId,
      customer: { name: "María Gómez", taxDocument: "20123456786" },
      CVU: created.CVU,
      state: "pending",
    });
  });

  it("moves the charge to another CVU when the new payer already has an open charge on its CVU", async () => {
    const own = await linkedMerchant(t);
    const a = (await own.call("POST", "/payment-request", cuil("20301234563"))).json;
    const b = (await own.call("POST", "/payment-request", cuil("20123456786"))).json;
    expect(b.CVU).toBe(a.CVU);
    const moved = await patch(b.referenceId, { taxDocument: "30123456" }, own); // the DNI inside 20301234563: the same payer as a
    expect(moved.status).toBe(200);
    expect(moved.json.CVU).not.toBe(a.CVU);
  });

  it("409 conciliation_type_not_cuil for a CVU-mode charge", async () => {
    const created = await create(chargeBody());
    expect((await patch(created.referenceId, { name: "Otro" })).json).toEqual(refusal("conciliation_type_not_cuil"));
  });

  it("409 state_not_modifiable for a charge in a final state", async () => {
    const created = await create(cuil());
    await m.call("POST", `/payment-request/${created.referenceId}/cancel`);
    const result = await patch(created.referenceId, { name: "Otro" });
    expect(result.status).toBe(409);
    expect(result.json).toEqual(refusal("state_not_modifiable"));
  });

  it("409 payment_already_received for a charge with money", async () => {
    const created = await create(cuil());
    await t.database.db.updateTable("charges").set({ paid_cents: 100, state: "partial_payment" }).where("reference_id", "=", created.referenceId).execute();
    expect((await patch(created.referenceId, { name: "Otro" })).json).toEqual(refusal("payment_already_received"));
  });

  // The API never creates a CUIL-mode charge without a document: a stored one without it (written by
  // something other than POST /payment-request) is refused rather than given a payer out of nothing.
  it("409 incomplete_payment_request_data for a CUIL-mode charge with no payer document, and nothing changes", async () => {
    const created = await create(cuil());
    await t.database.db.updateTable("charges").set({ customer_tax_document: null }).where("reference_id", "=", created.referenceId).execute();
    const result = await patch(created.referenceId, { taxDocument: "20123456786", name: "María Gómez" });
    expect(result.status).toBe(409);
    expect(result.json).toEqual(refusal("incomplete_payment_request_data"));
    const row = await t.database.db
      .selectFrom("charges")
      .select(["customer_tax_document", "customer_name"])
      .where("reference_id", "=", created.referenceId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ customer_tax_document: null, customer_name: "Juan Pérez" });
  });

  it("409 missing_notification_contact when a new payer comes without the email its notifications need", async () => {
    const created = await create(
      cuil("20301234563", { sendEmailNotification: true, customer: { name: "Juan", taxDocument: "20301234563", email: "juan@example.com" } }),
    );
    expect((await patch(created.referenceId, { taxDocument: "20123456786" })).json).toEqual(refusal("missing_notification_contact"));
    const withEmail = await patch(created.referenceId, { taxDocument: "20123456786", email: "maria@example.com" });
    expect(withEmail.status).toBe(200);
    expect(withEmail.json.customer.email).toBe("maria@example.com");
  });

  it("409 no_collision_free_account when no CVU of a full pool can hold the new document, and nothing changes", async () => {
    const own = await linkedMerchant(t);
    const a = (await own.call("POST", "/payment-request", cuil("20301234563"))).json;
    const b = (await own.call("POST", "/payment-request", cuil("20123456786"))).json;
    const merchantId = (await own.call("GET", "/me")).json.merchantUserId;
    await t.database.db
      .insertInto("cvu_accounts")
      .values(
        Array.from({ length: 99 }, (_, i) => ({
          merchant_account_id: merchantId,
          cvu: `9${String(i).padStart(4, "0")}${merchantId.replace(/\D/g, "").slice(0, 17).padEnd(17, "0")}`,
          holding: "exclusive" as const,
          open_charges: 1,
        })),
      )
      .execute();
    const result = await patch(b.referenceId, { taxDocument: "20301234563" }, own);
    expect(result.status).toBe(409);
    expect(result.json).toEqual(refusal("no_collision_free_account"));
    const after = (await own.call("GET", `/payment-request/${b.referenceId}`)).json;
    expect(after.customer.taxDocument).toBe("20123456786");
    expect(after.CVU).toBe(a.CVU);
  });

  it("409 concurrent_modification while another request holds the charge", async () => {
    const created = await create(cuil());
    const client = new pg.Client({ connectionString: t.database.connectionString });
    await client.connect();
    try {
      await client.query("begin");
      await client.query("select id from charges where reference_id = $1 for update", [created.referenceId]);
      expect((await patch(created.referenceId, { name: "Otro" })).json).toEqual(refusal("concurrent_modification"));
      await client.query("rollback");
    } finally {
      await client.end();
    }
    expect((await patch(created.referenceId, { name: "Otro" })).status).toBe(200);
  });

  it("400 for an invalid taxDocument or an empty body; 404 for a missing charge", async () => {
    const created = await create(cuil());
    const badDigit = await patch(created.referenceId, { taxDocument: "20301234564" });
    expect(badDigit.status).toBe(400);
    expect(badDigit.json.validationDetails[0].field).toBe("taxDocument");
    expect((await patch(created.referenceId, {})).status).toBe(400);
    expect((await patch(created.referenceId, { nickname: "x" })).json.validationDetails[0].field).toBe("nickname");
    expect((await patch("NOPE-00000000", { name: "Otro" })).json).toEqual(notFound);
  });
});
