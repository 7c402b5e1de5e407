// Kysely does not nest transactions (`Transaction.transaction()` throws). A domain step that is a use case
// on its own and also a step of a larger one takes either: given the caller's transaction it runs inside
// it, so the larger use case commits or rolls back as one; given the database it opens its own.
//
// Work at first commit: a caller can ask that something be written in the same transaction as whatever
// change a step makes (the audit log's entry of an admin action), without the step knowing about it. The
// caller hands the step a database handle of its own (`withWorkAtFirstCommit`): the first transaction
// opened through that handle to commit runs the work just before its COMMIT, so both commit or neither
// does. Only that handle's transactions can take the work: whatever runs on the service's database
// (bookkeeping that commits apart from the change, such as the count of a credential guess) cannot,
// unless the step hands the work over itself (`takeWorkAtFirstCommit`): a step whose change is made by a
// transaction it shares with others (a batch of transfers) takes its caller's work into that transaction,
// and does the works of one kind (their audit entries) in one statement (`doTakenWork`), or writes them as
// a part of its own last statement (`takenWorkStatements`), saving the round trip.
import { sql, type Kysely, type KyselyPlugin, type RawBuilder, type Transaction, type TransactionBuilder } from "kysely";
import type { Database } from "./schema.ts";

/** A connection or a transaction: what a step that can run alone or inside a larger use case takes. */
export type Executor = Kysely<Database> | Transaction<Database>;

export function inTransaction<T>(db: Executor, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db as Transaction<Database>) : db.transaction().execute(work);
}

/**
 * `work` in a transaction in which PostgreSQL keeps one generic plan of each prepared statement, for
 * statements over arrays whose every plan reaches rows by key probes (a batch's, a dispatcher's). Left to
 * choose, PostgreSQL plans such a statement again for each array length (the custom plan knows the length,
 * so it always looks cheaper), which for a long statement and a small batch costs as much as running it.
 * Given the caller's transaction, `work` runs in it as it is.
 */
export function inGenericPlanTransaction<T>(db: Executor, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db as Transaction<Database>);
  // A handle whose sessions already keep generic plans (DatabaseHandle.batches) saves the setting's round trip.
  if (genericPlanHandles.has(db)) return db.transaction().execute(work);
  return db.transaction().execute(async (trx) => {
    await sql`set local plan_cache_mode = force_generic_plan`.execute(trx);
    return work(trx);
  });
}

/**
 * One statement with a generic plan (as inGenericPlanTransaction): `statement` must send exactly one. On a
 * handle whose sessions keep generic plans it is sent alone, its own transaction (one round trip where
 * BEGIN, it and COMMIT were three; a `set_config(…, true)` in it still holds until its commit); elsewhere,
 * or in the caller's transaction, as inGenericPlanTransaction runs it.
 */
export function inGenericPlanStatement<T>(db: Executor, statement: (executor: Executor) => Promise<T>): Promise<T> {
  if (!db.isTransaction && genericPlanHandles.has(db)) return statement(db);
  return inGenericPlanTransaction(db, statement);
}

const genericPlanHandles = new WeakSet<Kysely<Database>>();

/** Tells inGenericPlanTransaction that every session of `db` runs with plan_cache_mode=force_generic_plan (db/connect.ts). */
export function keepsGenericPlans(db: Kysely<Database>): void {
  genericPlanHandles.add(db);
}

/** A database handle whose first committed transaction does a piece of work before its COMMIT. */
export interface WorkAtFirstCommit {
  /** The handle to give the step: the same pool and statements as the database it was made from. */
  readonly db: Kysely<Database>;
  /** Whether a transaction of the handle did the work and committed. */
  readonly committed: boolean;
  /** No later transaction does the work (the caller did it, or gave it up): for work still running after the step (a mail sent after the answer). */
  close(): void;
}

/** Leaves every statement as it is: what makes `withPlugin` return a handle of its own on the same database. */
const SAME_STATEMENTS: KyselyPlugin = {
  transformQuery: (args) => args.node,
  transformResult: async (args) => args.result,
};

/**
 * A handle on `db` whose first transaction to commit runs `work` just before it commits, once. A
 * transaction that rolls back (or whose COMMIT fails) leaves the work to the next one. `ofAKind`, when
 * given, is the same work as data, for a transaction that takes several handles' works (doTakenWork).
 */
export function withWorkAtFirstCommit<Item>(
  db: Kysely<Database>,
  work: (trx: Transaction<Database>) => Promise<void>,
  ofAKind?: WorkOfAKind<Item>,
): WorkAtFirstCommit {
  const state = { claimed: false, committed: false };
  const handle = db.withPlugin(SAME_STATEMENTS);
  const open = handle.transaction.bind(handle);
  handle.transaction = () => doingWorkBeforeCommit(open(), state, work);
  // Items of one `doAll` are only ever given to it: its type is the one it was given with.
  workOfHandles.set(handle, { state, work, ofAKind: ofAKind as WorkOfAKind | undefined });
  return {
    db: handle,
    get committed() {
      return state.committed;
    },
    close: () => {
      state.claimed = true;
    },
  };
}

/**
 * The work as data, for a transaction that takes the works of several handles: the works with the same
 * `doAll` are done by one call of it, given each one's item (what `work` would have written).
 */
export interface WorkOfAKind<Item = unknown> {
  doAll(trx: Transaction<Database>, items: Item[]): Promise<void>;
  /** The item as it stands now, just before the transaction commits. */
  item(): Item;
  /**
   * What `doAll` writes, as one data-modifying statement (an insert, of one text whatever the number of
   * items): a transaction can write it as a part (a CTE) of a statement of its own.
   */
  statementFor?(items: Item[]): RawBuilder<unknown>;
}

/** A handle's work at first commit, taken by a step to be done in a transaction opened on the database itself. */
export interface TakenWork {
  /** Does the work in `trx`, just before it commits. */
  run(trx: Transaction<Database>): Promise<void>;
  /** The same work as data, when the handle was given it. */
  readonly ofAKind?: WorkOfAKind;
  /** Says once whether the transaction that ran the work committed; if not, the work is the handle's again. */
  settle(committed: boolean): void;
}

const workOfHandles = new WeakMap<
  Kysely<Database>,
  { state: { claimed: boolean; committed: boolean }; work: (trx: Transaction<Database>) => Promise<void>; ofAKind?: WorkOfAKind }
>();

/** Does taken works in `trx`: those of one kind in one call of their `doAll`, in the order given; the others one by one. */
export async function doTakenWork(trx: Transaction<Database>, works: ReadonlyArray<TakenWork | undefined>): Promise<void> {
  const kinds = new Map<WorkOfAKind["doAll"], unknown[]>();
  for (const work of works) {
    if (!work) continue;
    if (!work.ofAKind) {
      await work.run(trx);
      continue;
    }
    const items = kinds.get(work.ofAKind.doAll) ?? [];
    items.push(work.ofAKind.item());
    kinds.set(work.ofAKind.doAll, items);
  }
  for (const [doAll, items] of kinds) await doAll(trx, items);
}

/**
 * Taken works, for a transaction whose last statement can carry them: those of a kind that has a statement,
 * one statement per kind with its items as they stand now (to write as CTEs of that last statement); the
 * others, to do with doTakenWork.
 */
export function takenWorkStatements(works: ReadonlyArray<TakenWork | undefined>): { statements: RawBuilder<unknown>[]; rest: TakenWork[] } {
  const kinds = new Map<NonNullable<WorkOfAKind["statementFor"]>, unknown[]>();
  const rest: TakenWork[] = [];
  for (const work of works) {
    if (!work) continue;
    const statementFor = work.ofAKind?.statementFor;
    if (!statementFor) {
      rest.push(work);
      continue;
    }
    const items = kinds.get(statementFor) ?? [];
    items.push(work.ofAKind!.item());
    kinds.set(statementFor, items);
  }
  return { statements: [...kinds].map(([statementFor, items]) => statementFor(items)), rest };
}

/**
 * Takes the work of a handle made by `withWorkAtFirstCommit`, when it is still to do: no transaction of
 * the handle does it while it is taken. Undefined for any other database handle, or once the work is done.
 */
export function takeWorkAtFirstCommit(db: Kysely<Database>): TakenWork | undefined {
  const owner = workOfHandles.get(db);
  if (!owner || owner.state.claimed) return undefined;
  owner.state.claimed = true;
  let settled = false;
  return {
    run: (trx) => owner.work(trx),
    ofAKind: owner.ofAKind,
    settle: (committed) => {
      if (settled) return;
      settled = true;
      if (committed) owner.state.committed = true;
      else owner.state.claimed = false;
    },
  };
}

function doingWorkBeforeCommit(
  builder: TransactionBuilder<Database>,
  state: { claimed: boolean; committed: boolean },
  work: (trx: Transaction<Database>) => Promise<void>,
): TransactionBuilder<Database> {
  const hooked = Object.create(builder) as TransactionBuilder<Database>;
  hooked.setAccessMode = (mode) => doingWorkBeforeCommit(builder.setAccessMode(mode), state, work);
  hooked.setIsolationLevel = (level) => doingWorkBeforeCommit(builder.setIsolationLevel(level), state, work);
  hooked.execute = async <T>(callback: (trx: Transaction<Database>) => Promise<T>): Promise<T> => {
    let claimedHere = false;
    try {
      const result = await builder.execute(async (trx) => {
        const value = await callback(trx);
        if (!state.claimed) {
          // Claimed before the await: a transaction running alongside does not do it twice.
          state.claimed = claimedHere = true;
          await work(trx);
        }
        return value;
      });
      if (claimedHere) state.committed = true;
      return result;
    } catch (error) {
      // Rolled back (or the commit failed): the work is still to do, by a later transaction or by the caller.
      if (claimedHere) state.claimed = false;
      throw error;
    }
  };
  return hooked;
}
