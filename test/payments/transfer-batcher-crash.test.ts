// Group commit survives a lost process: a Production API process (its own process, over real HTTP) is
// killed (SIGKILL) while its transfer batches wait and commit; started again on the same database, every
// transfer is sent again. No acknowledged transfer is lost (each is answered `duplicate: true` with the
// transferId it was first answered), none is applied twice (each transaction id recorded once, each charge
// paid the sum of its own transfers, one event per transfer), whatever the batches held when it died.
import { createHmac, randomInt } from "node:crypto";
import type { PoolClient } from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { systemClock } from "../../domain/clock.ts";
import { freePorts } from "../../scripts/free-ports.ts";
import type { StartedCobro } from "../../scripts/cobro-process.ts";
import { dueDateIn } from "../helpers/charges.ts";
import { startCobroCluster, type CobroCluster } from "../helpers/cobro-cluster.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { ledgerViolations, NO_LEDGER_VIOLATIONS } from "../helpers/ledger-invariants.ts";
import { parseMetricsText } from "../helpers/metrics-text.ts";
import { seedCharge, seedIntegration, seedMerchant } from "../helpers/reconciliation-world.ts";
import { read, TEST_SECRET_KEY } from "../helpers/service.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

const SECRET = "bank-feed-secret-for-the-crash-test-0123";
const CHARGES = 300;
const CHARGE_PESOS = 100;
/** What each charge is paid, by its index modulo the plans: a total, partials summing to it, a transfer too many, a partial only. */
const PLANS = [[100], [40, 60], [30, 30, 40], [50, 50, 10], [25]];
const CONCURRENCY = 32;
/** Where the held charge's transfers go in the sending order (of 600): the process is killed once their batch waits. */
const HELD_AT = 120;

let database: TestDatabase;
let cluster: CobroCluster;
let metricsPort: number;
/** The test's connection holding a charge's row while the process is killed. */
let holder: PoolClient | undefined;

async function releaseHeldCharge() {
  await holder?.query("rollback");
  holder?.release();
  holder = undefined;
}

beforeAll(async () => {
  database = await createTestDatabase();
  [metricsPort] = (await freePorts(1)) as [number];
  cluster = await startCobroCluster(
    {
      SERVICE_ENV: "production",
      COBRO_SECRET_KEY: TEST_SECRET_KEY,
      COBRO_BANK_FEED_SECRET: SECRET,
      // One batch commits at a time: the transfers that arrive meanwhile wait for it, together.
      COBRO_RECONCILE_BATCHES_IN_FLIGHT: "1",
      COBRO_RECONCILE_BATCH_WINDOW_MS: "50",
    },
    { databaseUrl: database.connectionString },
  );
}, 60_000);

afterAll(async () => {
  await releaseHeldCharge();
  await cluster?.close();
  await database?.close();
}, 60_000);

interface Transfer {
  body: { transactionId: string; amount: number; receivingCvu: string; senderCuil: string; operatedAt: string };
  chargeIndex: number;
}

interface Answer {
  transferId: string;
  duplicate: boolean;
  conciliated: boolean;
  paymentRequestId?: string;
  unmatchedReason?: string;
}

/** A signed single transfer to the bank feed of the cluster's API process. */
async function send(transfer: Transfer): Promise<{ status: number; json: Answer; text: string }> {
  const raw = JSON.stringify(transfer.body);
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = createHmac("sha256", SECRET).update(`${timestamp}.${raw}`).digest("hex");
  return read(
    await fetch(`${cluster.adminUrl}/internal/bank-feed/transfers`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-bank-feed-signature": `t=${timestamp},v1=${signature}` },
      body: raw,
    }),
  );
}

/**
 * The transfers sent by CONCURRENCY callers, each taking the next one until none is left or `stopped()`;
 * a request that fails once stopped (cut off by a kill) is counted, not answered. Returns how many were cut off.
 */
async function sendAll(
  transfers: Transfer[],
  onAnswer: (transfer: Transfer, answer: Awaited<ReturnType<typeof send>>) => void,
  stopped = () => false,
): Promise<number> {
  let next = 0;
  let cutOff = 0;
  const caller = async () => {
    while (next < transfers.length && !stopped()) {
      const transfer = transfers[next++]!;
      let answer: Awaited<ReturnType<typeof send>>;
      try {
        answer = await send(transfer);
      } catch (error) {
        if (!stopped()) throw error;
        cutOff++;
        continue;
      }
      onAnswer(transfer, answer);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, caller));
  return cutOff;
}

/** The observations of `cobro_reconciliation_batch_transfers` so far: how many batches, and how many held one transfer. */
async function batchSizes(): Promise<{ batches: number; ofOne: number; transfers: number }> {
  const samples = parseMetricsText(await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text());
  const value = (name: string, labels: Record<string, string> = {}) =>
    samples
      .filter((sample) => sample.name === name && Object.entries(labels).every(([key, label]) => sample.labels[key] === label))
      .reduce((sum, sample) => sum + sample.value, 0);
  return {
    batches: value("cobro_reconciliation_batch_transfers_count"),
    ofOne: value("cobro_reconciliation_batch_transfers_bucket", { le: "1" }),
    transfers: value("cobro_reconciliation_batch_transfers_sum"),
  };
}

it("SIGKILL with transfer batches in flight loses no acknowledged transfer and applies none twice", async () => {
  const now = new Date();
  const integrationClientId = await seedIntegration(cluster.database.db);
  // A merchant's pool holds up to 100 open charges: a merchant for each 100.
  const worlds = await Promise.all(Array.from({ length: CHARGES / 100 }, () => seedMerchant(cluster.database.db, integrationClientId, now)));
  const charges: Array<{ id: string; cvu: string }> = [];
  for (let start = 0; start < CHARGES; start += worlds.length) {
    const seeded = await Promise.all(
      worlds.map((world) =>
        seedCharge(world, now, {
          referenceId: uniqueRef("CRASH"),
          description: "Cuota",
          amount: CHARGE_PESOS,
          dueDates: [dueDateIn(systemClock, 18)],
          customer: { name: "Juan Pérez" },
          sendWhatsappNotification: false,
          sendEmailNotification: false,
        } as never),
      ),
    );
    charges.push(...seeded.map(({ charge, cvu }) => ({ id: charge.id, cvu })));
  }
  const transfers: Transfer[] = charges.flatMap(({ cvu }, chargeIndex) =>
    PLANS[chargeIndex % PLANS.length]!.map((amount) => ({
      body: { transactionId: uniqueRef("BNK"), amount, receivingCvu: cvu, senderCuil: "20301234563", operatedAt: now.toISOString() },
      chargeIndex,
    })),
  );
  // Shuffled: a charge's transfers arrive in any order, in one batch or in several.
  for (let i = transfers.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [transfers[i], transfers[j]] = [transfers[j]!, transfers[i]!];
  }

  // The test holds one charge's row: the batches that pay it wait for the lock, their transfers recorded but
  // not committed, while the other batches go on (after the window) around them. It is the charge of the
  // lowest id, which batches lock first: a batch waiting for it holds no other charge's lock. Its transfers
  // are sent after HELD_AT others.
  const { id: heldId } = await cluster.database.db
    .selectFrom("charges")
    .select("id")
    .where(
      "id",
      "in",
      charges.map(({ id }) => id),
    )
    .orderBy("id")
    .executeTakeFirstOrThrow();
  const heldIndex = charges.findIndex(({ id }) => id === heldId);
  const heldTransfers = transfers.filter((transfer) => transfer.chargeIndex === heldIndex);
  transfers.splice(0, transfers.length, ...transfers.filter((transfer) => transfer.chargeIndex !== heldIndex));
  transfers.splice(HELD_AT, 0, ...heldTransfers);
  holder = await cluster.database.pool.connect();
  await holder.query("begin");
  await holder.query("select 1 from charges where id = $1 for update", [heldId]);
  const holderPid: number = (await holder.query("select pg_backend_pid() as pid")).rows[0].pid;

  const api: StartedCobro = await cluster.startApi({ COBRO_METRICS_PORT: String(metricsPort) });
  const acknowledged = new Map<string, Answer>();
  // Once PostgreSQL shows a batch waiting for the test's lock (the held charge's transfers are sent after some
  // HELD_AT - CONCURRENCY answers), the batches' sizes so far are read from the process's metrics, and it is killed
  // with the other callers' requests on their way.
  let before: Awaited<ReturnType<typeof batchSizes>> | undefined;
  let killed = false;
  const heldBatchWaits = async () => {
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 20))) {
      const { rows } = await cluster.database.pool.query("select count(*)::int as waiting from pg_stat_activity where $1 = any(pg_blocking_pids(pid))", [
        holderPid,
      ]);
      if (rows[0].waiting > 0) return;
    }
    throw new Error("no batch waited for the held charge");
  };
  const kill = async () => {
    try {
      await heldBatchWaits();
      before = await batchSizes();
      killed = true;
      await cluster.kill(api);
    } finally {
      await releaseHeldCharge();
    }
  };
  const killing = kill();
  killing.catch(() => {}); // awaited below, once the callers are done
  const cutOff = await sendAll(
    transfers,
    (transfer, answer) => {
      expect(answer.status, answer.text).toBe(200);
      acknowledged.set(transfer.body.transactionId, answer.json);
    },
    () => killed,
  );
  await killing;
  expect(killed, "killed before every transfer was answered").toBe(true);
  console.log(
    `killed after ${acknowledged.size} of ${transfers.length} transfers acknowledged, ${cutOff} cut off in flight; ${before!.batches} batches of ${before!.transfers} transfers before`,
  );
  for (const { body } of heldTransfers) expect(acknowledged.has(body.transactionId)).toBe(false);
  // The kill came with transfers on their way, and batches had held several transfers each.
  expect(cutOff).toBeGreaterThan(0);
  expect(before!.batches - before!.ofOne).toBeGreaterThan(0);

  await cluster.startApi({ COBRO_METRICS_PORT: String(metricsPort) });
  const again = new Map<string, Answer>();
  await sendAll(transfers, (transfer, answer) => {
    expect(answer.status, answer.text).toBe(200);
    again.set(transfer.body.transactionId, answer.json);
  });
  expect(again.size).toBe(transfers.length);
  for (const [transactionId, first] of acknowledged) {
    expect(again.get(transactionId), transactionId).toMatchObject({ duplicate: true, transferId: first.transferId });
  }
  // The held batches died with the process, uncommitted: their transfers are recorded by the second sending.
  for (const { body } of heldTransfers) expect(again.get(body.transactionId), body.transactionId).toMatchObject({ duplicate: false });
  const committedUnanswered = transfers.filter(({ body }) => !acknowledged.has(body.transactionId) && again.get(body.transactionId)!.duplicate).length;
  console.log(`${committedUnanswered} transfers committed before the kill but never answered`);

  const db = cluster.database.db;
  const recorded = await db
    .selectFrom("transfers")
    .select(["id", "transaction_id", "amount_cents", "charge_id", "unmatched_reason"])
    .where(
      "transaction_id",
      "in",
      transfers.map(({ body }) => body.transactionId),
    )
    .execute();
  // Each transaction id once, under the transferId every answer gave it.
  expect(recorded).toHaveLength(transfers.length);
  const byTransaction = new Map(recorded.map((row) => [row.transaction_id, row]));
  expect(byTransaction.size).toBe(transfers.length);
  for (const { body } of transfers) expect(byTransaction.get(body.transactionId)!.id, body.transactionId).toBe(again.get(body.transactionId)!.transferId);
  // What was acknowledged is what was committed.
  for (const [transactionId, first] of acknowledged) {
    const row = byTransaction.get(transactionId)!;
    expect({ paymentRequestId: first.paymentRequestId ?? null, unmatchedReason: first.unmatchedReason ?? null }, transactionId).toEqual({
      paymentRequestId: row.charge_id,
      unmatchedReason: row.unmatched_reason,
    });
  }

  const chargeRows = await db
    .selectFrom("charges")
    .select(["id", "state", "paid_cents", "amount_cents"])
    .where(
      "id",
      "in",
      charges.map(({ id }) => id),
    )
    .execute();
  const events = await db.selectFrom("events").select(["type", "charge_id", "payload"]).where("integration_client_id", "=", integrationClientId).execute();
  const owed = CHARGE_PESOS * 100;
  for (const [chargeIndex, { id }] of charges.entries()) {
    const charge = chargeRows.find((row) => row.id === id)!;
    const sent = transfers.filter((transfer) => transfer.chargeIndex === chargeIndex).map(({ body }) => byTransaction.get(body.transactionId)!);
    const applied = sent.filter((row) => row.charge_id === id);
    const paid = applied.reduce((sum, row) => sum + row.amount_cents, 0);
    // Every transfer to the charge is applied, but one that comes after it was paid in full.
    for (const row of sent) if (row.charge_id !== id) expect(row.unmatched_reason, `charge ${chargeIndex}`).toBe("already_paid");
    expect({ paid: charge.paid_cents, state: charge.state }, `charge ${chargeIndex}`).toEqual({
      paid,
      state: paid >= owed ? "total_payment" : "partial_payment",
    });
    // One payment_received event per applied transfer, of its amount.
    const received = events.filter((event) => event.type === "payment_request.payment_received" && event.charge_id === id);
    expect(received.map((event) => Math.round(Number(event.payload.thisPaymentAmount) * 100)).sort(), `charge ${chargeIndex}`).toEqual(
      applied.map((row) => row.amount_cents).sort(),
    );
  }
  // One payment.unmatched event per unmatched transfer, none for an applied one.
  const unmatchedEvents = events.filter((event) => event.type === "payment.unmatched").map((event) => String(event.payload.transactionId));
  expect(unmatchedEvents.sort()).toEqual(
    recorded
      .filter((row) => row.charge_id === null)
      .map((row) => row.transaction_id)
      .sort(),
  );
  expect(await ledgerViolations(db)).toEqual(NO_LEDGER_VIOLATIONS);
}, 60_000);
