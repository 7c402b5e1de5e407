// The integration's event log read as a stream (the Admin API's `GET /my-integration/events/stream`): the
// events `GET /my-integration/events` lists (domain/events/event-log.ts: the same rows, the same
// visibility), in the log's order, resumable after any event without loss or repetition.
//
// Why not a cursor on `created_at` or on a sequence alone: events are written by concurrent transactions
// that commit in any order. A transaction that took position 41 may commit after one that took 42; a
// reader that has sent 42 and resumes "after 42" never sees 41. So the log's order is (log_xid,
// log_position): the writing transaction's id first (migration 2026_11_27_0035_event_log_order), and a read
// takes only rows whose transaction is below `pg_snapshot_xmin(pg_current_snapshot())`, the oldest
// transaction still running in the cluster. Every transaction below it has ended, so those rows are all
// there is below the horizon and will ever be; a transaction that commits later has an id at or above the
// horizon, which is after everything read. Rows above the horizon wait until it passes them (a long
// transaction anywhere holds the stream back for as long as it runs, never makes it skip).
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { DomainError } from "../errors.ts";
import { eventWithheldFromIntegration } from "../merchants/unlinked-merchants.ts";
import { refuseUnknownEvents } from "./catalog.ts";

/** A place in the event log: after (xid, position). Opaque to callers. */
export interface EventLogCursor {
  xid: string;
  position: string;
}

export interface EventStreamFilter {
  /** Only these event names (empty or absent: all). */
  events?: readonly string[];
  /** Only events of merchant accounts of this tenant of the integration. */
  tenantId?: string;
}

/** What the stream sends of one event. */
export interface StreamedEvent {
  eventId: string;
  webhookId: string;
  event: string;
  createdAt: string;
  /** The exact webhook body. */
  payload: Record<string, unknown>;
}

/**
 * Where a stream starts. `afterEventId`: after that event of the integration (404 `EventNotFoundError` when
 * it is not one, or is past retention). Without it, after every transaction that has started so far, so
 * the stream begins empty. An event name outside the catalog is 422 `UnknownWebhookEventError`.
 */
export async function startEventStream(
  db: Kysely<Database>,
  integrationClientId: string,
  options: { afterEventId?: string; filter: EventStreamFilter; retentionStart: Date },
): Promise<EventLogCursor> {
  refuseUnknownEvents(options.filter.events ?? [], "the event filter");
  if (options.afterEventId === undefined) {
    // The first id not yet assigned: every transaction from now on is after it, every earlier one before.
    const { rows } = await sql<{ xid: string }>`select pg_snapshot_xmax(pg_current_snapshot())::text as xid`.execute(db);
    return { xid: rows[0]!.xid, position: "0" };
  }
  const row = await db
    .selectFrom("events")
    .select([sql<string>`log_xid::text`.as("xid"), sql<string>`log_position::text`.as("position")])
    .where("id", "=", options.afterEventId)
    .where("integration_client_id", "=", integrationClientId)
    .where("created_at", ">=", options.retentionStart)
    .executeTakeFirst();
  if (!row) throw new DomainError("EventNotFoundError", `No event ${options.afterEventId} in the integration's last 30 days to resume after`);
  return { xid: row.xid, position: row.position };
}

/** The most rows one read looks at: a long backlog is sent in several reads. */
export const EVENT_STREAM_BATCH = 200;

/**
 * The next events after `cursor`, up to the horizon, and the cursor past every row looked at (those left
 * out by the filter or withheld too, so they are not read again). `more`: the batch was full, read again.
 */
export async function readEventStream(
  db: Kysely<Database>,
  integrationClientId: string,
  cursor: EventLogCursor,
  filter: EventStreamFilter,
): Promise<{ events: StreamedEvent[]; cursor: EventLogCursor; more: boolean }> {
  const events = filter.events && filter.events.length > 0 ? filter.events : undefined;
  const { rows } = await sql<{
    id: string;
    type: string;
    payload: Record<string, unknown>;
    created_at: Date;
    xid: string;
    position: string;
    included: boolean;
  }>`
    select e.id, e.type, e.payload, e.created_at, e.log_xid::text as xid, e.log_position::text as position,
           (not ${eventWithheldFromIntegration("e")}
            ${events ? sql`and e.type = any(${sql.val(events)}::text[])` : sql``}
            ${
              filter.tenantId !== undefined
                ? sql`and exists (select 1 from merchant_links l where l.integration_client_id = e.integration_client_id
                                   and l.merchant_account_id = e.merchant_account_id and l.tenant_id = ${filter.tenantId})`
                : sql``
            }) as included
      from events e
     where e.integration_client_id = ${integrationClientId}
       and (e.log_xid, e.log_position) > (${cursor.xid}::xid8, ${cursor.position}::bigint)
       -- The horizon (see the top of this file).
       and e.log_xid < pg_snapshot_xmin(pg_current_snapshot())
     order by e.log_xid, e.log_position
     limit ${EVENT_STREAM_BATCH}`.execute(db);
  const last = rows.at(-1);
  return {
    events: rows
      .filter((row) => row.included)
      .map((row) => ({ eventId: row.id, webhookId: row.id, event: row.type, createdAt: row.created_at.toISOString(), payload: row.payload })),
    cursor: last ? { xid: last.xid, position: last.position } : cursor,
    more: rows.length === EVENT_STREAM_BATCH,
  };
}

/**
 * Which of these integrations have events that passed below the horizon since `since` (a horizon this
 * returned before; absent: none yet), and the horizon now. One query for every stream of a process.
 */
export async function eventLogAdvance(
  db: Kysely<Database>,
  integrationClientIds: readonly string[],
  since: string | undefined,
): Promise<{ horizon: string; integrationClientIds: string[] }> {
  const { rows } = await sql<{ horizon: string; ids: string[] | null }>`
    select pg_snapshot_xmin(pg_current_snapshot())::text as horizon,
           ${
             since === undefined || integrationClientIds.length === 0
               ? sql`null::uuid[]`
               : sql`array(select distinct e.integration_client_id from events e
                            where e.integration_client_id = any(${sql.val(integrationClientIds)}::uuid[])
                              and e.log_xid >= ${since}::xid8 and e.log_xid < pg_snapshot_xmin(pg_current_snapshot()))`
           } as ids`.execute(db);
  return { horizon: rows[0]!.horizon, integrationClientIds: rows[0]!.ids ?? [] };
}
