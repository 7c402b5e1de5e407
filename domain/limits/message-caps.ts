// Daily caps on chat messages: per integration (all its merchants summed; Sandbox 20, Production 200,
// raisable per integration) and one global cap shared by all integrations. Each charge created with
// `sendWhatsappNotification: true` counts 1; the day resets at 00:00 Argentina time. Counting is one
// conditional upsert per counter, so N parallel creates at the cap never overshoot it, and it runs in
// the create's transaction, so a create that fails later gives its messages back.
import { sql, type Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Executor } from "../../db/transactions.ts";
import { addDays, ARGENTINA_UTC_OFFSET, argentinaDate, startOfArgentinaDay } from "../argentina-time.ts";
import { DomainError } from "../errors.ts";

export const DEFAULT_DAILY_MESSAGE_CAP = { sandbox: 20, production: 200 } as const;

export interface MessageCapContext {
  integrationClientId: string;
  now: Date;
  serviceEnv: "sandbox" | "production";
  globalCap: number;
}

/** The integration's daily cap: its own (raised by an approved request) or the environment's default. */
export async function dailyMessageCapOf(db: Executor, integrationClientId: string, serviceEnv: "sandbox" | "production"): Promise<number> {
  const limit = await db
    .selectFrom("integration_limits")
    .select("max_messages_per_day")
    .where("integration_client_id", "=", integrationClientId)
    .executeTakeFirst();
  return limit?.max_messages_per_day ?? DEFAULT_DAILY_MESSAGE_CAP[serviceEnv];
}

/** Sets the integration's daily cap (an approved request), in the decision's transaction. */
export async function setDailyMessageCap(trx: Transaction<Database>, integrationClientId: string, perDay: number): Promise<void> {
  await trx
    .insertInto("integration_limits")
    .values({ integration_client_id: integrationClientId, max_messages_per_day: perDay })
    .onConflict((oc) => oc.column("integration_client_id").doUpdateSet({ max_messages_per_day: perDay }))
    .execute();
}

/** Counts `messages` against both caps or throws the documented 429 (or 503 when the counters cannot be read). */
export async function reserveChatMessages(trx: Transaction<Database>, context: MessageCapContext, messages: number): Promise<void> {
  if (messages === 0) return;
  const day = argentinaDate(context.now);
  const reset = startOfArgentinaDay(addDays(day, 1));
  try {
    // A counter row held by a stuck transaction must not hang creates: give up after a moment (503).
    await sql`set local lock_timeout = '2s'`.execute(trx);
    const integrationCap = await dailyMessageCapOf(trx, context.integrationClientId, context.serviceEnv);
    if (!(await take(trx, `integration:${context.integrationClientId}`, day, messages, integrationCap))) {
      throw new DomainError(
        "IntegrationDailyRequestLimitExceededError",
        `The integration's daily cap of ${integrationCap} chat messages is reached; it resets at 00:00 Argentina time`,
        {
          availableAt: `${addDays(day, 1)}T00:00:00-03:00`,
          maxRequestsPerDay: integrationCap,
          maxMessagesPerDay: integrationCap,
        },
      );
    }
    if (!(await take(trx, "global", day, messages, context.globalCap))) {
      throw new DomainError(
        "IntegrationGlobalDailyMessageLimitExceededError",
        "The global daily message cap shared by all integrations is reached; it resets at 00:00 Argentina time",
        {
          requestedMessages: messages,
          availableAtUnixSeconds: Math.floor(reset.getTime() / 1000),
        },
      );
    }
    await sql`set local lock_timeout = 0`.execute(trx);
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw new DomainError("IntegrationDailyLimitUnavailableError", "The daily message cap could not be checked; retry in a few minutes");
  }
}

async function take(trx: Transaction<Database>, scope: string, day: string, messages: number, cap: number): Promise<boolean> {
  if (messages > cap) return false;
  const row = await sql<{ messages: number }>`
    insert into daily_message_usage (scope, day, messages) values (${scope}, ${day}, ${messages})
    on conflict (scope, day) do update set messages = daily_message_usage.messages + excluded.messages
      where daily_message_usage.messages + excluded.messages <= ${cap}
    returning messages`.execute(trx);
  return row.rows.length > 0;
}

/** Today's chat messages against the caps: the global counter and the integrations' highest use. */
export interface ChatCapUse {
  global: { messages: number; cap: number };
  /** The highest messages/cap among integrations (0 when none sent any today). */
  highestIntegrationRatio: number;
  /** Integrations whose count today has reached their cap. */
  integrationsAtCap: number;
}

/**
 * Reads today's counters (the day index: today's rows only). Each integration's day is its own clock's
 * (a Sandbox integration's runs ahead by its offset), as `reserveChatMessages` counts it.
 */
export async function chatCapUseToday(db: Executor, options: { now: Date; serviceEnv: "sandbox" | "production"; globalCap: number }): Promise<ChatCapUse> {
  const today = argentinaDate(options.now);
  const defaultCap = DEFAULT_DAILY_MESSAGE_CAP[options.serviceEnv];
  const { rows } = await sql<{ highest: number | null; at_cap: number; global_messages: number | null }>`
    with today as (
      select u.messages, coalesce(l.max_messages_per_day, ${defaultCap}) as cap
        from daily_message_usage u
        join integration_clients i on i.id = (case when u.scope like 'integration:%' then substr(u.scope, 13)::uuid end)
        left join integration_limits l on l.integration_client_id = i.id
       where u.day >= ${today}::date
         and u.day = ((${options.now}::timestamptz + i.clock_offset_ms * interval '1 millisecond') at time zone ${ARGENTINA_UTC_OFFSET_ZONE})::date
    )
    select max(messages::float8 / nullif(cap, 0)) as highest,
           count(*) filter (where messages >= cap)::int as at_cap,
           (select messages from daily_message_usage where scope = 'global' and day = ${today}::date) as global_messages
      from today`.execute(db);
  const row = rows[0]!;
  return {
    global: { messages: row.global_messages ?? 0, cap: options.globalCap },
    highestIntegrationRatio: row.highest ?? 0,
    integrationsAtCap: row.at_cap,
  };
}

/** Argentina's offset as PostgreSQL's `at time zone` reads a fixed one (POSIX signs: west of UTC is positive). */
const ARGENTINA_UTC_OFFSET_ZONE = `UTC${ARGENTINA_UTC_OFFSET.startsWith("-") ? "+" : "-"}${ARGENTINA_UTC_OFFSET.slice(1)}`;
