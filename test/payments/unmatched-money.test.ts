// Money no charge took is recorded as an unmatched payment with the transfer itself (reconcile-batch.ts's
// last statement): a whole unmatched transfer with its reason and the integration told of it, an
// overpayment's excess as `overpaid`, a transfer to a CVU nobody held as the platform's. The migration
// that introduced the resource rebuilds the same rows from what was recorded before it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMigrator, migrateToLatest } from "../../db/migrate.ts";
import { migrations } from "../../db/migrations/index.ts";
import type { IncomingTransfer, ReconciliationOutcome } from "../../domain/reconciliation/reconcile.ts";
import { reconcileBatch, type BatchOutcome } from "../../domain/reconciliation/reconcile-batch.ts";
import { getUnmatchedPayment, listUnmatchedPayments, type UnmatchedPaymentScope } from "../../domain/reconciliation/unmatched-payments.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { asIntegration, cancelSeeded, seedCharge, seedIntegration, seedMerchant, type ReconciliationWorld } from "../helpers/reconciliation-world.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

const NOW = new Date("2026-11-22T15:00:00Z"); // 12:00 in Argentina
const RECEIVED = new Date("2026-11-22T18:00:00Z");
const LATE = new Date("2026-12-11T15:00:00Z"); // past the first due date: the surcharge applies
const options = { receivedAt: RECEIVED, livemode: false };
const NOBODYS_CVU = "0000999000000000000077";

let database: TestDatabase;
let integrationClientId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  integrationClientId = await seedIntegration(database.db);
});
afterAll(async () => database?.close());

const world = () => seedMerchant(database.db, integrationClientId, NOW);

const charge = (w: ReconciliationWorld, extra: object = {}) =>
  seedCharge(w, NOW, {
    referenceId: uniqueRef("REF"),
    description: "Cuota",
    amount: 1000,
    dueDates: ["2026-12-10", "2026-12-20"],
    surcharge: { type: "fixed", value: 100 },
    customer: { name: "Juan Pérez" },
    sendWhatsappNotification: false,
    sendEmailNotification: false,
    ...extra,
  } as never);

function transfer(cvu: string, amount: number, extra: Partial<IncomingTransfer> = {}): IncomingTransfer {
  return { transactionId: uniqueRef("tx"), amountCents: Math.round(amount * 100), receivingCvu: cvu, operatedAt: NOW, source: "bank-feed", ...extra };
}

function fulfilled(outcomes: BatchOutcome[]): ReconciliationOutcome[] {
  return outcomes.map((outcome) => {
    if (outcome.status === "rejected") throw outcome.reason;
    return outcome.value;
  });
}

const unmatchedOf = (transferIds: string[]) =>
  database.db
    .selectFrom("unmatched_payments")
    .select([
      "transfer_id",
      "reason",
      "amount_cents",
      "unresolved_cents",
      "integration_client_id",
      "merchant_account_id",
      "charge_id",
      "state",
      "received_at",
      "recorded_at",
      "resolved_at",
    ])
    .where("transfer_id", "in", transferIds)
    .orderBy("transfer_id")
    .execute();

describe("money no charge took", () => {
  it("a transfer to a canceled charge's CVU: its whole amount, reason canceled, the integration and merchant account told of it, the charge", async () => {
    const w = await world();
    const { charge: canceled, cvu } = await charge(w);
    await cancelSeeded(w, NOW, canceled.reference_id!);
    const [outcome] = fulfilled(await reconcileBatch(database.db, [transfer(cvu, 1000, { senderCuil: "20301234563", senderName: "Juan Pérez" })], options));
    expect(outcome).toMatchObject({ unmatchedReason: "canceled" });
    expect(await unmatchedOf([outcome!.transferId])).toEqual([
      {
        transfer_id: outcome!.transferId,
        reason: "canceled",
        amount_cents: 100000,
        unresolved_cents: 100000,
        integration_client_id: integrationClientId,
        merchant_account_id: w.merchantAccountId,
        charge_id: canceled.id,
        state: "unresolved",
        received_at: NOW,
        recorded_at: RECEIVED,
        resolved_at: null,
      },
    ]);
  });

  it("in one batch: a payment above what is owed leaves its excess (overpaid), the next transfer is already_paid whole, a matched payment leaves nothing", async () => {
    const w = await world();
    const { charge: over, cvu } = await charge(w);
    const { cvu: exactCvu } = await charge(w);
    const [first, second, exact] = fulfilled(await reconcileBatch(database.db, [transfer(cvu, 750), transfer(cvu, 20), transfer(exactCvu, 1000)], options));
    // 750 is a partial, 20 a partial (770 of 1000): nothing unmatched yet; then the exact payment of another charge.
    expect(await unmatchedOf([first!.transferId, second!.transferId, exact!.transferId])).toEqual([]);
    const [closing, after] = fulfilled(await reconcileBatch(database.db, [transfer(cvu, 300), transfer(cvu, 5)], options));
    expect(closing).toMatchObject({ charge: { state: "total_payment", paid_cents: 107000 } });
    const rows = await unmatchedOf([closing!.transferId, after!.transferId]);
    expect(rows).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ transfer_id: closing!.transferId, reason: "overpaid", amount_cents: 7000, unresolved_cents: 7000, charge_id: over.id }),
        expect.objectContaining({ transfer_id: after!.transferId, reason: "already_paid", amount_cents: 500, charge_id: over.id }),
      ]),
    );
    expect(rows).toHaveLength(2);
  });

  it("the excess is over what was owed at the transfer's instant: with the surcharge once the first due date has passed", async () => {
    const w = await world();
    const { cvu } = await charge(w);
    const [late] = fulfilled(await reconcileBatch(database.db, [transfer(cvu, 1150, { operatedAt: LATE })], options));
    expect(late).toMatchObject({ charge: { state: "total_payment" } });
    expect(await unmatchedOf([late!.transferId])).toEqual([expect.objectContaining({ reason: "overpaid", amount_cents: 5000 })]);
  });

  it("a transfer to a CVU no charge ever held: no_pending, the platform's (no integration, no merchant account)", async () => {
    const [outcome] = fulfilled(await reconcileBatch(database.db, [transfer(NOBODYS_CVU, 250)], options));
    expect(outcome).toMatchObject({ unmatchedReason: "no_pending" });
    expect(await unmatchedOf([outcome!.transferId])).toEqual([
      expect.objectContaining({ reason: "no_pending", amount_cents: 25000, integration_client_id: null, merchant_account_id: null, charge_id: null }),
    ]);
  });

  it("no_cuil_match on a CVU shared by two integrations' charges: the money is the merchant account's for the integration of the CVU's last charge, and only that one sees it", async () => {
    // One merchant account linked to two integrations: its CVU pool serves both, so their cuil-mode charges share a CVU.
    const other = await seedIntegration(database.db);
    const w = await seedMerchant(database.db, [integrationClientId, other], NOW);
    const first = await charge(w, { conciliationType: "cuil", customer: { name: "Juan Pérez", taxDocument: "20301234563" } });
    const last = await seedCharge(asIntegration(w, other), new Date(NOW.getTime() + 60_000), {
      referenceId: uniqueRef("REF"),
      description: "Cuota",
      amount: 1000,
      dueDates: ["2026-12-10"],
      conciliationType: "cuil",
      customer: { name: "Otra Pagadora", taxDocument: "27111111117" },
      sendWhatsappNotification: false,
      sendEmailNotification: false,
    } as never);
    expect(last.cvu).toBe(first.cvu);

    // A payer with no charge on the CVU.
    const stranger = transfer(first.cvu, 321, { senderCuil: "20123456786", senderName: "Un Desconocido" });
    const [outcome] = fulfilled(await reconcileBatch(database.db, [stranger], options));
    expect(outcome).toMatchObject({ unmatchedReason: "no_cuil_match", event: { type: "payment.unmatched", integrationClientId: other } });
    expect(await unmatchedOf([outcome!.transferId])).toEqual([
      expect.objectContaining({
        reason: "no_cuil_match",
        amount_cents: 32100,
        unresolved_cents: 32100,
        integration_client_id: other,
        merchant_account_id: w.merchantAccountId,
        charge_id: null,
        state: "unresolved",
      }),
    ]);

    const page = { limit: 100, offset: 0 };
    const sees = async (scope: UnmatchedPaymentScope) =>
      (await listUnmatchedPayments(database.db, scope, {}, page)).items.filter((item) => item.transactionId === stranger.transactionId);
    const owners = { kind: "integration", integrationClientId: other } as const;
    const [listed] = await sees(owners);
    expect(listed).toMatchObject({
      reason: "no_cuil_match",
      amount: 321,
      payerCuil: "20123456786",
      integrationClientId: other,
      merchantUserId: w.merchantAccountId,
      state: "unresolved",
    });
    expect(listed).not.toHaveProperty("paymentRequestId");
    expect(await sees({ kind: "merchant", integrationClientId: other, merchantAccountId: w.merchantAccountId })).toHaveLength(1);
    // The first charge's integration, though the same merchant account's and the same CVU's, does not see it.
    const firstsIntegration = { kind: "integration", integrationClientId } as const;
    expect(await sees(firstsIntegration)).toEqual([]);
    expect(await sees({ kind: "merchant", integrationClientId, merchantAccountId: w.merchantAccountId })).toEqual([]);
    await expect(getUnmatchedPayment(database.db, firstsIntegration, listed!.unmatchedPaymentId)).rejects.toMatchObject({
      code: "UnmatchedPaymentNotFoundError",
    });
    expect(await getUnmatchedPayment(database.db, owners, listed!.unmatchedPaymentId)).toEqual(listed);
  });

  it("a transaction id received again adds nothing", async () => {
    const w = await world();
    const { charge: canceled, cvu } = await charge(w);
    await cancelSeeded(w, NOW, canceled.reference_id!);
    const once = transfer(cvu, 10);
    const [first] = fulfilled(await reconcileBatch(database.db, [once], options));
    const [again] = fulfilled(await reconcileBatch(database.db, [once, once], options));
    expect(again).toMatchObject({ duplicate: true, transferId: first!.transferId });
    expect(await unmatchedOf([first!.transferId])).toHaveLength(1);
  });
});

describe("the migration that introduced unmatched payments", () => {
  it("rebuilds, from the transfers and events recorded before it, the rows reconciliation writes", async () => {
    const own = await createTestDatabase();
    try {
      const integration = await seedIntegration(own.db);
      const w = await seedMerchant(own.db, integration, NOW);
      const seeded = (extra: object = {}) =>
        seedCharge(w, NOW, {
          referenceId: uniqueRef("REF"),
          description: "Cuota",
          amount: 1000,
          dueDates: ["2026-12-10", "2026-12-20"],
          surcharge: { type: "fixed", value: 100 },
          customer: { name: "Juan Pérez" },
          sendWhatsappNotification: false,
          sendEmailNotification: false,
          ...extra,
        } as never);
      const { charge: canceled, cvu: canceledCvu } = await seeded();
      const { cvu: overpaidCvu } = await seeded();
      const { cvu: lateCvu } = await seeded();
      const { cvu: exactCvu } = await seeded();
      await cancelSeeded(w, NOW, canceled.reference_id!); // last: its CVU back in the pool would be the next charge's
      fulfilled(
        await reconcileBatch(
          own.db,
          [
            transfer(canceledCvu, 10, { senderCuil: "20301234563", senderName: "Juan Pérez" }),
            // Two transfers of one amount and instant to one charge could not be told apart afterwards: these differ.
            transfer(overpaidCvu, 600),
            transfer(overpaidCvu, 650),
            transfer(overpaidCvu, 1),
            transfer(lateCvu, 1200, { operatedAt: LATE }),
            transfer(exactCvu, 1000),
            transfer(NOBODYS_CVU, 3),
          ],
          options,
        ),
      );
      const rows = () =>
        own.db
          .selectFrom("unmatched_payments")
          .select([
            "transfer_id",
            "reason",
            "amount_cents",
            "unresolved_cents",
            "integration_client_id",
            "merchant_account_id",
            "charge_id",
            "state",
            "received_at",
            "recorded_at",
          ])
          .orderBy("transfer_id")
          .execute();
      const written = await rows();
      expect(written.map((row) => [row.reason, row.amount_cents]).sort()).toEqual([
        ["already_paid", 100],
        ["canceled", 1000],
        ["no_pending", 300],
        ["overpaid", 10000],
        ["overpaid", 25000],
      ]);

      const later = Object.keys(migrations).filter((name) => name >= "2026_11_28_0037");
      const down = await createMigrator(own.db).migrateTo("2026_11_28_0036_webhook_url_verified");
      expect(down.error).toBeUndefined();
      expect(down.results?.map((result) => result.migrationName).sort()).toEqual(later);
      expect(await migrateToLatest(own.db)).toEqual(later);
      expect(await rows()).toEqual(written);
    } finally {
      await own.close();
    }
  });
});
