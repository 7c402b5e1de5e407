// The batch equals one at a time: random charges (cvu and cuil mode, shared CVUs, one or two due dates with
// a surcharge, chat confirmations on or off; left open, paid, canceled, past due, now and then closed with
// its CVU hold left behind; some paid or canceled at once, their CVU taken again by a later charge, of
// either mode: the CVU's last charge then decides an unmatched reason, not an older one) and random transfers to
// them (full, partial, over, late, from their payer, another payer or a stranger, to a CVU nobody held,
// repeating a transaction id of the batch, of an earlier batch or of before; simulated, from the integration of
// the charge or from the other, refused when the CVU never held a charge of it) are received (a) one at a
// time with receiveTransfer on one database and (b) with reconcileBatch, split into random batches, on
// another. (receiveTransfer is now a batch of one; this test first held against its own, statement-by-
// statement implementation, which it replaced.) Both must leave the same charges, transfers, breakdowns, events (in the same order) with their
// delivery jobs, payer notifications with their send jobs, unmatched money (transfers and overpayments'
// excess) and CVU pool, and answer each transfer the same.
// Two integrations share the merchant's CVU pool (an unmatched transfer's event goes to the integration of
// the charge its CVU held last). Ids differ between the two databases: rows are compared by reference id
// and transaction id, integrations and CVUs by their place.
// Replay a failure with RECONCILE_SEED=<seed> (and RECONCILE_PATH=<path>) from its report.
import fc from "fast-check";
import { sql, type Kysely } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../db/schema.ts";
import { receiveTransfer, type IncomingTransfer, type ReconciliationOutcome } from "../../domain/reconciliation/reconcile.ts";
import { reconcileBatch } from "../../domain/reconciliation/reconcile-batch.ts";
import { DomainError } from "../../domain/errors.ts";
import { cuilCandidatesOfDni } from "../../domain/tax-id.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/database.ts";
import { asIntegration, cancelSeeded, seedCharge, seedIntegration, seedMerchant, sweepAt, type ReconciliationWorld } from "../helpers/reconciliation-world.ts";

const NUM_RUNS = Number(process.env.RECONCILE_RUNS ?? 150);
const NOW = new Date("2026-11-22T15:00:00Z"); // 12:00 in Argentina
const SWEEP = new Date("2026-11-22T17:01:00Z"); // past the timed due date 14:00 in Argentina
const RECEIVED = new Date("2026-11-22T18:00:00Z");
const ON_TIME = new Date("2026-11-23T15:00:00Z");
const LATE = new Date("2026-11-27T15:00:00Z"); // past the first due date 2026-11-25 (the surcharge applies)
const NOBODYS_CVU = "0000999000000000000001";

/** Payer documents: the first two are one person (a CUIL and the DNI inside it); a 7-digit DNI; a company. */
const PAYERS = ["20301234563", "30123456", "20123456786", "1234567", "30712345671"];
const cuilOf = (document: string) => (document.length === 11 ? document : cuilCandidatesOfDni(document)[0]!);
const STRANGER = "27111111117";

/** `closed but held`: an anomaly (a closed charge whose CVU hold was left behind), which makes transfers to its CVU ambiguous. */
type Fate = "open" | "paid" | "canceled" | "overdue" | "partial_overdue" | "closed but held";
interface ChargePlan {
  /** Which of the two integrations linked to the merchant creates it (they share the merchant's CVU pool). */
  integration: number;
  mode: "cvu" | "cuil";
  payer: number;
  amount: number;
  terms: "one date" | "percentage surcharge" | "fixed surcharge";
  chat: boolean;
  confirmation: boolean | undefined;
  metadata: boolean;
  fate: Fate;
  /** Paid or canceled as soon as it is made, so that a charge made after it can take the CVU it gave back. */
  early: boolean;
}
interface TransferPlan {
  target: number;
  nobodys: boolean;
  amount: "full" | "half" | "with surcharge" | "one peso" | "double";
  sender: "payer" | "other payer" | "stranger" | "none";
  otherPayer: number;
  late: boolean;
  /** Repeats the transaction id of an earlier transfer of the scenario (or of a charge's payment before it). */
  repeats: number | undefined;
  /** Simulated from an integration (that of its target charge, or the other): refused if its CVU never held one of its charges. */
  from: "target's integration" | "other integration" | undefined;
}
interface Scenario {
  charges: ChargePlan[];
  transfers: TransferPlan[];
  /** A batch ends after transfer i when cuts[i]. */
  cuts: boolean[];
}

const scenarios: fc.Arbitrary<Scenario> = fc.record({
  charges: fc.array(
    fc.record({
      integration: fc.nat(1),
      mode: fc.constantFrom("cvu" as const, "cuil" as const),
      payer: fc.nat(PAYERS.length - 1),
      amount: fc.constantFrom(1000, 2500.5),
      terms: fc.constantFrom("one date" as const, "percentage surcharge" as const, "fixed surcharge" as const),
      chat: fc.boolean(),
      confirmation: fc.constantFrom(undefined, true, false),
      metadata: fc.boolean(),
      fate: fc.oneof(
        { weight: 14, arbitrary: fc.constantFrom<Fate>("open", "open", "open", "paid", "canceled", "overdue", "partial_overdue") },
        { weight: 1, arbitrary: fc.constant<Fate>("closed but held") },
      ),
      early: fc.boolean(),
    }),
    { minLength: 1, maxLength: 6 },
  ),
  transfers: fc.array(
    fc.record({
      target: fc.nat(5),
      nobodys: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
      amount: fc.constantFrom("full" as const, "half" as const, "with surcharge" as const, "one peso" as const, "double" as const),
      sender: fc.constantFrom("payer" as const, "payer" as const, "other payer" as const, "stranger" as const, "none" as const),
      otherPayer: fc.nat(PAYERS.length - 1),
      late: fc.boolean(),
      repeats: fc.oneof({ weight: 5, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.nat(20) }),
      from: fc.constantFrom(undefined, undefined, undefined, "target's integration" as const, "other integration" as const),
    }),
    { minLength: 1, maxLength: 14 },
  ),
  cuts: fc.array(fc.boolean(), { minLength: 14, maxLength: 14 }),
});

let sequential: TestDatabase;
let batched: TestDatabase;
const integrations = new Map<TestDatabase, string[]>();
let run = 0;
/** What the runs covered, by kind of answer: each must have come up at least once. */
const seen = new Map<string, number>();
/** A transfer's answer: its outcome, or the code of the error that refused it. */
type Answer = ReconciliationOutcome | { refused: string };
const tally = (answers: Answer[]) => {
  for (const outcome of answers) {
    const kind =
      "refused" in outcome
        ? `refused ${outcome.refused}`
        : outcome.duplicate
          ? "duplicate"
          : outcome.charge
            ? outcome.charge.state
            : `unmatched ${outcome.unmatchedReason}${outcome.event ? "" : " (no event)"}`;
    seen.set(kind, (seen.get(kind) ?? 0) + 1);
  }
};

beforeAll(async () => {
  [sequential, batched] = await Promise.all([createTestDatabase(), createTestDatabase()]);
  for (const database of [sequential, batched]) integrations.set(database, [await seedIntegration(database.db), await seedIntegration(database.db)]);
});
afterAll(async () => Promise.all([sequential?.close(), batched?.close()]));

/** The charges of the scenario, made and brought to their fates the same way on either database; the transfers to send. */
async function prepare(
  database: TestDatabase,
  scenario: Scenario,
  tag: string,
): Promise<{ world: ReconciliationWorld; transfers: IncomingTransfer[]; takenAgain: number }> {
  const world = await seedMerchant(database.db, integrations.get(database)!, NOW, tag);
  const worldOf = (plan: ChargePlan) => asIntegration(world, integrations.get(database)![plan.integration]!);
  const made: Array<{ cvu: string; plan: ChargePlan; referenceId: string }> = [];
  const paymentBefore = (i: number): IncomingTransfer => {
    const { cvu, plan } = made[i]!;
    return {
      transactionId: `${tag}-P${i}`,
      amountCents: Math.round((plan.fate === "paid" ? plan.amount : plan.amount / 2) * 100),
      receivingCvu: cvu,
      senderCuil: cuilOf(PAYERS[plan.payer]!),
      operatedAt: NOW,
      source: "simulation",
    };
  };
  const closesEarly = (plan: ChargePlan) => plan.early && (plan.fate === "paid" || plan.fate === "canceled");
  let takenAgain = 0;
  for (const [i, plan] of scenario.charges.entries()) {
    const referenceId = `${tag}-R${i}`;
    const pastDue = plan.fate === "overdue" || plan.fate === "partial_overdue";
    // A second apart: a CVU's newest charge (its last, once settled) is then the same on either database.
    const { cvu } = await seedCharge(worldOf(plan), new Date(NOW.getTime() + i * 1000), {
      referenceId,
      description: "Cuota",
      amount: plan.amount,
      dueDates: pastDue ? ["2026-11-22T14:00"] : plan.terms === "one date" ? ["2026-11-25"] : ["2026-11-25", "2026-12-05"],
      ...(pastDue || plan.terms === "one date"
        ? {}
        : { surcharge: plan.terms === "percentage surcharge" ? { type: "percentage" as const, value: 10 } : { type: "fixed" as const, value: 150.25 } }),
      conciliationType: plan.mode,
      customer: {
        name: "Pagador",
        taxDocument: PAYERS[plan.payer]!,
        ...(plan.chat ? { phoneNumber: { countryCode: "+54", number: `911${String(i).padStart(8, "0")}` } } : {}),
      },
      sendWhatsappNotification: plan.chat,
      sendEmailNotification: false,
      ...(plan.confirmation === undefined ? {} : { sendWhatsappPaymentConfirmation: plan.confirmation }),
      ...(plan.metadata ? { metadata: { order: `O-${i}` } } : {}),
    });
    if (made.some((earlier) => earlier.cvu === cvu && closesEarly(earlier.plan))) takenAgain++;
    made.push({ cvu, plan, referenceId });
    if (closesEarly(plan) && plan.fate === "paid") await receiveTransfer(database.db, paymentBefore(i), { receivedAt: NOW, livemode: false });
    if (closesEarly(plan) && plan.fate === "canceled") await cancelSeeded(worldOf(plan), NOW, referenceId);
  }
  for (const [i, { plan }] of made.entries()) {
    if (closesEarly(plan)) continue;
    if (plan.fate === "paid" || plan.fate === "partial_overdue") await receiveTransfer(database.db, paymentBefore(i), { receivedAt: NOW, livemode: false });
  }
  for (const { plan, referenceId } of made) if (plan.fate === "canceled" && !closesEarly(plan)) await cancelSeeded(worldOf(plan), NOW, referenceId);
  for (const { plan, referenceId } of made) {
    if (plan.fate === "closed but held") {
      await database.db
        .updateTable("charges")
        .set({ state: "canceled" })
        .where("merchant_account_id", "=", world.merchantAccountId)
        .where("reference_id", "=", referenceId)
        .execute();
    }
  }
  for (const integrationClientId of integrations.get(database)!) await sweepAt(asIntegration(world, integrationClientId), SWEEP);

  const transfers: IncomingTransfer[] = [];
  for (const [j, t] of scenario.transfers.entries()) {
    const target = made[t.target % made.length]!;
    const amount = {
      full: target.plan.amount,
      half: target.plan.amount / 2,
      "with surcharge": target.plan.amount * 1.1 + 150.25,
      "one peso": 1,
      double: target.plan.amount * 2,
    }[t.amount];
    const sender = { payer: cuilOf(PAYERS[target.plan.payer]!), "other payer": cuilOf(PAYERS[t.otherPayer]!), stranger: STRANGER, none: undefined }[t.sender];
    let transactionId = `${tag}-T${j}`;
    // A simulated transfer's id is the service's own: never a repeat, never repeated.
    if (t.repeats !== undefined && t.from === undefined) {
      const earlier = t.repeats % (j + made.length);
      if (earlier >= j) transactionId = `${tag}-P${earlier - j}`;
      else if (transfers[earlier]!.fromIntegration === undefined) transactionId = transfers[earlier]!.transactionId;
    }
    const ids = integrations.get(database)!;
    const fromIntegration = t.from === undefined ? undefined : ids[t.from === "target's integration" ? target.plan.integration : 1 - target.plan.integration]!;
    transfers.push({
      transactionId,
      amountCents: Math.round(amount * 100),
      receivingCvu: t.nobodys ? NOBODYS_CVU : target.cvu,
      ...(sender ? { senderCuil: sender, senderName: "Remitente" } : {}),
      operatedAt: t.late ? LATE : ON_TIME,
      ...(fromIntegration ? { source: "simulation" as const, fromIntegration } : { source: "bank-feed" as const }),
    });
  }
  return { world, transfers, takenAgain };
}

/** Everything the transfers can have changed, keyed by reference id and transaction id. */
async function snapshot(db: Kysely<Database>, world: ReconciliationWorld, integrationIds: string[], tag: string, outcomes: Answer[]) {
  const merchant = world.merchantAccountId;
  const integration = (id: unknown) => `integration[${integrationIds.indexOf(id as string)}]`;
  const charges = await sql<Record<string, unknown>>`
    select c.reference_id, c.integration_client_id, c.state, c.paid_cents, c.closed_at, c.updated_at, a.cvu
      from charges c left join cvu_accounts a on a.id = c.cvu_account_id
     where c.merchant_account_id = ${merchant} order by c.reference_id`.execute(db);
  const transfers = await sql<Record<string, unknown>>`
    select t.transaction_id, t.amount_cents, t.receiving_cvu, t.sender_cuil, t.operated_at, t.received_at, t.source, c.reference_id, t.unmatched_reason
      from transfers t left join charges c on c.id = t.charge_id
     where t.transaction_id like ${`${tag}-%`} order by t.transaction_id`.execute(db);
  const breakdowns = await sql<Record<string, unknown>>`
    select t.transaction_id, c.reference_id, b.integration_client_id, b.received_at, b.gross_cents, b.integration_commission_cents, b.service_commission_cents, b.merchant_net_cents,
           b.integration_commission_percentage, b.integration_commission_fixed_cents, b.service_commission_percentage
      from payment_breakdowns b join transfers t on t.id = b.transfer_id join charges c on c.id = b.charge_id
     where b.merchant_account_id = ${merchant} order by t.transaction_id`.execute(db);
  const events = await sql<{ id: string; payload: Record<string, unknown> } & Record<string, unknown>>`
    select e.id, e.type, e.integration_client_id, c.reference_id, e.payload, e.created_at, e.occurred_while_unlinked,
           (select count(*)::int from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
             where j.key = 'deliver-event:' || e.id and k.identifier = 'deliver-event' and j.payload->>'eventId' = e.id::text and j.max_attempts = 25) as delivery_jobs
      from events e left join charges c on c.id = e.charge_id
     where e.merchant_account_id = ${merchant}
     -- One time sweep writes its charges' expired events in no set order (by the charges' ids, which differ
     -- between the two databases): those of one sweep compare by reference; every other event by its place in the log.
     order by e.created_at, case when e.type = 'payment_request.expired' then c.reference_id end, e.log_position`.execute(db);
  const notifications = await sql<Record<string, unknown>>`
    select c.reference_id, n.integration_client_id, n.kind, n.channel, n.status, n.day::text, n.recipient, n.scheduled_for, n.queued_at, t.transaction_id,
           (select count(*)::int from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
             where j.key = 'send-notification:' || n.id and k.identifier = 'send-notification' and j.payload->>'notificationId' = n.id::text) as send_jobs
      from notifications n join charges c on c.id = n.charge_id left join transfers t on t.id = n.transfer_id
     where c.merchant_account_id = ${merchant}
     order by c.reference_id, n.kind, n.channel, n.day, t.transaction_id`.execute(db);
  const unmatched = await sql<Record<string, unknown>>`
    select t.transaction_id, u.reason, u.amount_cents, u.unresolved_cents, u.state, u.integration_client_id, c.reference_id, u.received_at, u.recorded_at
      from unmatched_payments u join transfers t on t.id = u.transfer_id left join charges c on c.id = u.charge_id
     where t.transaction_id like ${`${tag}-%`} order by t.transaction_id`.execute(db);
  const accounts = await sql<Record<string, unknown>>`
    select a.cvu, a.holding, a.open_charges, c.reference_id as last_charge
      from cvu_accounts a left join charges c on c.id = a.last_charge_id
     where a.merchant_account_id = ${merchant} order by a.cvu`.execute(db);
  const holds = await sql<Record<string, unknown>>`
    select a.cvu, c.reference_id, h.payer_key
      from cvu_holds h join cvu_accounts a on a.id = h.cvu_account_id join charges c on c.id = h.charge_id
     where a.merchant_account_id = ${merchant} order by a.cvu, h.payer_key`.execute(db);

  // CVU numbers come from a sequence, which a failed attempt also moves: compared by their place in the pool.
  const cvuLabel = new Map(accounts.rows.map((account, index) => [account.cvu as string, `pool[${index}]`]));
  const label = (cvu: unknown) => cvuLabel.get(cvu as string) ?? cvu;
  for (const row of [...charges.rows, ...accounts.rows, ...holds.rows]) row.cvu = label(row.cvu);
  for (const row of transfers.rows) row.receiving_cvu = label(row.receiving_cvu);
  for (const row of [...charges.rows, ...breakdowns.rows, ...events.rows, ...notifications.rows, ...unmatched.rows])
    row.integration_client_id = integration(row.integration_client_id);
  for (const row of events.rows) if (row.payload.cvu !== undefined) row.payload.cvu = label(row.payload.cvu);

  const transactionOf = new Map(
    (await db.selectFrom("transfers").select(["id", "transaction_id"]).where("transaction_id", "like", `${tag}-%`).execute()).map((row) => [
      row.id,
      row.transaction_id,
    ]),
  );
  const eventPosition = new Map(events.rows.map((event, index) => [event.id, index]));
  const answers = outcomes.map((outcome) =>
    "refused" in outcome
      ? outcome
      : {
          transfer: transactionOf.get(outcome.transferId),
          duplicate: outcome.duplicate,
          unmatchedReason: outcome.unmatchedReason,
          charge: outcome.charge && {
            reference_id: outcome.charge.reference_id,
            state: outcome.charge.state,
            paid_cents: outcome.charge.paid_cents,
            closed_at: outcome.charge.closed_at,
            updated_at: outcome.charge.updated_at,
            amount_cents: outcome.charge.amount_cents,
            metadata: outcome.charge.metadata,
            integration: integration(outcome.charge.integration_client_id),
          },
          event: outcome.event && {
            type: outcome.event.type,
            position: eventPosition.get(outcome.event.id),
            integration: integration(outcome.event.integrationClientId),
          },
          fromIntegrationEvents: outcome.fromIntegrationEvents,
        },
  );
  return {
    charges: charges.rows,
    transfers: transfers.rows,
    breakdowns: breakdowns.rows,
    events: events.rows.map(({ id: _id, payload: { paymentRequestId, ...payload }, ...event }) => ({
      ...event,
      payload,
      paymentRequestIdGiven: paymentRequestId !== undefined,
    })),
    notifications: notifications.rows,
    unmatched: unmatched.rows,
    accounts: accounts.rows,
    holds: holds.rows,
    answers,
  };
}

/** A transfer refused for its CVU (a simulated one's check); any other error fails the run. */
function refusal(error: unknown): Answer {
  if (error instanceof DomainError && error.code === "CvuNotInIntegrationError") return { refused: error.code };
  throw error;
}

describe("reconcileBatch equals receiveTransfer one at a time", () => {
  it("for random charges, transfers and batch splits", async () => {
    const seed = process.env.RECONCILE_SEED === undefined ? undefined : Number(process.env.RECONCILE_SEED);
    const path = process.env.RECONCILE_PATH;
    await fc.assert(
      fc.asyncProperty(scenarios, async (scenario) => {
        const tag = `run${++run}`;
        const options = { receivedAt: RECEIVED, livemode: false };

        const one = await prepare(sequential, scenario, tag);
        const oneAtATime: Answer[] = [];
        for (const transfer of one.transfers) {
          try {
            oneAtATime.push(await receiveTransfer(sequential.db, transfer, options));
          } catch (error) {
            oneAtATime.push(refusal(error));
          }
        }

        const many = await prepare(batched, scenario, tag);
        const inBatches: Answer[] = [];
        let start = 0;
        for (let i = 0; i < many.transfers.length; i++) {
          if (i < many.transfers.length - 1 && !scenario.cuts[i]) continue;
          for (const outcome of await reconcileBatch(batched.db, many.transfers.slice(start, i + 1), options)) {
            inBatches.push(outcome.status === "fulfilled" ? outcome.value : refusal(outcome.reason));
          }
          start = i + 1;
        }

        const expected = await snapshot(sequential.db, one.world, integrations.get(sequential)!, tag, oneAtATime);
        const actual = await snapshot(batched.db, many.world, integrations.get(batched)!, tag, inBatches);
        expect(actual).toEqual(expected);
        tally(oneAtATime);
        const confirmations = expected.notifications.filter((n) => n.kind === "payment_confirmation").length;
        seen.set("chat confirmations", (seen.get("chat confirmations") ?? 0) + confirmations);
        if (one.takenAgain > 0) seen.set("CVU taken again", (seen.get("CVU taken again") ?? 0) + one.takenAgain);
      }),
      { numRuns: NUM_RUNS, ...(seed === undefined ? {} : { seed }), ...(path === undefined ? {} : { path }) },
    );
    console.log(`${NUM_RUNS} runs, answers by kind: ${JSON.stringify(Object.fromEntries([...seen].sort()))}`);
    if (seed === undefined && NUM_RUNS >= 30) {
      expect([...seen.keys()].sort()).toEqual(
        expect.arrayContaining([
          "chat confirmations",
          "CVU taken again",
          "duplicate",
          "partial_payment",
          "refused CvuNotInIntegrationError",
          "total_payment",
          "unmatched already_paid",
          "unmatched ambiguous",
          "unmatched canceled",
          "unmatched expired",
          "unmatched no_cuil_match",
          "unmatched no_pending (no event)",
        ]),
      );
    }
  }, 180_000);
});
