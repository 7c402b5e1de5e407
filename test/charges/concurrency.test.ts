// What must hold under real parallel requests: the CVU pool, one payer per CVU, the daily message caps.
import { describe, expect, it } from "vitest";
import pg from "pg";
import { bearerCaller, linkedMerchant, serviceForFile, startTestService } from "../helpers/service.ts";
import { chargeBody, draftChargeBody } from "../helpers/charges.ts";
import { exchangeCode, obtainCode } from "../helpers/oauth.ts";

const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") });

const withChat = () =>
  chargeBody({ sendWhatsappNotification: true, customer: { name: "Juan Pérez", phoneNumber: { countryCode: "+54", number: "91123456789" } } });
const cuil = (taxDocument: string) => chargeBody({ conciliationType: "cuil", customer: { name: "Pagador", taxDocument } });

async function fillPool(merchantId: string, count: number) {
  await t.database.db
    .insertInto("cvu_accounts")
    .values(
      Array.from({ length: count }, (_, i) => ({
        merchant_account_id: merchantId,
        cvu: `8${String(i).padStart(4, "0")}${merchantId.replace(/\D/g, "").slice(0, 17).padEnd(17, "0")}`,
        holding: "exclusive" as const,
        open_charges: 1,
      })),
    )
    .execute();
}

describe("the CVU pool", () => {
  it("simultaneous creates for one payer never put the payer twice on one CVU; a collision is 409 CustomerAlreadyAssociatedError", async () => {
    const m = await linkedMerchant(t);
    expect((await m.call("POST", "/payment-request", cuil("20123456786"))).status).toBe(201); // a shared CVU exists
    const results = await Promise.all(Array.from({ length: 8 }, () => m.call("POST", "/payment-request", cuil("20301234563"))));
    for (const result of results) {
      if (result.status !== 201) {
        expect(result.status).toBe(409);
        expect(result.json).toEqual({ code: "CustomerAlreadyAssociatedError", message: expect.any(String), id: expect.any(String) });
      }
    }
    const created = results.filter((r) => r.status === 201).map((r) => r.json.CVU as string);
    expect(created.length).toBeGreaterThan(0);
    expect(new Set(created).size).toBe(created.length);
  });

  it("the last free CVU goes to exactly one of five simultaneous CVU-mode creates; the rest get 400 InsufficientActiveAccountsError", async () => {
    const m = await linkedMerchant(t);
    await fillPool((await m.call("GET", "/me")).json.merchantUserId, 99);
    const results = await Promise.all(Array.from({ length: 5 }, () => m.call("POST", "/payment-request", chargeBody())));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const refused of results.filter((r) => r.status !== 201)) {
      expect(refused.status).toBe(400);
      expect(refused.json).toEqual({ code: "InsufficientActiveAccountsError", message: expect.any(String), id: expect.any(String) });
    }
    // Drafts take no CVU.
    expect((await m.call("POST", "/payment-request", draftChargeBody({ description: "Borrador", customer: { name: "A B" } }))).status).toBe(201);
  });

  it("is the merchant account's, shared by all its integrations: a CVU taken through one is not free for another", async () => {
    const [first, second] = await Promise.all([t.sandbox(), t.sandbox()]);
    // One merchant account (the first set's) links itself to both integrations.
    const callAs = async (integration: typeof first.integration) => {
      const tokens = await exchangeCode(t.authUrl, integration, await obtainCode(t.authUrl, integration, first.merchant));
      expect(tokens.status, tokens.text).toBe(200);
      return bearerCaller(t.integrationUrl, () => tokens.json.idToken);
    };
    const [viaFirst, viaSecond] = [await callAs(first.integration), await callAs(second.integration)];
    const merchantId = (await viaFirst("GET", "/me")).json.merchantUserId;
    expect((await viaSecond("GET", "/me")).json.merchantUserId).toBe(merchantId);
    await fillPool(merchantId, 99);

    const last = await viaFirst("POST", "/payment-request", chargeBody());
    expect(last.status).toBe(201);
    const refused = await viaSecond("POST", "/payment-request", chargeBody());
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({ code: "InsufficientActiveAccountsError", message: expect.any(String), id: expect.any(String) });

    // Closed through the first integration, the CVU is free for the second.
    expect((await viaFirst("POST", `/payment-request/${last.json.referenceId}/cancel`)).status).toBe(200);
    const reused = await viaSecond("POST", "/payment-request", chargeBody());
    expect(reused.status).toBe(201);
    expect(reused.json.CVU).toBe(last.json.CVU);
  });

  it("CUIL-mode charges of distinct payers share one CVU", async () => {
    const m = await linkedMerchant(t);
    const a = await m.call("POST", "/payment-request", cuil("20301234563"));
    const b = await m.call("POST", "/payment-request", cuil("20123456786"));
    const c = await m.call("POST", "/payment-request", chargeBody());
    expect(b.json.CVU).toBe(a.json.CVU);
    expect(c.json.CVU).not.toBe(a.json.CVU);
  });
});

describe("the daily chat-message cap", () => {
  it("25 simultaneous creates with chat notifications in the Sandbox: exactly 20 are created, 5 get 429", async () => {
    const m = await linkedMerchant(t);
    const results = await Promise.all(Array.from({ length: 25 }, () => m.call("POST", "/payment-request", withChat())));
    expect(results.filter((r) => r.status === 201)).toHaveLength(20);
    const refused = results.filter((r) => r.status === 429);
    expect(refused).toHaveLength(5);
    expect(refused[0]!.json).toEqual({
      code: "IntegrationDailyRequestLimitExceededError",
      message: expect.any(String),
      availableAt: "2026-11-23T00:00:00-03:00",
      maxRequestsPerDay: 20,
      maxMessagesPerDay: 20,
    });
    // Charges without chat notifications do not count.
    expect((await m.call("POST", "/payment-request", chargeBody())).status).toBe(201);
  });

  it("503 IntegrationDailyLimitUnavailableError when the counter cannot be read; nothing is created", async () => {
    const m = await linkedMerchant(t);
    expect((await m.call("POST", "/payment-request", withChat())).status).toBe(201);
    const client = new pg.Client({ connectionString: t.database.connectionString });
    await client.connect();
    try {
      await client.query("begin");
      await client.query("select * from daily_message_usage where scope like 'integration:%' for update");
      const body = withChat();
      const result = await m.call("POST", "/payment-request", body);
      expect(result.status).toBe(503);
      expect(result.json).toEqual({ code: "IntegrationDailyLimitUnavailableError", message: expect.any(String), id: expect.any(String) });
      await client.query("rollback");
      expect((await m.call("GET", `/payment-request/${body.referenceId}`)).status).toBe(404);
    } finally {
      await client.end();
    }
  });
});

describe("the global daily message cap", () => {
  it("429 IntegrationGlobalDailyMessageLimitExceededError across integrations, reset at 00:00 Argentina time", async () => {
    const small = await startTestService({ start: new Date("2026-11-22T15:00:00Z"), env: { COBRO_GLOBAL_DAILY_MESSAGE_CAP: "2" } });
    try {
      const a = await linkedMerchant(small);
      const b = await linkedMerchant(small);
      expect((await a.call("POST", "/payment-request", withChat())).status).toBe(201);
      expect((await b.call("POST", "/payment-request", withChat())).status).toBe(201);
      const refused = await a.call("POST", "/payment-request", withChat());
      expect(refused.status).toBe(429);
      expect(refused.json).toEqual({
        code: "IntegrationGlobalDailyMessageLimitExceededError",
        message: expect.any(String),
        requestedMessages: 1,
        availableAtUnixSeconds: Date.parse("2026-11-23T03:00:00Z") / 1000,
      });
      small.clock.set(new Date("2026-11-23T03:00:00Z"));
      await a.renew();
      expect((await a.call("POST", "/payment-request", withChat())).status).toBe(201);
    } finally {
      await small.close();
    }
  });
});
