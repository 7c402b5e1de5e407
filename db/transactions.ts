// Kysely does not nest transactions (`Transaction.transaction()` throws). A domain step that is a use case
// on its own and also a step of a larger one takes either: given the caller's transaction it runs inside
// it, so the larger use case commits or rolls back as one; given the database it opens its own.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "./schema.ts";

/** A connection or a transaction: what a step that can run alone or inside a larger use case takes. */
export type Executor = Kysely<Database> | Transaction<Database>;

export function inTransaction<T>(db: Executor, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db as Transaction<Database>) : db.transaction().execute(work);
}
