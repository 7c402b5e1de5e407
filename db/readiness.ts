// Readiness: the database answers a trivial query (it throws when it does not).
import { sql, type Kysely } from "kysely";
import type { Database } from "./schema.ts";

export async function checkDatabaseAnswers(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}
