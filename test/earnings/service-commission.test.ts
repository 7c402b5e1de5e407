// The platform's service commission, applied to each merchant link of the integration (the backfill):
// true counts, a time budget that a repeated save continues, links held by another transaction counted
// as failed and tried again, `null` ending the deal, and payments split under the deal of their moment.
import pg from "pg";
import { describe, expect, it } from "vitest";
import { serviceForFile } from "../helpers/service.ts";
import { sandboxIntegration, signedInAdmin } from "../helpers/sandbox-admin.ts";
import { chargeBody } from "../helpers/charges.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { createMerchantAccount, linkMerchant } from "../../domain/merchants/merchant-accounts.ts";
import { applyServiceCommission } from "../../domain/earnings/service-commission-backfill.ts";

const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") });

/** A Sandbox integration with `extra` more merchant accounts linked to it (its Sandbox merchant and its test merchant make two). */
async function integrationWithLinks(extra: number) {
  const integration = await sandboxIntegration(t);
  const platform = await signedInAdmin(t, integration.merchant.sandbox.platformAdmin);
  const integrationClientId = (await integration.admin.call("GET", "/my-integration/me")).json.integrationClientId as string;
  for (let index = 0; index < extra; index++) {
    const merchant = await createMerchantAccount(t.database.db, {
      email: `${uniqueRef("comercio")}@example.com`,
      password: "una-clave-de-comercio",
      fantasyName: `Comercio ${index}`,
      accountHolderName: `Titular ${index}`,
      accountHolderTaxId: "20301234563",
    });
    await linkMerchant(t.database.db, integrationClientId, merchant.id, t.clock.now());
  }
  const links = () =>
    t.database.db
      .selectFrom("merchant_links")
      .select(["id", "service_commission_percentage"])
      .where("integration_client_id", "=", integrationClientId)
      .orderBy("id")
      .execute();
  const save = (serviceCommissionPercentage: number | null) =>
    platform.call("PATCH", `/integration-admin/setup/clients/${integrationClientId}`, { serviceCommissionPercentage });
  return { ...integration, platform, integrationClientId, links, save };
}

describe("saving the service commission", () => {
  it("writes it to every link, counts what it did, skips what already carried it, and null ends the deal", async () => {
    const { links, save, createCharge, admin, platform, integrationClientId } = await integrationWithLinks(2);
    const first = await save(0.8);
    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ serviceCommissionPercentage: 0.8, commissionBackfill: { pending: 0, failed: 0, skipped: 0, applied: 4, total: 4 } });
    expect((await links()).map((link) => link.service_commission_percentage)).toEqual(["0.80", "0.80", "0.80", "0.80"]);

    const again = await save(0.8);
    expect(again.json.commissionBackfill).toEqual({ pending: 0, failed: 0, skipped: 4, applied: 0, total: 4 });

    // A payment under the deal, then the deal ends, then another payment.
    const before = await createCharge(chargeBody({ referenceId: uniqueRef("SVC"), amount: 1000 }));
    expect((await admin.simulate({ cvu: before.CVU, amount: 1000 })).status).toBe(200);
    const ended = await save(null);
    expect(ended.json).toMatchObject({ serviceCommissionPercentage: null, commissionBackfill: { pending: 0, failed: 0, skipped: 0, applied: 4, total: 4 } });
    expect((await links()).every((link) => link.service_commission_percentage === null)).toBe(true);
    const after = await createCharge(chargeBody({ referenceId: uniqueRef("SVC"), amount: 500 }));
    expect((await admin.simulate({ cvu: after.CVU, amount: 500 })).status).toBe(200);

    const report = await platform.call("GET", `/integration-admin/earnings?integrationClientId=${integrationClientId}`);
    // $1.000 under 0,8 % ($8), $500 with no deal; the first payment keeps the split it was recorded with.
    expect(report.json.totals).toEqual({
      paymentCount: 2,
      grossAmount: 1500,
      integrationCommissionAmount: 0,
      serviceCommissionAmount: 8,
      merchantNetAmount: 1492,
    });
  });

  it("a link made later takes the deal in force", async () => {
    const { save, links, integrationClientId } = await integrationWithLinks(0);
    await save(1.25);
    const merchant = await createMerchantAccount(t.database.db, {
      email: `${uniqueRef("nuevo")}@example.com`,
      password: "una-clave-de-comercio",
      fantasyName: "Nuevo",
      accountHolderName: "Nuevo",
      accountHolderTaxId: "20301234563",
    });
    await linkMerchant(t.database.db, integrationClientId, merchant.id, t.clock.now());
    expect((await links()).map((link) => link.service_commission_percentage)).toEqual(["1.25", "1.25", "1.25"]);
  });
});

describe("the backfill's time budget and failures", () => {
  it("stops at the budget with the rest pending, and each save continues where the last one stopped", async () => {
    const { integrationClientId } = await integrationWithLinks(1);
    const step = () => applyServiceCommission(t.database.db, integrationClientId, "2.00", { budgetMs: 0, batchSize: 1 });
    expect((await step()).counts).toEqual({ pending: 2, failed: 0, skipped: 0, applied: 1, total: 3 });
    expect((await step()).counts).toEqual({ pending: 1, failed: 0, skipped: 1, applied: 1, total: 3 });
    expect((await step()).counts).toEqual({ pending: 0, failed: 0, skipped: 2, applied: 1, total: 3 });
    expect((await step()).counts).toEqual({ pending: 0, failed: 0, skipped: 3, applied: 0, total: 3 });
  });

  it("counts a link held by another transaction as failed, with the reason, and the next save applies it", async () => {
    const { integrationClientId, links } = await integrationWithLinks(1);
    const [held] = await links();
    const holder = new pg.Client({ connectionString: t.database.connectionString });
    await holder.connect();
    try {
      await holder.query("begin");
      await holder.query("select id from merchant_links where id = $1 for update", [held!.id]);
      const blocked = await applyServiceCommission(t.database.db, integrationClientId, "3.00", { budgetMs: 10_000, batchSize: 1, lockTimeoutMs: 50 });
      expect(blocked.counts).toEqual({ pending: 0, failed: 1, skipped: 0, applied: 2, total: 3 });
      expect(blocked.failures).toEqual([{ links: 1, reason: expect.stringContaining("lock timeout") }]);
      expect((await links()).find((link) => link.id === held!.id)!.service_commission_percentage).toBeNull();
    } finally {
      await holder.query("rollback");
      await holder.end();
    }
    const retried = await applyServiceCommission(t.database.db, integrationClientId, "3.00", { budgetMs: 10_000 });
    expect(retried.counts).toEqual({ pending: 0, failed: 0, skipped: 2, applied: 1, total: 3 });
  });
});
