// Readiness: the service can serve when its database answers a trivial query (this throws when it does not).
import { sql, type Kysely } from "kysely";
import type { Database } from "../db/schema.ts";

export async function checkDatabaseAnswers(db: Kysely<Database>): Promise<void> {
  await sql`select 1`.execute(db);
}
