// An integration's Sandbox clock: an offset over the service clock that only moves forward, until a reset
// starts it over at real time. Moving it runs, in the same transaction, every time-driven transition that
// came due for that integration and queues the payer notifications whose time came, so the answer already
// shows them (and a failed sweep leaves the clock where it was).
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { runTimeTransitions } from "../charges/time-transitions.ts";
import { argentinaDate } from "../argentina-time.ts";
import { integrationNow, type Clock } from "../clock.ts";
import { DomainError, ValidationError } from "../errors.ts";
import { queueDueNotifications, type DueSweepOptions } from "../notifications/due-sweep.ts";

/** An instant to move to, or an ISO 8601 duration to move by. */
export type ClockAdvance = { advanceTo: string } | { advanceBy: string };

/** `P1W`, `P2D`, `PT3H`, `P1DT12H`, `PT90M`, `PT30S` → milliseconds (the schema already checked the shape). */
export function isoDurationMs(duration: string): number {
  const match = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(duration);
  if (!match) throw ValidationError.of("advanceBy", "format", "advanceBy must be an ISO 8601 duration in weeks, days, hours, minutes and seconds");
  const [, w, d, h, m, s] = match.map((part) => Number(part ?? 0));
  return ((((w! * 7 + d!) * 24 + h!) * 60 + m!) * 60 + s!) * 1000;
}

/** The latest instant an integration's clock may show. */
const LATEST_CLOCK_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

/** Where the clock would go: refused past year 9999 and when it is not forward. */
export function clockTarget(current: Date, advance: ClockAdvance): Date {
  const target = "advanceTo" in advance ? new Date(advance.advanceTo) : new Date(current.getTime() + isoDurationMs(advance.advanceBy));
  // Dates are written with four-digit years everywhere (the contract's date patterns, PostgreSQL's range
  // is wider): a clock past 9999 could not be answered, and a huge advanceBy is not a date at all.
  if (!(target.getTime() <= LATEST_CLOCK_MS)) {
    const field = "advanceTo" in advance ? "advanceTo" : "advanceBy";
    throw ValidationError.of(field, "outOfRange", `${field} would move the clock past ${new Date(LATEST_CLOCK_MS).toISOString()}`);
  }
  if (target.getTime() <= current.getTime()) {
    throw new DomainError("SandboxClockBackwardsError", "The sandbox clock only moves forward: advanceTo must be after its current time, advanceBy positive");
  }
  return target;
}

/** Moves the integration's clock forward, runs every transition that came due and queues the notifications; answers the stored offset. */
export async function advanceSandboxClock(
  db: Kysely<Database>,
  clock: Clock,
  input: {
    integrationClientId: string;
    clockOffsetMs: number;
    advance: ClockAdvance;
    draftLifetimeHours: number;
    notificationSendsPerSecond: DueSweepOptions["sendsPerSecond"];
  },
): Promise<number> {
  const target = clockTarget(integrationNow(clock, input.clockOffsetMs), input.advance);
  const offsetMs = target.getTime() - clock.now().getTime();
  return db.transaction().execute(async (trx) => {
    // Only forward, also against a concurrent advance.
    await trx
      .updateTable("integration_clients")
      .set({ clock_offset_ms: offsetMs })
      .where("id", "=", input.integrationClientId)
      .where("clock_offset_ms", "<", offsetMs)
      .execute();
    const stored = await trx.selectFrom("integration_clients").select("clock_offset_ms").where("id", "=", input.integrationClientId).executeTakeFirstOrThrow();
    await runTimeTransitions(trx, {
      now: clock.now(),
      livemode: false,
      draftLifetimeHours: input.draftLifetimeHours,
      integrationClientId: input.integrationClientId,
    });
    // After the transitions, so a charge that closed in between still sends what came due before it closed.
    await queueDueNotifications(trx, { now: clock.now(), sendsPerSecond: input.notificationSendsPerSecond, integrationClientId: input.integrationClientId });
    return Number(stored.clock_offset_ms);
  });
}

/**
 * Starts the integration's clock over at real time. Only the clock goes back: charges, transfers and
 * events stay as the advanced clock left them (an open charge's due dates all follow its creation, so it
 * simply comes due on real time). The day's counts of the days after the new today are cleared, or those
 * days would start with what was used on them the first time round.
 */
export async function resetSandboxClock(db: Kysely<Database>, clock: Clock, input: { integrationClientId: string }): Promise<void> {
  const today = argentinaDate(clock.now());
  await db.transaction().execute(async (trx) => {
    await trx.updateTable("integration_clients").set({ clock_offset_ms: 0 }).where("id", "=", input.integrationClientId).execute();
    await trx.deleteFrom("daily_message_usage").where("scope", "=", `integration:${input.integrationClientId}`).where("day", ">", today).execute();
    await trx.deleteFrom("payer_lookup_usage").where("integration_client_id", "=", input.integrationClientId).where("day", ">", today).execute();
  });
}
