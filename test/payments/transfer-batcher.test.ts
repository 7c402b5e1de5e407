// Group commit of single transfers (domain/reconciliation/transfer-batcher.ts): when a batch goes, what
// goes together, and that each transfer is answered from its own batch's outcome.
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { ManualClock } from "../../domain/clock.ts";
import type { IncomingTransfer } from "../../domain/reconciliation/reconcile.ts";
import { TransferBatcher, type TransferBatchSettings } from "../../domain/reconciliation/transfer-batcher.ts";
import { takeWorkAtFirstCommit, withWorkAtFirstCommit } from "../../db/transactions.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { seedCharge, seedIntegration, seedMerchant, type ReconciliationWorld } from "../helpers/reconciliation-world.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

const NOW = new Date("2026-11-22T15:00:00Z");
const DAY_MS = 24 * 3600 * 1000;
const live = { livemode: false, clockOffsetMs: 0 };

let database: TestDatabase;
let integrationClientId: string;

beforeAll(async () => {
  database = await createTestDatabase();
  integrationClientId = await seedIntegration(database.db);
});
afterAll(async () => database?.close());
afterEach(() => vi.useRealTimers());

const charge = (w: ReconciliationWorld, amount = 1000) =>
  seedCharge(w, NOW, {
    referenceId: uniqueRef("REF"),
    description: "Cuota",
    amount,
    dueDates: ["2026-12-10"],
    customer: { name: "Juan Pérez" },
    sendWhatsappNotification: false,
    sendEmailNotification: false,
  } as never);

function transfer(cvu: string, amount: number, extra: Partial<IncomingTransfer> = {}): IncomingTransfer {
  return { transactionId: uniqueRef("tx"), amountCents: Math.round(amount * 100), receivingCvu: cvu, operatedAt: NOW, source: "simulation", ...extra };
}

/** A batcher over the test database whose batches' sizes are listed as they go. */
function batcher(settings: Partial<TransferBatchSettings> = {}, clock = new ManualClock(NOW)) {
  const sizes: number[] = [];
  const transfers = new TransferBatcher(database.db, clock, { maxSize: 200, windowMs: 60_000, maxInFlight: 1, ...settings }, ({ size }) => sizes.push(size));
  return { transfers, sizes };
}

describe("a transfer batcher", () => {
  it("sends a lone transfer at once, and the transfers that arrive while a batch commits together, in arrival order", async () => {
    const w = await seedMerchant(database.db, integrationClientId, NOW);
    const { charge: first, cvu: firstCvu } = await charge(w);
    const { charge: second, cvu } = await charge(w);
    const { transfers, sizes } = batcher();
    const lone = transfers.receive(transfer(firstCvu, 1000), live);
    // Sent before receive returns: an idle service adds no wait.
    expect(sizes).toEqual([1]);
    const together = [transfers.receive(transfer(cvu, 400), live), transfers.receive(transfer(cvu, 600), live), transfers.receive(transfer(cvu, 5), live)];
    expect(sizes).toEqual([1]);
    expect(await lone).toMatchObject({ charge: { id: first.id, state: "total_payment" } });
    const [partial, rest, late] = await Promise.all(together);
    expect(sizes).toEqual([1, 3]);
    expect(partial).toMatchObject({ charge: { id: second.id, state: "partial_payment", paid_cents: 40000 } });
    expect(rest).toMatchObject({ charge: { id: second.id, state: "total_payment", paid_cents: 100000 } });
    expect(late).toMatchObject({ unmatchedReason: "already_paid" });
    const events = await database.db.selectFrom("events").select(["type", "payload"]).where("charge_id", "=", second.id).orderBy("log_position").execute();
    expect(events.map((e) => (e.payload as { stateType?: string; reason?: string }).stateType ?? (e.payload as { reason?: string }).reason)).toEqual([
      "partial_payment",
      "total_payment",
      "already_paid",
    ]);
  });

  it("sends a batch as soon as it holds maxSize transfers, even while another commits", async () => {
    const w = await seedMerchant(database.db, integrationClientId, NOW);
    const cvus = await Promise.all(Array.from({ length: 6 }, async () => (await charge(w)).cvu));
    const { transfers, sizes } = batcher({ maxSize: 2 });
    const answers = cvus.map((cvu) => transfers.receive(transfer(cvu, 1000), live));
    // The first goes alone (nothing was committing); then every second transfer fills a batch.
    expect(sizes).toEqual([1, 2, 2]);
    await Promise.all(answers);
    expect(sizes).toEqual([1, 2, 2, 1]);
  });

  it("sends a waiting batch after the window while a batch is held up, without waiting for it", async () => {
    const w = await seedMerchant(database.db, integrationClientId, NOW);
    const { charge: held, cvu: heldCvu } = await charge(w);
    const { cvu } = await charge(w);
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const { transfers, sizes } = batcher({ windowMs: 5 });
    // Another transaction holds the first charge's row: the batch paying it waits for that lock.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = database.db.transaction().execute(async (trx) => {
      await sql`select 1 from charges where id = ${held.id} for update`.execute(trx);
      locked();
      await released;
    });
    await isLocked;
    const stuck = transfers.receive(transfer(heldCvu, 1000), live);
    const waiting = transfers.receive(transfer(cvu, 1000), live);
    expect(sizes).toEqual([1]);
    await vi.advanceTimersByTimeAsync(5);
    expect(sizes).toEqual([1, 1]);
    // The second batch commits while the first still waits for the lock.
    expect(await waiting).toMatchObject({ charge: { state: "total_payment" } });
    release();
    await holder;
    expect(await stuck).toMatchObject({ charge: { id: held.id, state: "total_payment" } });
  });

  it("batches transfers by the clock they are received in: each batch's receivedAt is its Sandbox clock's", async () => {
    const w = await seedMerchant(database.db, integrationClientId, NOW);
    const { cvu: a } = await charge(w);
    const { cvu: b } = await charge(w);
    const { cvu: c } = await charge(w);
    const { transfers, sizes } = batcher();
    const first = transfer(a, 1000);
    const ahead = transfer(b, 1000);
    const now = transfer(c, 1000);
    await Promise.all([transfers.receive(first, live), transfers.receive(ahead, { livemode: false, clockOffsetMs: DAY_MS }), transfers.receive(now, live)]);
    expect(sizes.toSorted()).toEqual([1, 1, 1]);
    const received = await database.db
      .selectFrom("transfers")
      .select(["transaction_id", "received_at"])
      .where("transaction_id", "in", [first.transactionId, ahead.transactionId, now.transactionId])
      .execute();
    const at = Object.fromEntries(received.map((r) => [r.transaction_id, r.received_at.toISOString()]));
    expect(at).toEqual({
      [first.transactionId]: NOW.toISOString(),
      [ahead.transactionId]: new Date(NOW.getTime() + DAY_MS).toISOString(),
      [now.transactionId]: NOW.toISOString(),
    });
  });

  it("answers an item the database refuses with its own error; the rest of its batch commits", async () => {
    const w = await seedMerchant(database.db, integrationClientId, NOW);
    const { cvu: a } = await charge(w);
    const { cvu: b } = await charge(w);
    const { transfers, sizes } = batcher();
    const blocker = transfers.receive(transfer(a, 10), live);
    const good = transfers.receive(transfer(b, 1000), live);
    const bad = transfers.receive(transfer(b, 10, { transactionId: "tx\u0000nul" }), live);
    const goodToo = transfers.receive(transfer(a, 990), live);
    await blocker;
    await expect(bad).rejects.toMatchObject({ code: "22021" });
    expect(await good).toMatchObject({ charge: { state: "total_payment" } });
    expect(await goodToo).toMatchObject({ charge: { state: "total_payment" } });
    expect(sizes).toEqual([1, 3]);
    await transfers.whenIdle();
  });

  it("does each transfer's work at commit in the transaction that records it; a refused transfer's work is given back undone", async () => {
    await sql`create table if not exists commit_marks (name text not null)`.execute(database.db);
    const w = await seedMerchant(database.db, integrationClientId, NOW);
    const { cvu: a } = await charge(w);
    const { cvu: b } = await charge(w);
    const withMark = (name: string) =>
      withWorkAtFirstCommit(database.db, (trx) => sql`insert into commit_marks (name) values (${name})`.execute(trx).then(() => undefined));
    const works = { good: withMark("good"), bad: withMark("bad"), goodToo: withMark("goodToo") };
    const { transfers, sizes } = batcher();
    const blocker = transfers.receive(transfer(a, 10), live);
    const good = transfer(b, 1000);
    const goodToo = transfer(a, 990);
    const answers = [
      transfers.receive(good, live, takeWorkAtFirstCommit(works.good.db)),
      transfers.receive(transfer(b, 10, { transactionId: "tx\u0000nul" }), live, takeWorkAtFirstCommit(works.bad.db)),
      transfers.receive(goodToo, live, takeWorkAtFirstCommit(works.goodToo.db)),
    ];
    await blocker;
    const [goodAnswer, badAnswer, goodTooAnswer] = await Promise.allSettled(answers);
    expect([goodAnswer!.status, badAnswer!.status, goodTooAnswer!.status]).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(sizes).toEqual([1, 3]);
    expect([works.good.committed, works.bad.committed, works.goodToo.committed]).toEqual([true, false, true]);
    // Given back: the refused request's own handle may still do it.
    expect(takeWorkAtFirstCommit(works.bad.db)).toBeDefined();
    const written = await sql<{ name: string; xmin: string; transfer_xmin: string | null }>`
      select m.name, m.xmin::text, (select t.xmin::text from transfers t where t.transaction_id = case m.name when 'good' then ${good.transactionId} else ${goodToo.transactionId} end) as transfer_xmin
      from commit_marks m order by m.name
    `.execute(database.db);
    expect(written.rows.map((row) => row.name)).toEqual(["good", "goodToo"]);
    for (const row of written.rows) expect(row.xmin).toBe(row.transfer_xmin);
    await transfers.whenIdle();
  });
});
