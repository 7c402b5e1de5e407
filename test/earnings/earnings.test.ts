// The money of each payment, recorded when it arrives and reported to each admin: the integration its
// commissions (JSON and CSV), the platform every part. Amounts are checked to the cent.
import { describe, expect, it } from "vitest";
import { bearerCaller, serviceForFile } from "../helpers/service.ts";
import { sandboxAdmin, signedInAdmin } from "../helpers/sandbox-admin.ts";
import { chargeBody } from "../helpers/charges.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") });

/**
 * An integration whose test merchant linked after the integration offered 1,5 % + $25 per payment, under a
 * platform deal of 0,8 %; it received $1.000 in full and $333,33 in two payments ($100 and $233,33).
 */
async function integrationWithPayments() {
  const sandbox = await t.sandbox();
  const admin = await sandboxAdmin(t, sandbox);
  const platform = await signedInAdmin(t, sandbox.platformAdmin);
  const integrationClientId = (await admin.call("GET", "/my-integration/me")).json.integrationClientId as string;
  expect((await platform.call("PATCH", `/integration-admin/setup/clients/${integrationClientId}`, { serviceCommissionPercentage: 0.8 })).status).toBe(200);
  expect((await admin.call("PUT", "/my-integration/offer", { percentage: 1.5, fixedAmount: 25 })).status).toBe(200);
  const tokens = await admin.call("POST", "/my-integration/test-tokens");
  const merchant = bearerCaller(t.integrationUrl, () => tokens.json.idToken);
  const create = async (amount: number) => {
    const created = await merchant("POST", "/payment-request", chargeBody({ referenceId: uniqueRef("EARN"), amount }));
    expect(created.status).toBe(201);
    return created.json;
  };
  const full = await create(1000);
  const split = await create(333.33);
  for (const [cvu, amount] of [
    [full.CVU, 1000],
    [split.CVU, 100],
    [split.CVU, 233.33],
  ] as const) {
    expect((await admin.simulate({ cvu, amount })).status).toBe(200);
  }
  return { admin, platform, integrationClientId, full, split };
}

describe("the integration's earnings", () => {
  it("shows each payment's commission under the terms the merchant accepted, with totals that add up", async () => {
    const { admin, full, split } = await integrationWithPayments();
    const report = await admin.call("GET", "/my-integration/earnings");
    expect(report.status).toBe(200);
    expect(report.json).toMatchObject({ startDate: "2026-11-01", endDate: "2026-11-22", total: 3, limit: 20, offset: 0 });
    // 1,5 % + $25: $1.000 → $40; $100 → $26,50; $233,33 → $3,49995 rounds to $3,50, + $25 = $28,50.
    expect(report.json.totals).toEqual({ paymentCount: 3, grossAmount: 1333.33, commissionAmount: 95 });
    const byAmount = Object.fromEntries(report.json.items.map((item: { grossAmount: number }) => [item.grossAmount, item]));
    expect(byAmount[1000]).toMatchObject({
      paymentRequestId: full.paymentRequestId,
      referenceId: full.referenceId,
      commissionPercentage: 1.5,
      commissionFixedAmount: 25,
      commissionAmount: 40,
    });
    expect(byAmount[100]).toMatchObject({ paymentRequestId: split.paymentRequestId, commissionAmount: 26.5 });
    expect(byAmount[233.33]).toMatchObject({ paymentRequestId: split.paymentRequestId, commissionAmount: 28.5 });
    expect(report.json.items[0]).not.toHaveProperty("serviceCommissionAmount");
    expect(JSON.stringify(report.json)).not.toMatch(/service/i);

    const paged = await admin.call("GET", "/my-integration/earnings?limit=2&offset=2");
    expect(paged.json.items).toHaveLength(1);
    expect(paged.json.totals.paymentCount).toBe(3);
    const otherDays = await admin.call("GET", "/my-integration/earnings?startDate=2026-10-01&endDate=2026-10-31");
    expect(otherDays.json).toMatchObject({ totals: { paymentCount: 0, grossAmount: 0, commissionAmount: 0 }, items: [], total: 0 });
  });

  it("exports the range as CSV, oldest payment first", async () => {
    const { admin, full } = await integrationWithPayments();
    const csv = await admin.call("GET", "/my-integration/earnings/csv?startDate=2026-11-22&endDate=2026-11-22");
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(csv.headers.get("content-disposition")).toBe('attachment; filename="cobro-comisiones-2026-11-22-2026-11-22.csv"');
    const lines = csv.text.split("\r\n");
    expect(lines[0]).toBe(
      "paymentId,receivedAt,paymentRequestId,referenceId,merchantUserId,merchantName,grossAmount,commissionPercentage,commissionFixedAmount,commissionAmount",
    );
    expect(lines).toHaveLength(5); // the header, three payments, and the final line break
    expect(lines[4]).toBe("");
    const amounts = lines.slice(1, 4).map((line) => line.split(",").slice(6));
    expect(amounts).toContainEqual(["1000.00", "1.50", "25.00", "40.00"]);
    expect(amounts).toContainEqual(["233.33", "1.50", "25.00", "28.50"]);
    expect(lines.slice(1, 4).some((line) => line.includes(full.referenceId))).toBe(true);
  });
});

describe("the platform's earnings", () => {
  it("splits every payment into the integration's commission, the platform's and the merchant's net, to the cent", async () => {
    const { platform, integrationClientId } = await integrationWithPayments();
    const report = await platform.call("GET", `/integration-admin/earnings?integrationClientId=${integrationClientId}`);
    expect(report.status).toBe(200);
    // 0,8 %: $8 + $0,80 + $1,86664 → $1,87 = $10,67; the merchants keep $952 + $72,70 + $202,96 = $1.227,66.
    const expected = { paymentCount: 3, grossAmount: 1333.33, integrationCommissionAmount: 95, serviceCommissionAmount: 10.67, merchantNetAmount: 1227.66 };
    expect(report.json.totals).toEqual(expected);
    expect(report.json.items).toEqual([{ integrationClientId, integrationName: expect.any(String), ...expected }]);
    expect(report.json.total).toBe(1);

    const everyone = await platform.call("GET", "/integration-admin/earnings?limit=100");
    const { totals } = everyone.json;
    expect(Math.round(totals.grossAmount * 100)).toBe(
      Math.round((totals.integrationCommissionAmount + totals.serviceCommissionAmount + totals.merchantNetAmount) * 100),
    );
  });
});

describe("the earnings reports' errors", () => {
  it("refuses a range backwards, too long or not a date with 400, and the wrong role with 403", async () => {
    const sandbox = await t.sandbox();
    const admin = await sandboxAdmin(t, sandbox);
    const platform = await signedInAdmin(t, sandbox.platformAdmin);
    for (const query of ["startDate=2026-11-10&endDate=2026-11-01", "startDate=2025-01-01&endDate=2026-11-01", "startDate=2026-02-30", "endDate=2026-13-01"]) {
      for (const path of [`/my-integration/earnings?${query}`, `/my-integration/earnings/csv?${query}`]) {
        const refused = await admin.call("GET", path);
        expect(refused.status, path).toBe(400);
        expect(refused.json).toMatchObject({ code: "ValidationError", validationDetails: [expect.objectContaining({ field: expect.any(String) })] });
      }
      expect((await platform.call("GET", `/integration-admin/earnings?${query}`)).status).toBe(400);
    }
    expect((await platform.call("GET", "/integration-admin/earnings?integrationClientId=not-a-uuid")).status).toBe(400);
    const wrongRole = await admin.call("GET", "/integration-admin/earnings");
    expect(wrongRole.status).toBe(403);
    expect(wrongRole.json.code).toBe("ForbiddenError");
    expect((await platform.call("GET", "/my-integration/earnings")).status).toBe(403);
  });
});
