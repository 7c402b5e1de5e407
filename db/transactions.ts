// Kysely does not nest transactions (`Transaction.transaction()` throws). A domain step that is a use case
// on its own and also a step of a larger one takes either: given the caller's transaction it runs inside
// it, so the larger use case commits or rolls back as one; given the database it opens its own.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "./schema.ts";

export function inTransaction<T>(db: Kysely<Database> | Transaction<Database>, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db as Transaction<Database>) : db.transaction().execute(work);
}
