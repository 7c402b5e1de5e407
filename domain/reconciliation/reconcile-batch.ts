// Money in, many transfers at once: a batch of bank transfers reconciled in one transaction of set-based
// statements (each over arrays, one statement for all the items), each transfer answered exactly as it
// would have been had the batch's transfers been received one at a time, in order (`receiveTransfer`, in
// reconcile.ts, is a batch of one).
//   1. find each transfer's CVU and matching hold, record the transfers with the charge it holds for (a
//      transaction id already recorded, or earlier in the batch, is a duplicate; a simulated transfer to a
//      CVU that never held a charge of its integration is refused, not recorded), and lock those charges in
//      id order (two batches never wait for each other in a cycle);
//   2. (rarely, when a locked charge turns out closed: a charge closed by a transaction that has just
//      committed, or a CVU still held by a closed charge) match those again, up to twice;
//   3. apply the payments in arrival order per charge, here: a partial then the rest is partial_payment
//      then total_payment, and a transfer after the one that paid a charge in full is unmatched;
//   4. (only when some transfer is unmatched on a CVU that was held) read what the unmatched reasons need: the CVU's last charge,
//      the payer's last cuil-mode charge since the CVU's last cvu-mode one, whether the CVU still holds anything;
//   5. write everything in one statement: the charges, the transfers that end otherwise than recorded,
//      the payments' breakdowns, the money no charge took (an unmatched transfer, a payment's excess over
//      what was owed), the events and their delivery jobs, the CVUs given back and the reminders withdrawn
//      of the charges paid in full, the chat confirmations, and the works taken with the transfers that can
//      be written so (their requests' audit entries).
// A batch of any size is 2 statements besides BEGIN, COMMIT and the plan setting (3 with step 4; one more
// for a duplicate recorded meanwhile by another transaction, two more for a closed charge found locked),
// each of a fixed text whatever the batch's size, with one generic plan per connection. The service's
// batches run on connections whose sessions keep generic plans (DatabaseHandle.batches): no setting there.
import { randomUUID } from "node:crypto";
import { sql, type Kysely, type RawBuilder, type Transaction } from "kysely";
import { CompiledAtFirstRun } from "../../db/compiled-statement.ts";
import type { Database } from "../../db/schema.ts";
import { isRefusedData } from "../../db/errors.ts";
import { doTakenWork, inGenericPlanTransaction, takenWorkStatements, type Executor, type TakenWork } from "../../db/transactions.ts";
import type { Charge } from "../../db/tables/charges.table.ts";
import type { UnmatchedPaymentReason, UnmatchedReason } from "../../db/tables/transfers.table.ts";
import { releaseCvusCtes } from "../cvu-pool/cvu-pool.ts";
import { eventsCtes, type NewEvent } from "../events/outbox.ts";
import { insertBreakdownsCte, paymentBreakdownRow, termsOfLink } from "../earnings/payment-breakdown.ts";
import { confirmingPaymentsByChatCtes, withdrawingChargeNotifications, type ReceivedPayment } from "../notifications/charge-notifications.ts";
import { payerKeyOf } from "../tax-id.ts";
import {
  chargesWithTerms,
  cvuNotInIntegration,
  matchingHold,
  newestOfPayer,
  payerDocumentsOf,
  paymentReceivedEvent,
  paymentTo,
  subscriptionIfCvuHeld,
  unmatchedEvent,
  unmatchedReasonOf,
  type ChargeRef,
  type IncomingTransfer,
  type LockedMatch,
  type ReconciliationOutcome,
} from "./transfer-rules.ts";

type Options = { receivedAt: Date; livemode: boolean };

/** Each transfer's answer: its outcome, or the error that failed it. */
export type BatchOutcome = PromiseSettledResult<ReconciliationOutcome>;

const OPEN: ReadonlySet<Charge["state"]> = new Set(["pending", "partial_payment"]);
const TRANSFER_SOURCES: ReadonlySet<string> = new Set(["simulation", "bank-feed"]);

/**
 * Reconciles `transfers` in one transaction and answers each, in input order. A transfer the database
 * would refuse (the transfers table's constraints) is answered on its own (it changes nothing, so where it
 * stood in the batch does not matter), as is a simulated transfer refused for its CVU (fromIntegration);
 * should the database refuse some item's data anyway, each transfer is received on its own, in order, so
 * only that one fails. Any other failure (a deadlock, the database away) rejects every transfer with it:
 * nothing was written. Given a transaction, the batch runs in it and an error is the caller's.
 *
 * `atCommit[i]`, when given, is work that must commit with transfer i (its request's audit entry): done in
 * the transaction that records the transfer, just before it commits, and settled with that transaction's
 * end. In the caller's transaction, whose end is not the batch's to know, it is given back undone.
 */
export async function reconcileBatch(
  db: Executor,
  transfers: IncomingTransfer[],
  options: Options,
  atCommit: ReadonlyArray<TakenWork | undefined> = [],
): Promise<BatchOutcome[]> {
  // One transfer is its own batch: whatever fails is its own failure.
  if (transfers.length === 1) return [await settled(reconcileAlone(db, transfers[0]!, options, atCommit[0]))];
  // In the caller's transaction, a failed statement ends it: nothing can be answered apart.
  if (db.isTransaction) {
    for (const work of atCommit) work?.settle(false);
    return reconcileInOneTransaction(db as Transaction<Database>, transfers, options);
  }
  const outcomes: BatchOutcome[] = new Array(transfers.length);
  const refused: number[] = [];
  const accepted: number[] = [];
  for (const [index, transfer] of transfers.entries()) (refusedByDatabase(transfer) ? refused : accepted).push(index);
  if (accepted.length > 0) {
    try {
      const answered = await committingWith(
        accepted.map((index) => atCommit[index]),
        (trx, works) =>
          reconcileInOneTransaction(
            trx,
            accepted.map((index) => transfers[index]!),
            options,
            works,
          ),
        db,
      );
      for (const [k, outcome] of answered.entries()) outcomes[accepted[k]!] = outcome;
    } catch (error) {
      if (isRefusedData(error)) {
        // Some item's data was refused after all: each on its own, in order, so only that one fails.
        for (const index of accepted) outcomes[index] = await settled(reconcileAlone(db, transfers[index]!, options, atCommit[index]));
      } else {
        // The batch's own failure (a deadlock, the database away): nothing was written; the caller may send it again.
        for (const index of accepted) {
          outcomes[index] = { status: "rejected", reason: error };
          atCommit[index]?.settle(false);
        }
      }
    }
  }
  for (const index of refused) outcomes[index] = await settled(reconcileAlone(db, transfers[index]!, options, atCommit[index]));
  return outcomes;
}

/** One transfer in a transaction of its own (or the caller's). */
async function reconcileAlone(db: Executor, transfer: IncomingTransfer, options: Options, atCommit: TakenWork | undefined): Promise<ReconciliationOutcome> {
  if (db.isTransaction) {
    // The caller's transaction ends when the caller says: the work is given back undone.
    atCommit?.settle(false);
    const [outcome] = await reconcileInOneTransaction(db as Transaction<Database>, [transfer], options);
    return answerOf(outcome!);
  }
  try {
    const [outcome] = await committingWith([atCommit], (trx, works) => reconcileInOneTransaction(trx, [transfer], options, works), db);
    return answerOf(outcome!);
  } catch (error) {
    atCommit?.settle(false);
    throw error;
  }
}

/**
 * `change` in a transaction of the batch's own, given the work of each transfer (`atCommit`, by input
 * order) to do with the transfers it receives; each such work is settled as committed once the transaction
 * has (`change` gives back the work of a transfer it refuses).
 */
async function committingWith(
  atCommit: ReadonlyArray<TakenWork | undefined>,
  change: (trx: Transaction<Database>, atCommit: ReadonlyArray<TakenWork | undefined>) => Promise<BatchOutcome[]>,
  db: Executor,
): Promise<BatchOutcome[]> {
  // One plan of each of the batch's statements for every batch size: the generic plan reads each transfer's
  // rows by index whatever the size, which is what a custom plan chose too (docs/performance.md).
  const outcomes = await inGenericPlanTransaction(db, (trx) => change(trx, atCommit));
  for (const [index, work] of atCommit.entries()) if (outcomes[index]!.status === "fulfilled") work?.settle(true);
  return outcomes;
}

/** The outcome as receiveTransfer gives it: its value, or its error thrown. */
function answerOf<T>(outcome: PromiseSettledResult<T>): T {
  if (outcome.status === "rejected") throw outcome.reason;
  return outcome.value;
}

async function settled<T>(promise: Promise<T>): Promise<PromiseSettledResult<T>> {
  try {
    return { status: "fulfilled", value: await promise };
  } catch (reason) {
    return { status: "rejected", reason };
  }
}

/** What the transfers table refuses (the handlers validate first; this keeps one bad item from failing the batch). */
function refusedByDatabase(transfer: IncomingTransfer): boolean {
  return (
    typeof transfer.transactionId !== "string" ||
    typeof transfer.receivingCvu !== "string" ||
    !Number.isSafeInteger(transfer.amountCents) ||
    transfer.amountCents <= 0 ||
    !(transfer.operatedAt instanceof Date) ||
    Number.isNaN(transfer.operatedAt.getTime()) ||
    !TRANSFER_SOURCES.has(transfer.source)
  );
}

/** A transfer of the batch, first of its transaction id. */
interface Item {
  ord: number;
  transfer: IncomingTransfer;
  senderKey: string | null;
  transferId?: string;
  /** The charge the transfer was recorded with (its CVU's matching hold); null: recorded as ambiguous. */
  recordedChargeId?: string | null;
  accountId?: string | null;
  accountLastChargeId?: string | null;
  accountHolding?: string | null;
  match?: LockedMatch;
  /** Matched no open charge: its reason and its event (none when its CVU never held a charge). */
  unmatched?: { reason: UnmatchedReason; event: NewEvent | undefined };
  outcome?: ReconciliationOutcome;
  /** Not received: its CVU never held a charge of the integration it came from (nothing recorded). */
  refusal?: Error;
  fromIntegrationEvents?: string[];
}

type MatchRow = Partial<LockedMatch> & { item_ord: number };
type RecordRow = MatchRow & {
  transfer_id: string | null;
  recorded_charge_id: string | null;
  existing_transfer_id: string | null;
  existing_reason: UnmatchedReason | null;
  account_id: string | null;
  account_last_charge_id: string | null;
  account_holding: string | null;
  refused: boolean;
  from_integration_events: string[] | null;
};

/**
 * The batch's statements in `trx`. `atCommit[i]` (transfer i's work) is done in the batch's last statement,
 * or just after it, unless transfer i is refused: then it is given back undone.
 */
async function reconcileInOneTransaction(
  trx: Transaction<Database>,
  transfers: IncomingTransfer[],
  options: Options,
  atCommit: ReadonlyArray<TakenWork | undefined> = [],
): Promise<BatchOutcome[]> {
  // The first transfer of each transaction id; a later one repeats it.
  const firstOf = new Map<string, number>();
  const items: Item[] = [];
  const itemOf: Array<Item | undefined> = transfers.map((transfer) => {
    if (firstOf.has(transfer.transactionId)) return undefined;
    firstOf.set(transfer.transactionId, items.length);
    const item: Item = { ord: items.length, transfer, senderKey: (transfer.senderCuil ? payerKeyOf(transfer.senderCuil) : undefined) ?? null };
    items.push(item);
    return item;
  });

  await recordAndLock(trx, items, options);
  const works = atCommit.map((work, index) => {
    if (!itemOf[index]?.refusal) return work;
    work?.settle(false);
    return undefined;
  });
  await matchClosedAgain(trx, items, options);
  const applied = applyInOrder(items, options);
  await explainUnmatched(trx, items, applied, options);
  // Works of a kind that has a statement (the requests' audit entries) are written by the batch's last statement; others after it.
  const { statements, rest } = takenWorkStatements(works);
  await writeBatch(trx, items, applied, options, statements);
  await doTakenWork(trx, rest);

  return transfers.map((transfer, index): BatchOutcome => {
    const item = itemOf[index];
    if (item?.refusal) return { status: "rejected", reason: item.refusal };
    if (item) {
      const outcome = item.fromIntegrationEvents ? { ...item.outcome!, fromIntegrationEvents: item.fromIntegrationEvents } : item.outcome!;
      return { status: "fulfilled", value: outcome };
    }
    // A repeat within the batch: what the first one left. A refused transfer's id is the service's own
    // (fromIntegration), so only the same transfer repeats it, and is refused as it was.
    const first = items[firstOf.get(transfer.transactionId)!]!;
    if (first.refusal) return { status: "rejected", reason: first.refusal };
    const outcome = first.outcome!;
    return { status: "fulfilled", value: { transferId: outcome.transferId, duplicate: true, unmatchedReason: outcome.unmatchedReason } };
  });
}

/**
 * Statement 1: the transfers recorded (but those refused, whose CVU never held a charge of the integration
 * they came from), each one's CVU and matching hold, the matched charges locked in id order.
 */
async function recordAndLock(trx: Transaction<Database>, items: Item[], options: Options): Promise<void> {
  const rows = await recordStatement.execute(trx, {
    ords: items.map((i) => i.ord),
    transactionIds: items.map((i) => i.transfer.transactionId),
    amounts: items.map((i) => i.transfer.amountCents),
    cvus: items.map((i) => i.transfer.receivingCvu),
    senderCuils: items.map((i) => i.transfer.senderCuil ?? null),
    senderCvus: items.map((i) => i.transfer.senderCvu ?? null),
    senderNames: items.map((i) => i.transfer.senderName ?? null),
    operatedAts: items.map((i) => i.transfer.operatedAt),
    sources: items.map((i) => i.transfer.source),
    senderKeys: items.map((i) => i.senderKey),
    fromIntegrations: items.map((i) => i.transfer.fromIntegration ?? null),
    receivedAt: options.receivedAt,
  });

  const racing: Item[] = [];
  for (const row of rows) {
    const item = items[row.item_ord]!;
    if (row.refused) {
      item.refusal = cvuNotInIntegration();
      continue;
    }
    item.fromIntegrationEvents = row.from_integration_events ?? undefined;
    if (row.transfer_id === null) {
      if (row.existing_transfer_id === null) racing.push(item);
      else item.outcome = { transferId: row.existing_transfer_id, duplicate: true, unmatchedReason: row.existing_reason ?? undefined };
      continue;
    }
    item.transferId = row.transfer_id;
    item.recordedChargeId = row.recorded_charge_id;
    item.accountId = row.account_id;
    item.accountLastChargeId = row.account_last_charge_id;
    item.accountHolding = row.account_holding;
    item.match = matchOf(row);
  }
  // Recorded by a transaction that committed while this statement waited for it: read now.
  if (racing.length > 0) {
    const existing = await trx
      .selectFrom("transfers")
      .select(["id", "transaction_id", "unmatched_reason"])
      .where("transaction_id", "=", sql<string>`any(${racing.map((item) => item.transfer.transactionId)}::text[])`)
      .execute();
    const byTransactionId = new Map(existing.map((row) => [row.transaction_id, row]));
    for (const item of racing) {
      const row = byTransactionId.get(item.transfer.transactionId)!;
      item.outcome = { transferId: row.id, duplicate: true, unmatchedReason: row.unmatched_reason ?? undefined };
    }
  }
}

/** Statement 1's values: each item's, by position, and the batch's instant. */
interface RecordInput extends Record<string, unknown> {
  ords: number[];
  transactionIds: string[];
  amounts: number[];
  cvus: string[];
  senderCuils: Array<string | null>;
  senderCvus: Array<string | null>;
  senderNames: Array<string | null>;
  operatedAts: Date[];
  sources: string[];
  senderKeys: Array<string | null>;
  fromIntegrations: Array<string | null>;
  receivedAt: Date;
}

const RECORD_FIELDS = [
  "ords",
  "transactionIds",
  "amounts",
  "cvus",
  "senderCuils",
  "senderCvus",
  "senderNames",
  "operatedAts",
  "sources",
  "senderKeys",
  "fromIntegrations",
  "receivedAt",
] as const;

/** Statement 1, compiled at the first batch: its text is the same for every batch (its values are arrays). */
const recordStatement = new CompiledAtFirstRun<RecordInput, RecordRow>(RECORD_FIELDS, recordQuery);

function recordQuery(db: Kysely<Database>, input: RecordInput) {
  return sql<RecordRow>`
    with input as (
      select * from unnest(${input.ords}::int[], ${input.transactionIds}::text[], ${input.amounts}::bigint[],
                           ${input.cvus}::text[], ${input.senderCuils}::text[],
                           ${input.senderCvus}::text[], ${input.senderNames}::text[],
                           ${input.operatedAts}::timestamptz[], ${input.sources}::text[], ${input.senderKeys}::text[],
                           ${input.fromIntegrations}::uuid[])
        as i(item_ord, transaction_id, amount_cents, receiving_cvu, sender_cuil, sender_cvu, sender_name, operated_at, source, sender_key, from_integration)
    ), existing as (
      select t.id, t.transaction_id, t.unmatched_reason from transfers t where t.transaction_id in (select transaction_id from input)
    ), matched as materialized (
      select i.item_ord, a.id as account_id, a.last_charge_id as account_last_charge_id, a.holding as account_holding,
             (${matchingHold(db, sql.ref("a.id"), sql.ref("i.sender_key"))}) as matched_charge_id,
             case when i.from_integration is not null then (${subscriptionIfCvuHeld(db, sql.ref("a.id"), sql.ref("i.from_integration"))}) end as from_integration_events
        from input i join cvu_accounts a on a.cvu = i.receiving_cvu
    ), recorded as (
      -- In transaction id order: two batches with the same ids wait for each other in one order. Recorded
      -- with the charge its CVU's hold matched, which is nearly always the charge it pays: the batch's last
      -- statement rewrites only the transfers that end otherwise (an ambiguous one is provisional too).
      insert into transfers (transaction_id, amount_cents, receiving_cvu, sender_cuil, sender_cvu, sender_name, operated_at, received_at, source, charge_id, unmatched_reason)
      select i.transaction_id, i.amount_cents, i.receiving_cvu, i.sender_cuil, i.sender_cvu, i.sender_name, i.operated_at, ${input.receivedAt}::timestamptz, i.source,
             m.matched_charge_id, case when m.matched_charge_id is null then 'ambiguous' end
        from input i left join matched m on m.item_ord = i.item_ord
       where i.from_integration is null or m.from_integration_events is not null
       order by i.transaction_id
      on conflict (transaction_id) do nothing
      returning id, transaction_id, charge_id
    ), locked as materialized (
      -- After the insert (it reads what was recorded), so every batch waits on transaction ids before charges.
      ${chargesWithTerms(db).where("c.id", "in", sql<string>`(select charge_id from recorded)`).orderBy("c.id").forUpdate("c")}
    )
    select locked.*, i.item_ord, r.id as transfer_id, r.charge_id as recorded_charge_id, e.id as existing_transfer_id, e.unmatched_reason as existing_reason,
           m.account_id, m.account_last_charge_id, m.account_holding,
           i.from_integration is not null and m.from_integration_events is null as refused, m.from_integration_events
      from input i
      left join recorded r on r.transaction_id = i.transaction_id
      left join existing e on e.transaction_id = i.transaction_id
      left join matched m on m.item_ord = i.item_ord
      left join locked on locked.id = r.charge_id`;
}

/** The locked charge of a row, without the row's other columns; undefined when none matched. */
function matchOf(row: MatchRow): LockedMatch | undefined {
  if (row.id === null || row.id === undefined) return undefined;
  const {
    item_ord: _ord,
    transfer_id: _transfer,
    recorded_charge_id: _recorded,
    existing_transfer_id: _existing,
    existing_reason: _reason,
    account_id: _account,
    account_last_charge_id: _last,
    account_holding: _holding,
    refused: _refused,
    from_integration_events: _events,
    ...match
  } = row as RecordRow;
  return match as LockedMatch;
}

/**
 * Rarely, statements of their own: a matched charge found closed once locked was closed (and its hold released) by a
 * transaction that has just committed, so its transfers are matched again; one still closed on the third
 * look is a CVU held by a closed charge: reconciliation refuses to guess (ambiguous).
 */
async function matchClosedAgain(trx: Transaction<Database>, items: Item[], options: Options): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    const closed = items.filter((item) => item.outcome === undefined && item.match !== undefined && !OPEN.has(item.match.state));
    if (closed.length === 0) return;
    if (attempt === 3) {
      for (const item of closed) {
        const reason: UnmatchedReason = "ambiguous";
        item.outcome = { transferId: item.transferId!, duplicate: false, unmatchedReason: reason };
        item.unmatched = { reason, event: unmatchedEvent(item.transfer, reason, item.match, options) };
        item.match = undefined;
      }
      return;
    }
    const { rows } = await sql<MatchRow>`
      with wanted as (
        select * from unnest(${closed.map((item) => item.ord)}::int[], ${closed.map((item) => item.accountId!)}::uuid[], ${closed.map((item) => item.senderKey)}::text[])
          as w(item_ord, account_id, sender_key)
      ), matched as materialized (
        select w.item_ord, (${matchingHold(trx, sql.ref("w.account_id"), sql.ref("w.sender_key"))}) as matched_charge_id from wanted w
      ), locked as materialized (
        ${chargesWithTerms(trx).where("c.id", "in", sql<string>`(select matched_charge_id from matched)`).orderBy("c.id").forUpdate("c")}
      )
      select locked.*, m.item_ord from matched m left join locked on locked.id = m.matched_charge_id`.execute(trx);
    for (const row of rows) items[row.item_ord]!.match = matchOf(row);
  }
}

interface Applied {
  /** Each payment, in arrival order. */
  payments: Array<{ item: Item; charge: LockedMatch; owed: number; total: boolean }>;
  /** Each charge as the batch leaves it. */
  charges: Map<string, LockedMatch>;
  /** Each touched charge's states after each of its payments: [ord, state]. */
  states: Map<string, Array<[number, Charge["state"]]>>;
  /** The charges paid in full, with the CVU whose hold they released and when. */
  released: Array<{ ord: number; chargeId: string; accountId: string }>;
  /** Transfers that matched no open charge and need the CVU's history for their reason. */
  toExplain: Item[];
}

/** The payments in arrival order, one charge's after another's as they would have come one at a time. */
function applyInOrder(items: Item[], options: Options): Applied {
  const applied: Applied = { payments: [], charges: new Map(), states: new Map(), released: [], toExplain: [] };
  for (const item of items) {
    if (item.outcome !== undefined || item.refusal) continue; // a duplicate, settled ambiguous, or refused
    if (!item.accountId) {
      // A CVU nobody ever held: nobody to tell.
      item.outcome = { transferId: item.transferId!, duplicate: false, unmatchedReason: "no_pending" };
      item.unmatched = { reason: "no_pending", event: undefined };
      continue;
    }
    const charge = item.match ? (applied.charges.get(item.match.id) ?? item.match) : undefined;
    // A charge this batch paid in full gave its hold back: the transfer finds no hold, as it would have.
    if (!charge || !OPEN.has(charge.state)) {
      applied.toExplain.push(item);
      continue;
    }
    const { owed, total, updated } = paymentTo(charge, item.transfer, options.receivedAt);
    applied.charges.set(charge.id, updated);
    const states = applied.states.get(charge.id) ?? [];
    states.push([item.ord, updated.state]);
    applied.states.set(charge.id, states);
    applied.payments.push({ item, charge: updated, owed, total });
    if (total) applied.released.push({ ord: item.ord, chargeId: charge.id, accountId: item.accountId });
  }
  return applied;
}

/** A charge as it stood when the transfer `ord` arrived (after the batch's earlier payments). */
function asOf<C extends ChargeRef>(charge: C, ord: number, applied: Applied): C {
  const earlier = (applied.states.get(charge.id) ?? []).filter(([at]) => at < ord);
  return earlier.length === 0 ? charge : { ...charge, state: earlier[earlier.length - 1]![1] };
}

type RefRow = ChargeRef & { customer_tax_document: string | null };

/**
 * Statement 3, when some transfer matched no open charge: for each, the CVU's holds (enough of them to
 * tell whether any is left after the batch's releases), its recorded last charge and its newest one (a
 * shared CVU's last charge: the row's is stale, as joins do not write it), and the CVU's
 * cuil-mode charges since its last cvu-mode one that can be the payer's, newest first. Their reasons
 * follow, as one at a time, from the CVU's last charge (unmatchedReasonOf says which charge decides).
 */
async function explainUnmatched(trx: Transaction<Database>, items: Item[], applied: Applied, options: Options): Promise<void> {
  const wanted = applied.toExplain;
  if (wanted.length === 0) return;
  const releasedOn = (accountId: string) => applied.released.filter((release) => release.accountId === accountId);
  const documents = wanted.map((item) => (item.senderKey ? payerDocumentsOf(item.senderKey) : { dni: null, dniTrimmed: null, document: null }));
  const { rows } = await sql<{
    item_ord: number;
    held: string[];
    recorded_last: RefRow | null;
    newest: RefRow | null;
    of_payer: RefRow[];
  }>`
    with wanted as (
      select * from unnest(${wanted.map((item) => item.ord)}::int[], ${wanted.map((item) => item.accountId!)}::uuid[], ${wanted.map((item) => item.accountLastChargeId ?? null)}::uuid[],
                           ${documents.map((d) => d.dni)}::text[], ${documents.map((d) => d.dniTrimmed)}::text[], ${documents.map((d) => d.document)}::text[],
                           ${wanted.map((item) => releasedOn(item.accountId!).length + 1)}::int[])
        as w(item_ord, account_id, last_charge_id, dni, dni_trimmed, document, holds_needed)
    )
    select w.item_ord,
           array(select h.charge_id::text from cvu_holds h where h.cvu_account_id = w.account_id limit w.holds_needed) as held,
           (select ${chargeRef("c")} from charges c where c.id = w.last_charge_id) as recorded_last,
           (select ${chargeRef("c")} from charges c where c.cvu_account_id = w.account_id order by c.created_at desc, c.id desc limit 1) as newest,
           (select coalesce(jsonb_agg(${chargeRef("c")} order by c.created_at desc), '[]'::jsonb) from charges c
             where (w.dni is not null or w.document is not null) -- no sender, no charges of the CVU read
               and c.cvu_account_id = w.account_id and c.conciliation_type = 'cuil'
               -- since the CVU's last cvu-mode charge: one before it is not of what the CVU held last (unmatchedReasonOf)
               and not exists (select from charges x where x.cvu_account_id = w.account_id and x.conciliation_type = 'cvu'
                                 and (x.created_at, x.id) > (c.created_at, c.id))
               and ((w.dni is not null and (c.customer_tax_document in (w.dni, w.dni_trimmed) or substr(c.customer_tax_document, 3, 8) = w.dni))
                    or (w.dni is null and c.customer_tax_document = w.document))) as of_payer
      from wanted w`.execute(trx);
  for (const row of rows) {
    const item = items[row.item_ord]!;
    const releasedBefore = releasedOn(item.accountId!)
      .filter((release) => release.ord < item.ord)
      .map((release) => release.chargeId);
    const stillHeld = row.held.some((chargeId) => !releasedBefore.includes(chargeId));
    const forPayer = item.senderKey ? newestOfPayer(row.of_payer, item.senderKey) : undefined;
    // A shared CVU's recorded last charge is stale (charges joining it do not write its row): its newest is the last it was given.
    const recordedLast = item.accountHolding === "shared" ? (row.newest ?? row.recorded_last) : row.recorded_last;
    const lastForPayer = forPayer && asOf(forPayer, item.ord, applied);
    const last = recordedLast ? asOf(recordedLast, item.ord, applied) : lastForPayer;
    const { reason, charge } = unmatchedReasonOf({ stillHeld, lastForPayer, last });
    item.outcome = { transferId: item.transferId!, duplicate: false, unmatchedReason: reason };
    item.unmatched = { reason, event: unmatchedEvent(item.transfer, reason, charge, options) };
  }
}

/** What an unmatched reason and event need of a charge, as JSON. */
function chargeRef(alias: string) {
  const c = sql.ref(alias);
  return sql<RefRow>`jsonb_build_object('id', ${c}.id, 'state', ${c}.state, 'conciliation_type', ${c}.conciliation_type, 'reference_id', ${c}.reference_id,
    'integration_client_id', ${c}.integration_client_id, 'merchant_account_id', ${c}.merchant_account_id, 'customer_tax_document', ${c}.customer_tax_document)`;
}

/** The charge of a payment as the outcome shows it (without its link's terms). */
function chargeOf(match: LockedMatch): Charge {
  const { commission_percentage: _p, commission_fixed_cents: _f, service_commission_percentage: _s, ...charge } = match;
  return charge;
}

/** The last statement: everything the batch changes, one write per kind for all the items, and `alsoWrite` (the works taken with the transfers). */
async function writeBatch(trx: Transaction<Database>, items: Item[], applied: Applied, options: Options, alsoWrite: RawBuilder<unknown>[]): Promise<void> {
  const recorded = items.filter((item) => item.transferId !== undefined && item.outcome?.duplicate !== true);
  const paymentOf = new Map(applied.payments.map((payment) => [payment.item, payment]));
  // The events in arrival order, each with its id (the outcome names it).
  const events: Array<NewEvent & { id: string }> = [];
  for (const item of recorded) {
    const payment = paymentOf.get(item);
    const event = payment ? paymentReceivedEvent(chargeOf(payment.charge), item.transfer, payment.owed, options) : item.unmatched?.event;
    if (!event) continue;
    const id = randomUUID();
    events.push({ ...event, id });
    const written = { id, type: event.type, integrationClientId: event.integrationClientId };
    item.outcome = payment
      ? { transferId: item.transferId!, duplicate: false, charge: chargeOf(payment.charge), event: written }
      : { ...item.outcome!, event: written };
  }
  const finals = [...applied.charges.values()];
  const paidInFull = applied.released.map((release) => release.chargeId);
  // A payment's breakdown is of what its charge took: an overpayment's excess is unmatched money, split
  // only if it is assigned to a charge (then by that assignment), never if it is returned.
  const breakdowns = applied.payments.map((payment) =>
    paymentBreakdownRow(
      { transferId: payment.item.transferId!, grossCents: payment.item.transfer.amountCents - excessOf(payment), receivedAt: options.receivedAt },
      payment.charge,
      termsOfLink(payment.charge),
    ),
  );
  const received: ReceivedPayment[] = applied.payments.map(({ item, charge, total }) => ({
    charge: chargeOf(charge),
    transferId: item.transferId!,
    full: total,
    at: options.receivedAt,
  }));
  // The transfers that end otherwise than they were recorded: unmatched (recorded ambiguous, or with a
  // charge that was closed or that an earlier transfer of the batch paid in full), or matched again.
  const resettled = recorded.filter((item) => {
    const payment = paymentOf.get(item);
    return payment ? payment.charge.id !== item.recordedChargeId : item.recordedChargeId !== null || item.unmatched!.reason !== "ambiguous";
  });
  const unmatched = unmatchedMoney(recorded, paymentOf);
  const u = <T>(pick: (row: UnmatchedMoney) => T) => unmatched.map(pick);
  await sql`
    with charges_paid as (
      update charges c
         set paid_cents = u.paid_cents, state = u.state, updated_at = ${options.receivedAt}::timestamptz,
             closed_at = case when u.state = 'total_payment' then ${options.receivedAt}::timestamptz else c.closed_at end
        from unnest(${finals.map((c) => c.id)}::uuid[], ${finals.map((c) => c.paid_cents)}::bigint[], ${finals.map((c) => c.state)}::text[]) as u(id, paid_cents, state)
       where c.id = u.id
    ), transfers_settled as (
      update transfers t set charge_id = u.charge_id, unmatched_reason = u.unmatched_reason
        from unnest(${resettled.map((item) => item.transferId!)}::uuid[], ${resettled.map((item) => paymentOf.get(item)?.charge.id ?? null)}::uuid[],
                    ${resettled.map((item) => (paymentOf.has(item) ? null : item.unmatched!.reason))}::text[]) as u(id, charge_id, unmatched_reason)
       where t.id = u.id
    ), ${insertBreakdownsCte(breakdowns)},
    unmatched_recorded as (
      insert into unmatched_payments (transfer_id, reason, amount_cents, unresolved_cents, integration_client_id, merchant_account_id, charge_id, received_at, recorded_at)
      select transfer_id, reason, amount_cents, amount_cents, integration_client_id, merchant_account_id, charge_id, received_at, ${options.receivedAt}::timestamptz
        from unnest(${u((r) => r.transferId)}::uuid[], ${u((r) => r.reason)}::text[], ${u((r) => r.amountCents)}::bigint[], ${u((r) => r.integrationClientId)}::uuid[],
                    ${u((r) => r.merchantAccountId)}::uuid[], ${u((r) => r.chargeId)}::uuid[], ${u((r) => r.receivedAt)}::timestamptz[])
          as u(transfer_id, reason, amount_cents, integration_client_id, merchant_account_id, charge_id, received_at)
    ), ${releaseCvusCtes(paidInFull)},
    notifications_withdrawn as (${withdrawingChargeNotifications(trx, paidInFull)}),
    ${confirmingPaymentsByChatCtes(received, options.receivedAt)},
    ${eventsCtes(events)}
    ${sql.join(
      alsoWrite.map((statement, index) => sql`, ${sql.id(`taken_work_${index}`)} as (${statement})`),
      sql``,
    )}
    select (select count(*) from events_jobs) as events, (select count(*) from notifications_jobs) as confirmations`.execute(trx);
}

/** Money of the batch that no charge took: an unmatched transfer whole, or what a payment gave above what its charge owed. */
interface UnmatchedMoney {
  transferId: string;
  reason: UnmatchedPaymentReason;
  amountCents: number;
  integrationClientId: string | null;
  merchantAccountId: string | null;
  chargeId: string | null;
  receivedAt: Date;
}

/**
 * What a payment gave above what its charge owed at the transfer's instant (0 short of paying it in full);
 * never more than the transfer (an earlier one may have paid more than is owed now).
 */
function excessOf(payment: Applied["payments"][number]): number {
  if (!payment.total) return 0;
  return Math.max(0, Math.min(payment.charge.paid_cents - payment.owed, payment.item.transfer.amountCents));
}

function unmatchedMoney(recorded: Item[], paymentOf: ReadonlyMap<Item, Applied["payments"][number]>): UnmatchedMoney[] {
  const money: UnmatchedMoney[] = [];
  for (const item of recorded) {
    const payment = paymentOf.get(item);
    const base = { transferId: item.transferId!, receivedAt: item.transfer.operatedAt };
    if (!payment) {
      // Told to the integration of the charge its CVU held last; a CVU nobody held: the platform's.
      const event = item.unmatched!.event;
      money.push({
        ...base,
        reason: item.unmatched!.reason,
        amountCents: item.transfer.amountCents,
        integrationClientId: event?.integrationClientId ?? null,
        merchantAccountId: event?.merchantAccountId ?? null,
        chargeId: event?.chargeId ?? null,
      });
      continue;
    }
    const excess = excessOf(payment);
    if (excess === 0) continue;
    money.push({
      ...base,
      reason: "overpaid",
      amountCents: excess,
      integrationClientId: payment.charge.integration_client_id,
      merchantAccountId: payment.charge.merchant_account_id,
      chargeId: payment.charge.id,
    });
  }
  return money;
}
