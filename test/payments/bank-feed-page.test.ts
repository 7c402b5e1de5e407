// The bank feed's pages (`POST /internal/bank-feed/transfers/batch`): up to 1,000 signed transfers at once,
// each answered as the single transfer would be, in the page's order; a page refused whole when it breaks
// the contract; a transfer the database refuses on its own answered apart while the others are applied.
import { createHmac } from "node:crypto";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chargeBody } from "../helpers/charges.ts";
import { metricValue } from "../helpers/metrics.ts";
import { linkedMerchant, read, serviceForFile } from "../helpers/service.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

const SECRET = "bank-feed-secret-for-tests-0123456789";
const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z"), env: { COBRO_BANK_FEED_SECRET: SECRET } });
const OPERATED_AT = "2026-11-22T12:30:00-03:00";
const NOBODYS_CVU = "0000253200000099999995";

function sign(body: string, secret = SECRET, at = t.clock.now()): string {
  const timestamp = Math.floor(at.getTime() / 1000);
  return `t=${timestamp},v1=${createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex")}`;
}

async function postPage(body: unknown, signature: ((raw: string) => string) | null = (raw) => sign(raw)) {
  const raw = JSON.stringify(body);
  return read(
    await fetch(`${t.adminUrl}/internal/bank-feed/transfers/batch`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(signature ? { "x-bank-feed-signature": signature(raw) } : {}) },
      body: raw,
    }),
  );
}

const transfer = (receivingCvu: string, amount: number, extra: object = {}) => ({
  transactionId: uniqueRef("BNK"),
  amount,
  receivingCvu,
  operatedAt: OPERATED_AT,
  ...extra,
});

const ERROR_BODY = { code: expect.any(String), message: expect.any(String), id: expect.any(String) };

describe("refused whole", () => {
  it.each([
    ["no signature", null],
    ["another secret", (raw: string) => sign(raw, "another-secret-entirely-000000000")],
    ["a stale timestamp", (raw: string) => sign(raw, SECRET, new Date(t.clock.now().getTime() - 10 * 60 * 1000))],
    ["a body changed after signing", (raw: string) => sign(raw.replace('"amount":1', '"amount":2'))],
  ])("401 BankFeedSignatureError with %s", async (_what, signature) => {
    const result = await postPage({ transfers: [transfer(NOBODYS_CVU, 1)] }, signature);
    expect(result.status).toBe(401);
    expect(result.json).toEqual({ code: "BankFeedSignatureError", message: expect.any(String), id: expect.any(String) });
  });

  it("400 ValidationError for more than 1,000 transfers (maxItems), recording none", async () => {
    const transfers = Array.from({ length: 1001 }, () => transfer(NOBODYS_CVU, 1));
    const result = await postPage({ transfers });
    expect(result.status).toBe(400);
    expect(result.json).toEqual({
      code: "ValidationError",
      message: expect.any(String),
      id: expect.any(String),
      validationDetails: [expect.objectContaining({ field: "transfers", rule: "maxItems", limit: 1000, message: expect.any(String) })],
    });
    expect(await recorded(transfers.map((x) => x.transactionId))).toBe(0);
  });

  it("a page of exactly 1,000 transfers with every field filled is taken whole (within the 1 MiB body limit)", async () => {
    const transfers = Array.from({ length: 1000 }, () =>
      transfer(NOBODYS_CVU, 12345.67, {
        senderCuil: "20301234563",
        senderCvu: "0000003100000000000017",
        senderName: "Juan Ignacio Pérez Fernández de la Vega",
      }),
    );
    const result = await postPage({ transfers });
    expect(result.status, result.text.slice(0, 300)).toBe(200);
    expect(result.json).toMatchObject({ recorded: 1000, duplicate: 0, matched: 0, unmatched: 1000, failed: 0 });
    expect(result.json.results.map((r: { index: number }) => r.index)).toEqual(transfers.map((_, index) => index));
  });

  it("400 ValidationError for an empty page (minItems)", async () => {
    const result = await postPage({ transfers: [] });
    expect(result.status).toBe(400);
    expect(result.json).toEqual({
      code: "ValidationError",
      message: expect.any(String),
      id: expect.any(String),
      validationDetails: [expect.objectContaining({ field: "transfers", rule: "minItems", limit: 1 })],
    });
  });

  it("400 ValidationError naming the bad transfer by its index; the page's good transfers are not recorded", async () => {
    const good = transfer(NOBODYS_CVU, 10);
    const result = await postPage({ transfers: [good, transfer("123", 10), transfer(NOBODYS_CVU, 0.001)] });
    expect(result.status).toBe(400);
    expect(result.json).toMatchObject({ code: "ValidationError", id: expect.any(String), message: expect.any(String) });
    const fields = (result.json.validationDetails as { field: string; rule: string }[]).map((d) => [d.field, d.rule]);
    expect(fields).toContainEqual(["transfers[1].receivingCvu", expect.any(String)]);
    expect(await recorded([good.transactionId])).toBe(0);
  });

  it("400 ValidationError for a field the transfer does not take", async () => {
    const result = await postPage({ transfers: [{ ...transfer(NOBODYS_CVU, 1), reference: "x" }] });
    expect(result.status).toBe(400);
    expect(result.json.validationDetails).toEqual([expect.objectContaining({ field: "transfers[0].reference", rule: "notAccepted" })]);
  });
});

const eventsOf = (chargeId: string) =>
  t.database.db.selectFrom("events").select(["type", "payload"]).where("charge_id", "=", chargeId).orderBy("log_position").execute();

const chargeNow = (id: string) => t.database.db.selectFrom("charges").select(["state", "paid_cents"]).where("id", "=", id).executeTakeFirstOrThrow();

async function recorded(transactionIds: string[]): Promise<number> {
  const { n } = await t.database.db
    .selectFrom("transfers")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("transaction_id", "in", transactionIds)
    .executeTakeFirstOrThrow();
  return Number(n);
}

describe("each transfer answered, in the page's order", () => {
  it("matched, a partial then the rest of one charge (partial_payment then total_payment), unmatched with its reason, a duplicate within the page", async () => {
    const m = await linkedMerchant(t);
    const whole = (await m.call("POST", "/payment-request", chargeBody({ referenceId: uniqueRef("PAGE"), customer: { name: "Ana" }, amount: 500 }))).json;
    const split = (await m.call("POST", "/payment-request", chargeBody({ referenceId: uniqueRef("PAGE"), customer: { name: "Beto" }, amount: 1000 }))).json;
    const paying = transfer(whole.CVU, 500, { senderCuil: "20301234563", senderName: "Ana" });
    const partial = transfer(split.CVU, 400);
    const rest = transfer(split.CVU, 600);
    const stranger = transfer(NOBODYS_CVU, 77);
    const transfers = [paying, partial, stranger, { ...paying, amount: 1 }, rest];

    const page = await postPage({ transfers });
    expect(page.status, page.text).toBe(200);
    expect(page.json).toEqual({
      recorded: 4,
      duplicate: 1,
      matched: 3,
      unmatched: 1,
      failed: 0,
      results: [
        {
          index: 0,
          transactionId: paying.transactionId,
          outcome: "recorded",
          transferId: expect.any(String),
          conciliated: true,
          paymentRequestId: whole.paymentRequestId,
        },
        {
          index: 1,
          transactionId: partial.transactionId,
          outcome: "recorded",
          transferId: expect.any(String),
          conciliated: true,
          paymentRequestId: split.paymentRequestId,
        },
        {
          index: 2,
          transactionId: stranger.transactionId,
          outcome: "recorded",
          transferId: expect.any(String),
          conciliated: false,
          unmatchedReason: "no_pending",
        },
        { index: 3, transactionId: paying.transactionId, outcome: "duplicate", transferId: page.json.results[0].transferId, conciliated: true },
        {
          index: 4,
          transactionId: rest.transactionId,
          outcome: "recorded",
          transferId: expect.any(String),
          conciliated: true,
          paymentRequestId: split.paymentRequestId,
        },
      ],
    });

    expect(await chargeNow(whole.paymentRequestId)).toEqual({ state: "total_payment", paid_cents: 50000 });
    expect(await chargeNow(split.paymentRequestId)).toEqual({ state: "total_payment", paid_cents: 100000 });
    // In the event log's order (the list by API shows events of one instant in no set order).
    const ofSplit = await eventsOf(split.paymentRequestId);
    expect(ofSplit.map((e) => [e.type, e.payload])).toEqual([
      [
        "payment_request.payment_received",
        expect.objectContaining({ stateType: "partial_payment", thisPaymentAmount: 400, paidAmount: 400, remainingAmount: 600 }),
      ],
      [
        "payment_request.payment_received",
        expect.objectContaining({ stateType: "total_payment", thisPaymentAmount: 600, paidAmount: 1000, remainingAmount: 0 }),
      ],
    ]);
    expect((await eventsOf(whole.paymentRequestId)).map((e) => e.type)).toEqual(["payment_request.payment_received"]);
  });

  it("the same page again answers every transfer duplicate with its first transfer id, and changes nothing", async () => {
    const m = await linkedMerchant(t);
    const charge = (await m.call("POST", "/payment-request", chargeBody({ referenceId: uniqueRef("PAGE"), customer: { name: "Ana" }, amount: 300 }))).json;
    const transfers = [transfer(charge.CVU, 300), transfer(NOBODYS_CVU, 5)];
    const first = await postPage({ transfers });
    expect(first.status, first.text).toBe(200);
    const again = await postPage({ transfers });
    expect(again.status, again.text).toBe(200);
    expect(again.json).toEqual({
      recorded: 0,
      duplicate: 2,
      matched: 0,
      unmatched: 0,
      failed: 0,
      results: [
        { index: 0, transactionId: transfers[0]!.transactionId, outcome: "duplicate", transferId: first.json.results[0].transferId, conciliated: true },
        {
          index: 1,
          transactionId: transfers[1]!.transactionId,
          outcome: "duplicate",
          transferId: first.json.results[1].transferId,
          conciliated: false,
          unmatchedReason: "no_pending",
        },
      ],
    });
    expect(await chargeNow(charge.paymentRequestId)).toEqual({ state: "total_payment", paid_cents: 30000 });
  });

  it("counts each transfer as the single transfer does: matched and unmatched by reason, a duplicate not again", async () => {
    const m = await linkedMerchant(t);
    const charge = (await m.call("POST", "/payment-request", chargeBody({ referenceId: uniqueRef("PAGE"), customer: { name: "Ana" }, amount: 250 }))).json;
    const received = (labels: Record<string, string>) => metricValue(t, "cobro_transfers_received_total", labels);
    const reads = {
      matched: () => received({ source: "bank-feed", result: "matched" }),
      noPending: () => received({ source: "bank-feed", result: "unmatched", reason: "no_pending" }),
      cents: () => metricValue(t, "cobro_transfers_matched_cents_total", { source: "bank-feed" }),
    };
    const before = { matched: await reads.matched(), noPending: await reads.noPending(), cents: await reads.cents() };
    const paying = transfer(charge.CVU, 250);
    const page = await postPage({ transfers: [paying, transfer(NOBODYS_CVU, 3), paying] });
    expect(page.status, page.text).toBe(200);
    expect({
      matched: (await reads.matched()) - before.matched,
      noPending: (await reads.noPending()) - before.noPending,
      cents: (await reads.cents()) - before.cents,
    }).toEqual({
      matched: 1,
      noPending: 1,
      cents: 25000,
    });
  });
});

describe("a transfer the database refuses on its own", () => {
  // The database itself refuses one transaction id (as it would a value it cannot store), so the page's
  // statements fail for that transfer alone.
  beforeAll(async () => {
    await sql`
      create function refuse_test_transfer() returns trigger language plpgsql as $$
      begin
        if new.transaction_id like 'REFUSED-%' then raise exception 'refused for the test' using errcode = '23514'; end if;
        return new;
      end $$`.execute(t.database.db);
    await sql`create trigger refuse_test_transfer before insert on transfers for each row execute function refuse_test_transfer()`.execute(t.database.db);
  });
  afterAll(async () => {
    await sql`drop trigger if exists refuse_test_transfer on transfers`.execute(t.database.db);
    await sql`drop function if exists refuse_test_transfer()`.execute(t.database.db);
  });

  it("is answered failed with an error in the general shape; the others are applied, in order", async () => {
    const m = await linkedMerchant(t);
    const charge = (await m.call("POST", "/payment-request", chargeBody({ referenceId: uniqueRef("PAGE"), customer: { name: "Ana" }, amount: 1000 }))).json;
    const refused = transfer(charge.CVU, 100, { transactionId: uniqueRef("REFUSED") });
    const transfers = [transfer(charge.CVU, 400), refused, transfer(charge.CVU, 600)];
    const page = await postPage({ transfers });
    expect(page.status, page.text).toBe(200);
    expect(page.json).toMatchObject({ recorded: 2, duplicate: 0, matched: 2, unmatched: 0, failed: 1 });
    expect(page.json.results[1]).toEqual({
      index: 1,
      transactionId: refused.transactionId,
      outcome: "failed",
      error: { ...ERROR_BODY, code: "InternalError" },
    });
    expect(page.json.results.map((r: { outcome: string }) => r.outcome)).toEqual(["recorded", "failed", "recorded"]);
    expect(await chargeNow(charge.paymentRequestId)).toEqual({ state: "total_payment", paid_cents: 100000 });
    expect(await recorded([refused.transactionId])).toBe(0);
  });
});
