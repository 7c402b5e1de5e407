// The payer-lookup quota: 1000 units per Argentina day (reset 00:00, UTC-03:00) per integration and
// merchant account; a CUIL or CUIT costs 1 unit, a DNI 2. Units are taken by one conditional upsert on
// `payer_lookup_usage` in a transaction of their own, committed before the registry is queried: parallel
// lookups at the cap never overshoot it (the row lock serialises them and each re-checks the sum), a
// lookup that does not fit takes nothing, and a registry that then fails keeps its units consumed.
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { DocumentKind } from "../tax-id.ts";
import { argentinaDate, nextArgentinaMidnight } from "../argentina-time.ts";
import { DomainError } from "../errors.ts";

export const DAILY_LOOKUP_UNITS = 1000;
/** A counter row held by a stuck transaction must not hang lookups: give up after this (503, nothing taken). */
const QUOTA_LOCK_TIMEOUT = "1500ms";

export interface LookupQuotaContext {
  integrationClientId: string;
  merchantAccountId: string;
  now: Date;
}

export function lookupCost(kind: DocumentKind): number {
  return kind === "dni" ? 2 : 1;
}

/**
 * Takes `units` from today's quota and answers the units left, or throws 429
 * `PayerLookupDailyLimitExceededError` (they do not fit; nothing taken) or 503
 * `PayerLookupQuotaUnavailableError` (the counter could not be read or written; nothing taken).
 */
export async function consumeLookupUnits(db: Kysely<Database>, context: LookupQuotaContext, units: number): Promise<{ remaining: number }> {
  const day = argentinaDate(context.now);
  let used: number | undefined;
  // A first lookup of the day inserts its units unconditionally, so no cost may exceed the whole quota.
  if (units > DAILY_LOOKUP_UNITS) throw new RangeError(`a lookup costs at most ${DAILY_LOOKUP_UNITS} units`);
  try {
    used = await db.transaction().execute(async (trx) => {
      await sql`set local lock_timeout = '${sql.raw(QUOTA_LOCK_TIMEOUT)}'`.execute(trx);
      const result = await sql<{ units: number }>`
        insert into payer_lookup_usage (integration_client_id, merchant_account_id, day, units)
        values (${context.integrationClientId}, ${context.merchantAccountId}, ${day}, ${units})
        on conflict (integration_client_id, merchant_account_id, day) do update
          set units = payer_lookup_usage.units + excluded.units
          where payer_lookup_usage.units + excluded.units <= ${DAILY_LOOKUP_UNITS}::int
        returning units`.execute(trx);
      return result.rows[0]?.units;
    });
  } catch (error) {
    const unavailable = new DomainError(
      "PayerLookupQuotaUnavailableError",
      "The payer-lookup quota could not be checked; nothing was consumed. Retry in a few minutes",
    );
    unavailable.cause = error;
    throw unavailable;
  }
  if (used === undefined) {
    throw new DomainError(
      "PayerLookupDailyLimitExceededError",
      `The daily payer-lookup quota of ${DAILY_LOOKUP_UNITS} units is used up for this merchant account (a CUIL or CUIT costs 1 unit, a DNI 2); it resets at 00:00 Argentina time`,
      {
        availableAtUnixSeconds: Math.floor(nextArgentinaMidnight(context.now).getTime() / 1000),
        maxLookupsPerDay: DAILY_LOOKUP_UNITS,
      },
    );
  }
  return { remaining: DAILY_LOOKUP_UNITS - used };
}
