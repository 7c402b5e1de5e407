// The job queue in tests: make a job that the queue put off (a retry's backoff) due now, rather than wait.
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";

/** The pending job with this key runs at the worker's next look (it polls every 2 s). */
export async function runJobNow(db: Kysely<Database>, jobKey: string): Promise<void> {
  await sql`update graphile_worker._private_jobs set run_at = now() where key = ${jobKey}`.execute(db);
}
