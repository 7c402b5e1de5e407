// Kysely does not nest transactions (`Transaction.transaction()` throws). A domain step that is a use case
// on its own and also a step of a larger one takes either: given the caller's transaction it runs inside
// it, so the larger use case commits or rolls back as one; given the database it opens its own.
//
// Commit work: a request can ask that something be written in the same transaction as whatever change it
// makes (the audit log's entry of an admin action), without every use case knowing about it. The request
// runs inside `withCommitWork`; the first transaction that is about to commit in that asynchronous context
// (any `db.transaction()` of the database opened by db/connect.ts) runs the work just before its COMMIT,
// so both commit or neither does. Bookkeeping that commits on its own before the change (the count of a
// credential guess) runs inside `outsideCommitWork`, so that it does not take the work.
import { AsyncLocalStorage } from "node:async_hooks";
import type { Kysely, Transaction, TransactionBuilder } from "kysely";
import type { Database } from "./schema.ts";

/** A connection or a transaction: what a step that can run alone or inside a larger use case takes. */
export type Executor = Kysely<Database> | Transaction<Database>;

export function inTransaction<T>(db: Executor, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db as Transaction<Database>) : db.transaction().execute(work);
}

type CommitWorkState = { work: (trx: Transaction<Database>) => Promise<void>; claimed: boolean; committed: boolean };

const pendingCommitWork = new AsyncLocalStorage<CommitWorkState>();

/** Where `run` stands with its commit work: done in a transaction that committed, or still to do. */
export interface CommitWork {
  readonly committed: boolean;
  /** No later transaction does the work (the caller did it, or gave it up): for work still running after `run` (a mail sent after the answer). */
  close(): void;
}

/**
 * Runs `run` with `work` pending: the first transaction to commit inside it runs `work` before it commits.
 * The returned state says whether that happened (when `run` opened no transaction, the caller does the work
 * itself, if at all).
 */
export async function withCommitWork<T>(work: (trx: Transaction<Database>) => Promise<void>, run: (state: CommitWork) => Promise<T>): Promise<T> {
  const state: CommitWorkState = { work, claimed: false, committed: false };
  const handle: CommitWork = {
    get committed() {
      return state.committed;
    },
    close: () => {
      state.claimed = true;
    },
  };
  return pendingCommitWork.run(state, () => run(handle));
}

/** Runs `run` as if no commit work were pending: for bookkeeping that commits on its own, apart from the change. */
export function outsideCommitWork<T>(run: () => Promise<T>): Promise<T> {
  return pendingCommitWork.exit(run);
}

/** Makes every transaction of `db` run the pending commit work (if any) just before it commits. */
export function runCommitWorkBeforeCommit(db: Kysely<Database>): Kysely<Database> {
  const open = db.transaction.bind(db);
  db.transaction = () => withPendingWork(open());
  return db;
}

function withPendingWork(builder: TransactionBuilder<Database>): TransactionBuilder<Database> {
  const hooked = Object.create(builder) as TransactionBuilder<Database>;
  hooked.setAccessMode = (mode) => withPendingWork(builder.setAccessMode(mode));
  hooked.setIsolationLevel = (level) => withPendingWork(builder.setIsolationLevel(level));
  hooked.execute = async <T>(callback: (trx: Transaction<Database>) => Promise<T>): Promise<T> => {
    const state = pendingCommitWork.getStore();
    let claimedHere = false;
    try {
      const result = await builder.execute(async (trx) => {
        const value = await callback(trx);
        if (state && !state.claimed) {
          // Claimed before the await: a transaction running alongside does not do it twice.
          state.claimed = claimedHere = true;
          await state.work(trx);
        }
        return value;
      });
      if (claimedHere) state!.committed = true;
      return result;
    } catch (error) {
      // Rolled back (or the commit failed): the work is still to do, by a later transaction or by the caller.
      if (claimedHere) state!.claimed = false;
      throw error;
    }
  };
  return hooked;
}

/**
 * Whether a transaction that commits now would run pending commit work. A use case that can make its
 * change in one statement (atomic without BEGIN and COMMIT) opens a transaction when it would.
 */
export function commitWorkPending(): boolean {
  const state = pendingCommitWork.getStore();
  return state !== undefined && !state.claimed;
}
