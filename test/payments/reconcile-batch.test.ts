// A batch of transfers reconciled in one transaction (domain/reconciliation/reconcile-batch.ts), case by
// case: what each transfer is answered and what it leaves, as if received one at a time in order; a bad
// item answered apart; and the statements a batch costs, whatever its size.
import { sql, type KyselyPlugin, type Transaction } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { receiveTransfer, type IncomingTransfer, type ReconciliationOutcome } from "../../domain/reconciliation/reconcile.ts";
import { reconcileBatch, type BatchOutcome } from "../../domain/reconciliation/reconcile-batch.ts";
import { unlinkMerchant } from "../../domain/merchants/merchant-accounts.ts";
import type { Database } from "../../db/schema.ts";
import { takeWorkAtFirstCommit, withWorkAtFirstCommit } from "../../db/transactions.ts";
import { appendAuditEntries, appendAuditEntry, auditEntriesInsert, type AuditEntryInput } from "../../domain/audit/audit-log.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { cancelSeeded, seedCharge, seedIntegration, seedMerchant, sweepAt, type ReconciliationWorld } from "../helpers/reconciliation-world.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

const NOW = new Date("2026-11-22T15:00:00Z"); // 12:00 in Argentina
const RECEIVED = new Date("2026-11-22T18:00:00Z");
const options = { receivedAt: RECEIVED, livemode: false };

let database: TestDatabase;
let integrationClientId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  integrationClientId = await seedIntegration(database.db);
});
afterAll(async () => database?.close());

const world = () => seedMerchant(database.db, integrationClientId, NOW);

const cvuCharge = (w: ReconciliationWorld, extra: object = {}) =>
  seedCharge(w, NOW, {
    referenceId: uniqueRef("REF"),
    description: "Cuota",
    amount: 1000,
    dueDates: ["2026-12-10"],
    customer: { name: "Juan Pérez" },
    sendWhatsappNotification: false,
    sendEmailNotification: false,
    ...extra,
  } as never);

const cuilCharge = (w: ReconciliationWorld, taxDocument: string) => cvuCharge(w, { conciliationType: "cuil", customer: { name: "Pagador", taxDocument } });

function transfer(cvu: string, amount: number, extra: Partial<IncomingTransfer> = {}): IncomingTransfer {
  return { transactionId: uniqueRef("tx"), amountCents: Math.round(amount * 100), receivingCvu: cvu, operatedAt: NOW, source: "bank-feed", ...extra };
}

function fulfilled(outcomes: BatchOutcome[]): ReconciliationOutcome[] {
  return outcomes.map((outcome) => {
    if (outcome.status === "rejected") throw outcome.reason;
    return outcome.value;
  });
}

const eventsOf = (chargeId: string) =>
  database.db.selectFrom("events").select(["id", "type", "payload"]).where("charge_id", "=", chargeId).orderBy("log_position").execute();

const pool = (cvu: string) => database.db.selectFrom("cvu_accounts").select(["holding", "open_charges"]).where("cvu", "=", cvu).executeTakeFirstOrThrow();

describe("a batch, as one transfer after another", () => {
  it("a partial then the rest of one charge: partial_payment then total_payment, two events; a third transfer is already_paid; the CVU is free", async () => {
    const w = await world();
    const { charge, cvu } = await cvuCharge(w, { metadata: { orderId: "A-1" } });
    const [partial, rest, third] = fulfilled(
      await reconcileBatch(database.db, [transfer(cvu, 400, { senderCuil: "20301234563" }), transfer(cvu, 600), transfer(cvu, 50)], options),
    );
    expect(partial).toMatchObject({ duplicate: false, charge: { id: charge.id, state: "partial_payment", paid_cents: 40000, closed_at: null } });
    expect(rest).toMatchObject({ duplicate: false, charge: { id: charge.id, state: "total_payment", paid_cents: 100000, closed_at: RECEIVED } });
    expect(third).toMatchObject({ duplicate: false, unmatchedReason: "already_paid", event: { type: "payment.unmatched" } });
    const events = await eventsOf(charge.id);
    expect(events.map((e) => e.id)).toEqual([partial!.event!.id, rest!.event!.id, third!.event!.id]);
    expect(events.map((e) => e.payload)).toEqual([
      expect.objectContaining({
        stateType: "partial_payment",
        requestedAmount: 1000,
        paidAmount: 400,
        thisPaymentAmount: 400,
        remainingAmount: 600,
        reconciledPayerCuil: 20301234563,
        metadata: { orderId: "A-1" },
      }),
      expect.objectContaining({ stateType: "total_payment", paidAmount: 1000, thisPaymentAmount: 600, remainingAmount: 0, reconciledPayerCuil: 0 }),
      expect.objectContaining({ event: "payment.unmatched", reason: "already_paid", amount: 50, referenceId: charge.reference_id }),
    ]);
    expect(await pool(cvu)).toEqual({ holding: "free", open_charges: 0 });
    const breakdowns = await database.db.selectFrom("payment_breakdowns").selectAll().where("charge_id", "=", charge.id).orderBy("gross_cents").execute();
    // 1.50 % + $0.25 for the integration, 0.70 % for the platform, the rest the merchant's.
    expect(breakdowns.map((b) => [b.gross_cents, b.integration_commission_cents, b.service_commission_cents, b.merchant_net_cents])).toEqual([
      [40000, 625, 280, 39095],
      [60000, 925, 420, 58655],
    ]);
    // Each event has its delivery job.
    const jobs = await database.db
      .selectFrom("graphile_worker.jobs" as never)
      .select(["key" as never])
      .where("key" as never, "in", events.map((e) => `deliver-event:${e.id}`) as never)
      .execute();
    expect(jobs).toHaveLength(3);
  });

  it("a transaction id repeated in the batch, or recorded before it, is a duplicate with the first one's transfer and reason", async () => {
    const w = await world();
    const { charge, cvu } = await cvuCharge(w);
    const before = await receiveTransfer(database.db, transfer("0000999000000000000001", 10), options);
    const once = transfer(cvu, 100);
    const unknown = transfer("0000999000000000000002", 5);
    const [first, again, unknownFirst, unknownAgain, old] = fulfilled(
      await reconcileBatch(
        database.db,
        [once, { ...once, amountCents: 99900 }, unknown, unknown, { ...transfer(cvu, 1), transactionId: (await transactionIdOf(before.transferId))! }],
        options,
      ),
    );
    expect(first).toMatchObject({ duplicate: false, charge: { state: "partial_payment", paid_cents: 10000 } });
    expect(again).toEqual({ transferId: first!.transferId, duplicate: true, unmatchedReason: undefined });
    expect(unknownFirst).toMatchObject({ duplicate: false, unmatchedReason: "no_pending" });
    expect(unknownAgain).toEqual({ transferId: unknownFirst!.transferId, duplicate: true, unmatchedReason: "no_pending" });
    expect(old).toEqual({ transferId: before.transferId, duplicate: true, unmatchedReason: "no_pending" });
    // Across batches too.
    const [later] = fulfilled(await reconcileBatch(database.db, [once], options));
    expect(later).toEqual({ transferId: first!.transferId, duplicate: true, unmatchedReason: undefined });
    expect(await eventsOf(charge.id)).toHaveLength(1);
  });

  it("cuil mode: transfers to one shared CVU pay each sender's charge; a stranger is no_cuil_match; the CVU is free once both are paid", async () => {
    const w = await world();
    const a = await cuilCharge(w, "20301234563");
    const b = await cuilCharge(w, "12345678");
    expect(b.cvu).toBe(a.cvu);
    const [paysB, stranger, paysA, afterAll] = fulfilled(
      await reconcileBatch(
        database.db,
        [
          transfer(a.cvu, 1000, { senderCuil: "20123456786" }),
          transfer(a.cvu, 10, { senderCuil: "27111111117" }),
          transfer(a.cvu, 1000, { senderCuil: "20301234563" }),
          transfer(a.cvu, 10, { senderCuil: "20301234563" }),
        ],
        options,
      ),
    );
    expect(paysB).toMatchObject({ charge: { id: b.charge.id, state: "total_payment" } });
    expect(stranger).toMatchObject({ unmatchedReason: "no_cuil_match", event: { type: "payment.unmatched" } });
    expect(paysA).toMatchObject({ charge: { id: a.charge.id, state: "total_payment" } });
    // Its payer's charge was paid just before, in the same batch.
    expect(afterAll).toMatchObject({ unmatchedReason: "already_paid" });
    expect(await pool(a.cvu)).toEqual({ holding: "free", open_charges: 0 });
  });

  it("the surcharge by each transfer's instant: on time before the first due date has passed, with the surcharge after", async () => {
    const w = await world();
    const terms = { dueDates: ["2026-11-25", "2026-12-05"], surcharge: { type: "percentage", value: 10 } };
    const onTime = await cvuCharge(w, terms);
    const late = await cvuCharge(w, terms);
    const [paid, partly] = fulfilled(
      await reconcileBatch(
        database.db,
        [
          transfer(onTime.cvu, 1000, { operatedAt: new Date("2026-11-26T02:59:00Z") }),
          transfer(late.cvu, 1000, { operatedAt: new Date("2026-11-26T03:00:00Z") }),
        ],
        options,
      ),
    );
    expect(paid).toMatchObject({ charge: { state: "total_payment" } });
    expect(partly).toMatchObject({ charge: { state: "partial_payment" } });
    expect((await eventsOf(late.charge.id))[0]!.payload).toMatchObject({ requestedAmount: 1100, remainingAmount: 100 });
  });

  it("unmatched reasons from what the CVU held last: canceled, expired, no_pending (no event), ambiguous", async () => {
    const w = await world();
    // Each holds a CVU of its own until it closes (a CVU given back would be taken by the next).
    const canceled = await cvuCharge(w);
    const expired = await cvuCharge(w, { dueDates: ["2026-11-22T14:00"] }); // 14:00 in Argentina
    const anomaly = await cvuCharge(w);
    await cancelSeeded(w, NOW, canceled.charge.reference_id);
    await sweepAt(w, new Date("2026-11-22T17:01:00Z"));
    await database.db.updateTable("charges").set({ state: "canceled" }).where("id", "=", anomaly.charge.id).execute(); // its hold is left behind
    const outcomes = fulfilled(
      await reconcileBatch(
        database.db,
        [transfer(canceled.cvu, 5), transfer(expired.cvu, 5), transfer("0000999000000000000003", 5), transfer(anomaly.cvu, 5)],
        options,
      ),
    );
    expect(outcomes.map((o) => o.unmatchedReason)).toEqual(["canceled", "expired", "no_pending", "ambiguous"]);
    expect(outcomes.map((o) => o.event?.type)).toEqual(["payment.unmatched", "payment.unmatched", undefined, "payment.unmatched"]);
    const transfers = await database.db
      .selectFrom("transfers")
      .select(["unmatched_reason", "charge_id"])
      .where(
        "id",
        "in",
        outcomes.map((o) => o.transferId),
      )
      .execute();
    expect(transfers.every((t) => t.charge_id === null)).toBe(true);
  });

  it("a CVU a cuil-mode charge paid and gave back, then taken by a cvu-mode charge that was canceled: a transfer from the old payer is canceled, naming the canceled charge", async () => {
    const w = await world();
    const paid = await cuilCharge(w, "20301234563");
    await receiveTransfer(database.db, transfer(paid.cvu, 1000, { senderCuil: "20301234563" }), options);
    expect(await pool(paid.cvu)).toEqual({ holding: "free", open_charges: 0 });
    // Created later: it takes the CVU the paid charge gave back, for itself.
    const canceled = await seedCharge(w, new Date(NOW.getTime() + 60_000), {
      referenceId: uniqueRef("REF"),
      description: "Cuota",
      amount: 1000,
      dueDates: ["2026-12-10"],
      customer: { name: "Otro Pagador" },
      sendWhatsappNotification: false,
      sendEmailNotification: false,
    });
    expect(canceled.cvu).toBe(paid.cvu);
    await cancelSeeded(w, NOW, canceled.charge.reference_id!);
    // Alone (a batch of one), then two in one batch: the old payer and a stranger.
    const alone = await receiveTransfer(database.db, transfer(paid.cvu, 1000, { senderCuil: "20301234563" }), options);
    const inBatch = fulfilled(
      await reconcileBatch(
        database.db,
        [transfer(paid.cvu, 1000, { senderCuil: "20301234563" }), transfer(paid.cvu, 5, { senderCuil: "27111111117" })],
        options,
      ),
    );
    const outcomes = [alone, ...inBatch];
    expect(outcomes.map((o) => o.unmatchedReason)).toEqual(["canceled", "canceled", "canceled"]);
    const unmatched = await database.db
      .selectFrom("unmatched_payments")
      .select(["reason", "charge_id"])
      .where(
        "transfer_id",
        "in",
        outcomes.map((o) => o.transferId),
      )
      .execute();
    expect(unmatched).toEqual(outcomes.map(() => ({ reason: "canceled", charge_id: canceled.charge.id })));
    const told = (await eventsOf(canceled.charge.id)).filter((event) => event.type === "payment.unmatched");
    expect(told.map((event) => event.payload)).toEqual(
      outcomes.map(() => expect.objectContaining({ reason: "canceled", referenceId: canceled.charge.reference_id })),
    );
  });

  it("a payer's paid cuil-mode charge on a CVU a cvu-mode charge has held since, now shared by another payer: the old payer's transfer is no_cuil_match", async () => {
    const w = await world();
    const paid = await cuilCharge(w, "20301234563");
    await receiveTransfer(database.db, transfer(paid.cvu, 1000, { senderCuil: "20301234563" }), options);
    const later = (minutes: number, extra: object) =>
      seedCharge(w, new Date(NOW.getTime() + minutes * 60_000), {
        referenceId: uniqueRef("REF"),
        description: "Cuota",
        amount: 1000,
        dueDates: ["2026-12-10"],
        customer: { name: "Otro Pagador" },
        sendWhatsappNotification: false,
        sendEmailNotification: false,
        ...extra,
      } as never);
    const alone = await later(1, {});
    await cancelSeeded(w, NOW, alone.charge.reference_id!);
    const shared = await later(2, { conciliationType: "cuil", customer: { name: "Otro Pagador", taxDocument: "20123456786" } });
    expect([alone.cvu, shared.cvu]).toEqual([paid.cvu, paid.cvu]);
    await cancelSeeded(w, NOW, shared.charge.reference_id!);
    const [outcome] = fulfilled(await reconcileBatch(database.db, [transfer(paid.cvu, 1000, { senderCuil: "20301234563" })], options));
    expect(outcome).toMatchObject({ unmatchedReason: "no_cuil_match", event: { type: "payment.unmatched" } });
    expect(
      await database.db.selectFrom("unmatched_payments").select(["reason", "charge_id"]).where("transfer_id", "=", outcome!.transferId).executeTakeFirst(),
    ).toEqual({ reason: "no_cuil_match", charge_id: null });
  });

  it("a chat confirmation is written and queued for each payment that asks for one", async () => {
    const w = await world();
    const { charge, cvu } = await cvuCharge(w, {
      sendWhatsappNotification: true,
      customer: { name: "Ana", phoneNumber: { countryCode: "+54", number: "91123456789" } },
    });
    const [partial, rest] = fulfilled(await reconcileBatch(database.db, [transfer(cvu, 300), transfer(cvu, 700)], options));
    const messages = await database.db
      .selectFrom("notifications")
      .select(["kind", "status", "transfer_id", "recipient"])
      .where("charge_id", "=", charge.id)
      .orderBy("created_at")
      .execute();
    const confirmations = messages.filter((m) => m.kind === "payment_confirmation");
    expect(confirmations.map((m) => [m.transfer_id, m.status, m.recipient])).toEqual(
      expect.arrayContaining([
        [partial!.transferId, "queued", "5491123456789"],
        [rest!.transferId, "queued", "5491123456789"],
      ]),
    );
    // Paid in full: what had not gone out of its schedule is withdrawn.
    expect(messages.filter((m) => m.kind !== "payment_confirmation" && (m.status === "scheduled" || m.status === "queued"))).toEqual([]);
  });
});

describe("a merchant unlinked from the integration", () => {
  it("its charges are still paid, and their events are marked as occurred while unlinked (never delivered nor listed)", async () => {
    const w = await world();
    const { charge, cvu } = await cvuCharge(w);
    const link = await database.db
      .selectFrom("merchant_links")
      .select("id")
      .where("integration_client_id", "=", integrationClientId)
      .where("merchant_account_id", "=", w.merchantAccountId)
      .executeTakeFirstOrThrow();
    await unlinkMerchant(database.db, integrationClientId, link.id, NOW);
    const [paid, after] = fulfilled(await reconcileBatch(database.db, [transfer(cvu, 1000), transfer(cvu, 5)], options));
    expect(paid).toMatchObject({ charge: { state: "total_payment" } });
    expect(after).toMatchObject({ unmatchedReason: "already_paid" });
    const events = await database.db
      .selectFrom("events")
      .select(["type", "occurred_while_unlinked"])
      .where("charge_id", "=", charge.id)
      .orderBy("log_position")
      .execute();
    expect(events).toEqual([
      { type: "payment_request.payment_received", occurred_while_unlinked: true },
      { type: "payment.unmatched", occurred_while_unlinked: true },
    ]);
  });
});

describe("a bad item", () => {
  it("is answered on its own with the error receiveTransfer gives; the others are reconciled", async () => {
    const w = await world();
    const { cvu } = await cvuCharge(w);
    const outcomes = await reconcileBatch(database.db, [transfer(cvu, 400), transfer(cvu, 0), transfer(cvu, 600)], options);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: "23514" }); // the transfers table's check
    expect((outcomes[2] as PromiseFulfilledResult<ReconciliationOutcome>).value.charge).toMatchObject({ state: "total_payment" });
  });

  it("refused by the database after all (a NUL byte in its transaction id): the batch is received one at a time, and only that one fails", async () => {
    const w = await world();
    const { cvu } = await cvuCharge(w);
    const outcomes = await reconcileBatch(database.db, [transfer(cvu, 400), transfer(cvu, 1, { transactionId: "tx\u0000nul" }), transfer(cvu, 600)], options);
    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((outcomes[1] as PromiseRejectedResult).reason).toMatchObject({ code: "22021" });
    const [partial, , rest] = outcomes.map((o) => (o.status === "fulfilled" ? o.value : undefined));
    expect(partial!.charge).toMatchObject({ state: "partial_payment", paid_cents: 40000 });
    expect(rest!.charge).toMatchObject({ state: "total_payment", paid_cents: 100000 });
  });
});

describe("simulated transfers, from an integration", () => {
  it("one to a CVU that never held a charge of its integration is refused and records nothing; the others commit, with their work; no statement more", async () => {
    const [mine, theirs] = [await seedIntegration(database.db), await seedIntegration(database.db)];
    await database.db
      .updateTable("integration_clients")
      .set({ enabled_events: ["payment.unmatched"] })
      .where("id", "=", mine)
      .execute();
    const own = await cvuCharge(await seedMerchant(database.db, mine, NOW));
    const other = await cvuCharge(await seedMerchant(database.db, theirs, NOW));
    const from = (integration: string) => ({ source: "simulation" as const, fromIntegration: integration });
    const batch = [
      transfer(own.cvu, 400, from(mine)),
      transfer(other.cvu, 400, from(mine)),
      transfer("0000999000000000000012", 400, from(mine)),
      transfer(other.cvu, 1000), // the bank's: no integration to check
      transfer(own.cvu, 600, from(mine)),
    ];
    const works = batch.map(() => ({ ran: false, committed: undefined as boolean | undefined }));
    const atCommit = works.map((work) => ({
      run: async () => {
        work.ran = true;
      },
      settle: (committed: boolean) => {
        work.committed = committed;
      },
    }));
    const counter = counted();
    const outcomes = await reconcileBatch(counter.db, batch, options, atCommit);

    expect(outcomes.map((o) => o.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled", "fulfilled"]);
    for (const refused of [outcomes[1], outcomes[2]] as PromiseRejectedResult[]) {
      expect(refused.reason).toMatchObject({ code: "CvuNotInIntegrationError" });
    }
    const [partial, , , bank, rest] = outcomes.map((o) => (o.status === "fulfilled" ? o.value : undefined));
    expect(partial).toMatchObject({ charge: { state: "partial_payment" }, fromIntegrationEvents: ["payment.unmatched"] });
    expect(rest).toMatchObject({ charge: { state: "total_payment", paid_cents: 100000 }, fromIntegrationEvents: ["payment.unmatched"] });
    expect(bank).toMatchObject({ charge: { state: "total_payment" } });
    expect(bank).not.toHaveProperty("fromIntegrationEvents");
    const recorded = await database.db
      .selectFrom("transfers")
      .select("transaction_id")
      .where(
        "transaction_id",
        "in",
        batch.map((t) => t.transactionId),
      )
      .execute();
    expect(recorded.map((row) => row.transaction_id).sort()).toEqual([batch[0]!, batch[3]!, batch[4]!].map((t) => t.transactionId).sort());
    // The refused requests' work is theirs again, undone; the others' committed with the batch.
    expect(works).toEqual([
      { ran: true, committed: true },
      { ran: false, committed: false },
      { ran: false, committed: false },
      { ran: true, committed: true },
      { ran: true, committed: true },
    ]);
    expect(counter.statements).toBe(3); // the plan setting, then the batch's 2 statements: the check is in the first
  });

  it("the same refused transfer twice in a batch is refused twice, and records nothing", async () => {
    const [mine, theirs] = [await seedIntegration(database.db), await seedIntegration(database.db)];
    const other = await cvuCharge(await seedMerchant(database.db, theirs, NOW));
    const refused = transfer(other.cvu, 400, { source: "simulation" as const, fromIntegration: mine });
    const outcomes = await reconcileBatch(database.db, [refused, { ...refused }], options);
    expect(outcomes.map((o) => o.status)).toEqual(["rejected", "rejected"]);
    for (const outcome of outcomes as PromiseRejectedResult[]) expect(outcome.reason).toMatchObject({ code: "CvuNotInIntegrationError" });
    expect(await database.db.selectFrom("transfers").select("id").where("transaction_id", "=", refused.transactionId).execute()).toEqual([]);
  });

  it("received alone, a refused one is thrown as receiveTransfer throws its errors", async () => {
    const theirs = await seedIntegration(database.db);
    const other = await cvuCharge(await seedMerchant(database.db, theirs, NOW));
    await expect(
      receiveTransfer(database.db, transfer(other.cvu, 10, { source: "simulation", fromIntegration: integrationClientId }), options),
    ).rejects.toMatchObject({
      code: "CvuNotInIntegrationError",
    });
    expect(await pool(other.cvu)).toEqual({ holding: "exclusive", open_charges: 1 });
  });
});

describe("at the same time", () => {
  it("batches paying the same charges in opposite orders, and single transfers among them, all go through and sum correctly", async () => {
    const w = await world();
    const charges: Array<{ cvu: string; charge: { id: string } }> = [];
    for (let i = 0; i < 8; i++) charges.push(await cvuCharge(w, { amount: 100 }));
    // Each charge gets 10 transfers of $10: two batches in opposite orders, a single transfer each, three times over.
    const forward = () => charges.map((c) => transfer(c.cvu, 10));
    const runs = [];
    for (let round = 0; round < 3; round++) {
      runs.push(reconcileBatch(database.db, forward(), options));
      runs.push(reconcileBatch(database.db, forward().reverse(), options));
      for (const c of charges) runs.push(receiveTransfer(database.db, transfer(c.cvu, 10), options).then((value) => [{ status: "fulfilled" as const, value }]));
    }
    const lastRound = [reconcileBatch(database.db, forward(), options), reconcileBatch(database.db, forward().reverse(), options)];
    const answers = (await Promise.all([...runs, ...lastRound])).flat();
    expect(answers.filter((a) => a.status === "rejected")).toEqual([]);
    const rows = await database.db
      .selectFrom("charges")
      .select(["state", "paid_cents"])
      .where(
        "id",
        "in",
        charges.map((c) => c.charge.id),
      )
      .execute();
    expect(rows).toEqual(charges.map(() => ({ state: "total_payment", paid_cents: 10000 })));
    for (const c of charges) expect(await pool(c.cvu)).toEqual({ holding: "free", open_charges: 0 });
  });
});

describe("the same transfers in two batches at once", () => {
  it("a batch that waited for another recording the same transaction ids answers them duplicates of its transfers", async () => {
    const w = await world();
    const charges: Array<{ cvu: string }> = [];
    for (let i = 0; i < 3; i++) charges.push(await cvuCharge(w));
    const same = charges.map((c) => transfer(c.cvu, 1000));
    // The first batch has written and holds its transaction open while the second runs into its rows.
    let written!: () => void;
    let commit!: () => void;
    const recorded = new Promise<void>((resolve) => (written = resolve));
    const gate = new Promise<void>((resolve) => (commit = resolve));
    const first = database.db.transaction().execute(async (trx) => {
      const outcomes = await reconcileBatch(trx, same, options);
      written();
      await gate;
      return outcomes;
    });
    await recorded;
    const second = reconcileBatch(database.db, [...same].reverse(), options);
    await expect
      .poll(async () => {
        const { rows } = await sql<{ n: number }>`
          select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(database.db);
        return rows[0]!.n;
      })
      .toBe(1);
    commit();
    const [a, b] = (await Promise.all([first, second])).map(fulfilled);
    expect(a!.map((o) => o.duplicate)).toEqual([false, false, false]);
    expect([...b!].reverse()).toEqual(a!.map((o) => ({ transferId: o.transferId, duplicate: true, unmatchedReason: undefined })));
  });
});

/** A handle on the test database that counts the statements run through it (BEGIN and COMMIT aside). */
function counted() {
  const counter = { statements: 0, db: database.db };
  const counting: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      counter.statements++;
      return args.result;
    },
  };
  counter.db = database.db.withPlugin(counting);
  return counter;
}

describe("a charge paid in full by another transaction while the batch waited for its lock", () => {
  it("is matched again, as one at a time: its CVU holds nothing now, so the transfers to it are already_paid", async () => {
    const w = await world();
    const { charge, cvu } = await cvuCharge(w);
    const other = await cvuCharge(w);
    let paid!: () => void;
    let commit!: () => void;
    const paying = new Promise<void>((resolve) => (paid = resolve));
    const gate = new Promise<void>((resolve) => (commit = resolve));
    const first = database.db.transaction().execute(async (trx) => {
      await receiveTransfer(trx, transfer(cvu, 1000), options);
      paid();
      await gate;
    });
    await paying;
    const batch = reconcileBatch(database.db, [transfer(cvu, 10), transfer(other.cvu, 10), transfer(cvu, 20)], options);
    await expect
      .poll(async () => {
        const { rows } = await sql<{ n: number }>`
          select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(database.db);
        return rows[0]!.n;
      })
      .toBe(1);
    commit();
    await first;
    const [late, elsewhere, later] = fulfilled(await batch);
    expect(late).toMatchObject({ duplicate: false, unmatchedReason: "already_paid", event: { type: "payment.unmatched" } });
    expect(elsewhere).toMatchObject({ charge: { id: other.charge.id, state: "partial_payment" } });
    expect(later).toMatchObject({ unmatchedReason: "already_paid" });
    const events = await eventsOf(charge.id);
    expect(events.map((e) => [e.type, (e.payload as { amount?: number }).amount])).toEqual([
      ["payment_request.payment_received", undefined],
      ["payment.unmatched", 10],
      ["payment.unmatched", 20],
    ]);
  });
});

describe("statements", () => {
  it("a lone transfer (receiveTransfer, a batch of one): 2 statements and the plan setting, one more when unmatched on a CVU that was held", async () => {
    // On its own path it took 2, 4, 6 and 2: a chat confirmation wrote and queued apart, and the unmatched
    // reason read the payer's charges, the CVU's last charge and its holds one by one, then wrote the event apart.
    // Each count here includes the batch's `set local plan_cache_mode` (a round trip PostgreSQL does not plan).
    const w = await world();
    const chat = { sendWhatsappNotification: true, customer: { name: "Ana", phoneNumber: { countryCode: "+54", number: "91100000000" } } };
    const cases: Array<[string, () => Promise<IncomingTransfer>]> = [
      ["partial payment", async () => transfer((await cvuCharge(w)).cvu, 10)],
      ["paid in full, with a chat confirmation", async () => transfer((await cvuCharge(w, chat)).cvu, 1000)],
      [
        "unmatched, already_paid (cuil sender)",
        async () => {
          const { cvu } = await cvuCharge(w);
          await receiveTransfer(database.db, transfer(cvu, 1000), options);
          return transfer(cvu, 10, { senderCuil: "20301234563" });
        },
      ],
      ["to a CVU nobody held", async () => transfer("0000999000000000000005", 10)],
    ];
    const table: Record<string, number> = {};
    for (const [name, make] of cases) {
      const one = counted();
      await receiveTransfer(one.db, await make(), options);
      table[name] = one.statements;
    }
    console.log(`statements for a lone transfer (besides BEGIN and COMMIT): ${JSON.stringify(table)}`);
    expect(table).toEqual({
      "partial payment": 3,
      "paid in full, with a chat confirmation": 3,
      "unmatched, already_paid (cuil sender)": 4,
      "to a CVU nobody held": 3,
    });
  });

  it("a batch costs the same statements whatever its size", async () => {
    const counts: Record<number, number> = {};
    for (const size of [1, 10, 100]) {
      const w = await world();
      const charges: Array<{ cvu: string }> = [];
      for (let i = 0; i < Math.min(size, 10); i++) charges.push(await cvuCharge(w));
      const counter = counted();
      // Payments to open charges, and one transfer to a CVU nobody held (the unmatched lookups).
      const batch = Array.from({ length: size }, (_, i) =>
        i === size - 1 && size > 1 ? transfer("0000999000000000000004", 1) : transfer(charges[i % charges.length]!.cvu, 10),
      );
      fulfilled(await reconcileBatch(counter.db, batch, options));
      counts[size] = counter.statements;
    }
    console.log(`statements per batch (besides BEGIN and COMMIT): ${JSON.stringify(counts)}`);
    expect(counts[10]).toBe(counts[1]);
    expect(counts[100]).toBe(counts[1]);
    expect(counts[1]).toBe(3); // the plan setting, then the 2 statements
  });

  it("the requests' audit entries taken with the transfers are written by the batch's last statement: no statement more", async () => {
    const w = await world();
    const charges = [await cvuCharge(w), await cvuCharge(w)];
    const entry = (requestId: string): AuditEntryInput => ({
      occurredAt: RECEIVED,
      api: "admin",
      operation: "simulatePayment",
      method: "POST",
      route: "/my-integration/simulate-payment",
      actor: { kind: "anonymous" },
      targets: {},
      fields: ["cvu", "amount"],
      changes: {},
      clientAddress: "127.0.0.1",
      outcome: "succeeded",
      status: 200,
      requestId,
    });
    const requestIds = [uniqueRef("req"), uniqueRef("req")];
    const handles = requestIds.map((requestId) =>
      withWorkAtFirstCommit(database.db, (trx) => appendAuditEntry(trx, entry(requestId)), {
        doAll: appendAuditEntries,
        item: () => entry(requestId),
        statementFor: auditEntriesInsert,
      }),
    );
    const counter = counted();
    const batch = charges.map((charge) => transfer(charge.cvu, 10));
    fulfilled(
      await reconcileBatch(
        counter.db,
        batch,
        options,
        handles.map((handle) => takeWorkAtFirstCommit(handle.db)),
      ),
    );
    expect(counter.statements).toBe(3); // the plan setting, then the 2 statements
    expect(handles.map((handle) => handle.committed)).toEqual([true, true]);
    const written = await database.db.selectFrom("audit_log").select("request_id").where("request_id", "in", requestIds).orderBy("seq").execute();
    expect(written.map((row) => row.request_id)).toEqual(requestIds);
  });

  it("with unmatched transfers to a CVU that was held: one statement more, whatever their number", async () => {
    const counts: number[] = [];
    for (const size of [1, 50]) {
      const w = await world();
      const { cvu } = await cvuCharge(w);
      const counter = counted();
      fulfilled(await reconcileBatch(counter.db, [transfer(cvu, 1000), ...Array.from({ length: size }, () => transfer(cvu, 1))], options));
      counts.push(counter.statements);
    }
    expect(counts).toEqual([4, 4]); // the plan setting, the 2 statements and the unmatched transfers' lookups
  });
});

describe("rows written", () => {
  it("a transfer is recorded with the charge its CVU holds for: one that pays it is never written again; one that ends otherwise is rewritten", async () => {
    const w = await world();
    const first = await cvuCharge(w);
    const second = await cvuCharge(w);
    const batch = [
      transfer(first.cvu, 400),
      transfer(first.cvu, 600), // the rest: total_payment
      transfer(second.cvu, 10),
      transfer(first.cvu, 5), // after the charge was paid in full: already_paid, recorded with it first
      transfer("0000999000000000000006", 10), // a CVU nobody held: no_pending, recorded ambiguous first
    ];
    // This transaction's inserts and updates of transfers, as counted by PostgreSQL (read before and after
    // the batch: a backend's counts not yet reported may include its earlier transactions').
    const tupleCounts = async (trx: Transaction<Database>) => {
      const { rows } = await sql<{ inserted: string; updated: string }>`
        select n_tup_ins as inserted, n_tup_upd as updated from pg_stat_xact_user_tables where relname = 'transfers'`.execute(trx);
      return { inserted: Number(rows[0]?.inserted ?? 0), updated: Number(rows[0]?.updated ?? 0) };
    };
    const written = await database.db.transaction().execute(async (trx) => {
      const before = await tupleCounts(trx);
      const outcomes = fulfilled(await reconcileBatch(trx, batch, options));
      const after = await tupleCounts(trx);
      return { outcomes, inserted: after.inserted - before.inserted, updated: after.updated - before.updated };
    });
    expect(written.outcomes.map((outcome) => outcome.unmatchedReason ?? outcome.charge?.state)).toEqual([
      "partial_payment",
      "total_payment",
      "partial_payment",
      "already_paid",
      "no_pending",
    ]);
    expect({ inserted: written.inserted, updated: written.updated }).toEqual({ inserted: 5, updated: 2 });
    const rows = await database.db
      .selectFrom("transfers")
      .select(["transaction_id", "charge_id", "unmatched_reason"])
      .where(
        "transaction_id",
        "in",
        batch.map((t) => t.transactionId),
      )
      .execute();
    const byTransaction = new Map(rows.map((row) => [row.transaction_id, [row.charge_id, row.unmatched_reason]]));
    expect(batch.map((t) => byTransaction.get(t.transactionId))).toEqual([
      [first.charge.id, null],
      [first.charge.id, null],
      [second.charge.id, null],
      [null, "already_paid"],
      [null, "no_pending"],
    ]);
  });
});

async function transactionIdOf(transferId: string): Promise<string | undefined> {
  return (await database.db.selectFrom("transfers").select("transaction_id").where("id", "=", transferId).executeTakeFirst())?.transaction_id;
}
