// Applying the platform's service commission deal to an integration's merchant links (the "backfill").
// A payment's split reads the deal from the merchant's link, so changing the deal means writing it to every
// link of the integration (an unlinked one too: its open charges can still be paid). That runs in batches
// within a time budget, each batch its own short transaction: `pending` above 0 means the budget ran out
// and the same save continues where this one stopped (links already carrying the deal are `skipped`).
// A batch that cannot be written (a link held by a long transaction) counts as `failed`, with its reason,
// and is tried again by the next save.
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";

export interface BackfillCounts {
  /** Links not reached within the budget. */
  pending: number;
  /** Links that could not be written, tried again by the next save. */
  failed: number;
  /** Links that already carried the deal. */
  skipped: number;
  /** Links written by this run. */
  applied: number;
  /** Every link of the integration: the sum of the four others. */
  total: number;
}

export interface BackfillOptions {
  budgetMs: number;
  /** Links written per transaction. */
  batchSize?: number;
  /** How long a batch waits for a link another transaction holds before it counts as failed. */
  lockTimeoutMs?: number;
}

export interface BackfillResult {
  counts: BackfillCounts;
  failures: Array<{ links: number; reason: string }>;
}

/** Writes `percentage` (numeric text, or null: no deal) to the integration's links, within the budget. */
export async function applyServiceCommission(
  db: Kysely<Database>,
  integrationClientId: string,
  percentage: string | null,
  options: BackfillOptions,
): Promise<BackfillResult> {
  const started = performance.now();
  const batchSize = options.batchSize ?? 500;
  const lockTimeout = `${options.lockTimeoutMs ?? 1000}ms`;
  const differs = sql<boolean>`service_commission_percentage is distinct from ${percentage}::numeric`;
  const { total, skipped } = await db
    .selectFrom("merchant_links")
    .select([
      sql<number>`count(*)::int8`.as("total"),
      sql<number>`(count(*) filter (where not (service_commission_percentage is distinct from ${percentage}::numeric)))::int8`.as("skipped"),
    ])
    .where("integration_client_id", "=", integrationClientId)
    .executeTakeFirstOrThrow();

  let applied = 0;
  let failed = 0;
  const failedIds: string[] = [];
  const failures: BackfillResult["failures"] = [];
  do {
    let next = db.selectFrom("merchant_links").select("id").where("integration_client_id", "=", integrationClientId).where(differs);
    if (failedIds.length > 0) next = next.where("id", "not in", failedIds);
    const batch = (await next.orderBy("id").limit(batchSize).execute()).map((row) => row.id);
    if (batch.length === 0) break;
    try {
      applied += await db.transaction().execute(async (trx) => {
        await sql`select set_config('lock_timeout', ${lockTimeout}, true)`.execute(trx);
        const result = await trx
          .updateTable("merchant_links")
          .set({ service_commission_percentage: percentage })
          .where("id", "in", batch)
          .where(differs)
          .executeTakeFirst();
        return Number(result.numUpdatedRows);
      });
    } catch (error) {
      failedIds.push(...batch);
      failed += batch.length;
      failures.push({ links: batch.length, reason: (error as Error).message });
    }
  } while (performance.now() - started < options.budgetMs);

  return { counts: { pending: Math.max(total - skipped - applied - failed, 0), failed, skipped, applied, total }, failures };
}
