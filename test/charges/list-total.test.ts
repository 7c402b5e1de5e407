// The list's X-Total-Count: exact up to 1,000 charges in the range, above it a count remembered for 60 s;
// paging a range larger than the bound reads every charge once, whatever the total says.
import { beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import { linkedMerchant, serviceForFile } from "../helpers/service.ts";
import { chargeBody } from "../helpers/charges.ts";
import { seedPendingCharges } from "../../bench/fixtures/seeded-charges.ts";
import { COUNT_REMEMBERED_MS, EXACT_COUNT_UP_TO } from "../../domain/charges/charge-list-counts.ts";

const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") });
type Merchant = Awaited<ReturnType<typeof linkedMerchant>>;

/** `count` charges of the merchant created on 2026-11-20 (Argentina), referenceIds `<prefix><n>` from `from`; and one created today. */
async function seedOn20th(merchant: Merchant, prefix: string, count: number, from = 1): Promise<void> {
  // The token's merchant account (the integration's test merchant), read from a charge it creates today.
  const created = await merchant.call("POST", "/payment-request", chargeBody());
  const { integrationClientId, merchantAccountId } = await t.database.db
    .selectFrom("charges")
    .select(["integration_client_id as integrationClientId", "merchant_account_id as merchantAccountId"])
    .where("id", "=", created.json.paymentRequestId)
    .executeTakeFirstOrThrow();
  await seedPendingCharges(t.database.db, { integrationClientId, merchantAccountId, count, referencePrefix: prefix, from });
  await sql`update charges set created_at = '2026-11-20T15:00:00Z' where merchant_account_id = ${merchantAccountId} and reference_id like ${`${prefix}%`}`.execute(
    t.database.db,
  );
}

const ON_20TH = "/payment-request?startDate=2026-11-20&endDate=2026-11-20";
const totalOf = (result: { headers: Headers }) => ({ total: result.headers.get("x-total-count"), exact: result.headers.get("x-total-count-exact") });

describe("GET /payment-request: X-Total-Count", () => {
  let m: Merchant;
  beforeAll(async () => {
    m = await linkedMerchant(t);
  });

  it("is exact (X-Total-Count-Exact: true) on each request while the range holds at most 1,000 charges", async () => {
    const small = await linkedMerchant(t);
    expect(totalOf(await small.call("GET", "/payment-request"))).toEqual({ total: "0", exact: "true" });
    await seedOn20th(small, "EXACT-", EXACT_COUNT_UP_TO - 1);
    // 999 on the 20th, and the one created today outside that range: each range counted at once.
    expect(totalOf(await small.call("GET", `${ON_20TH}&limit=5`))).toEqual({ total: "999", exact: "true" });
    expect(totalOf(await small.call("GET", "/payment-request?limit=5"))).toEqual({ total: "1000", exact: "true" });
    await seedOn20th(small, "EXACT-", 1, EXACT_COUNT_UP_TO);
    expect(totalOf(await small.call("GET", `${ON_20TH}&limit=5`))).toEqual({ total: "1000", exact: "true" });
    // One past the bound (1,000 on the 20th and 2 today): a count of the whole range, no longer exact.
    expect(totalOf(await small.call("GET", "/payment-request?limit=5"))).toEqual({ total: "1002", exact: "false" });
  });

  it("above 1,000 is the whole range's count, answered unchanged for 60 s (X-Total-Count-Exact: false), then counted again", async () => {
    await seedOn20th(m, "BIG-", EXACT_COUNT_UP_TO + 1);
    expect(totalOf(await m.call("GET", `${ON_20TH}&limit=10`))).toEqual({ total: "1001", exact: "false" });
    await seedOn20th(m, "BIG-", 5, EXACT_COUNT_UP_TO + 2);
    const later = await m.call("GET", `${ON_20TH}&limit=10&offset=1000`);
    expect(totalOf(later)).toEqual({ total: "1001", exact: "false" });
    // The page itself is read now: the 6 charges past the first 1,000.
    expect(later.json).toHaveLength(6);
    // Another range of the same charges is another count, taken now.
    expect(totalOf(await m.call("GET", "/payment-request?startDate=2026-11-19&endDate=2026-11-20&limit=1"))).toEqual({ total: "1006", exact: "false" });

    t.clock.advance(COUNT_REMEMBERED_MS - 1000);
    expect(totalOf(await m.call("GET", `${ON_20TH}&limit=1`))).toEqual({ total: "1001", exact: "false" });
    t.clock.advance(1000);
    expect(totalOf(await m.call("GET", `${ON_20TH}&limit=1`))).toEqual({ total: "1006", exact: "false" });
  });

  it("is the token's merchant account's own: another merchant's same range is counted for it", async () => {
    const other = await linkedMerchant(t);
    expect(totalOf(await other.call("GET", `${ON_20TH}&limit=1`))).toEqual({ total: "0", exact: "true" });
  });

  it("pages of a range above the bound read every charge once, until a short page", async () => {
    const own = await linkedMerchant(t);
    await seedOn20th(own, "PAGE-", EXACT_COUNT_UP_TO + 6);
    const seen: Array<{ referenceId: string; createdAt: string }> = [];
    for (let offset = 0; ; offset += 300) {
      const page = await own.call("GET", `${ON_20TH}&limit=300&offset=${offset}`);
      expect(page.status).toBe(200);
      seen.push(...page.json);
      if (page.json.length < 300) break;
    }
    const references = seen.map((charge) => charge.referenceId);
    expect(new Set(references).size).toBe(references.length);
    expect(new Set(references)).toEqual(new Set(Array.from({ length: EXACT_COUNT_UP_TO + 6 }, (_, n) => `PAGE-${n + 1}`)));
    expect(seen.every((charge) => charge.createdAt === "2026-11-20T15:00:00.000Z")).toBe(true);
  });
});
