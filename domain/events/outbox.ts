// The event outbox: events are rows written in the transaction of the change that causes them, with their
// delivery job in that same transaction (the job runs domain/webhooks/delivery.ts): nothing is lost if the
// process dies in between, and no job exists for an event that was rolled back.
import { sql, type RawBuilder, type Transaction } from "kysely";
import { addJobExpression, DELIVER_EVENT_KEY_PREFIX, DELIVER_EVENT_TASK, QUEUE_SCHEMA } from "../../db/job-queue.ts";
import type { Database } from "../../db/schema.ts";
import type { EventsTable } from "../../db/tables/events.table.ts";

/** The event's delivery job as an SQL expression, for a statement that writes the event (the outbox). */
export function deliveryJobExpression(eventId: RawBuilder<unknown> | ReturnType<typeof sql.ref>, runAt?: RawBuilder<unknown>): RawBuilder<string> {
  return addJobExpression(DELIVER_EVENT_TASK, sql`json_build_object('eventId', ${eventId})`, {
    jobKey: sql`${DELIVER_EVENT_KEY_PREFIX}::text || ${eventId}`,
    ...(runAt ? { runAt } : {}),
  });
}

export interface NewEvent {
  type: EventsTable["type"];
  integrationClientId: string;
  merchantAccountId: string | null;
  chargeId: string | null;
  createdAt: Date;
  payload: Record<string, unknown>;
}

/**
 * The event's CTEs for a statement that writes it with the change that causes it: `event_link` (the
 * merchant's link held FOR SHARE, so an unlink cannot slip in between the check and the write),
 * `recorded_event` (the event; one of a merchant account unlinked from the integration stays hidden from it
 * for good, domain/merchants/unlinked-merchants.ts) and `event_job` (its delivery job). The statement must
 * select from `event_job`, or the job is not added.
 */
export function eventCtes(event: NewEvent): RawBuilder<unknown> {
  return sql`
    event_link as (
      select unlinked_at from merchant_links
       where integration_client_id = ${event.integrationClientId} and merchant_account_id = ${event.merchantAccountId}
         for share
    ), recorded_event as (
      insert into events (integration_client_id, merchant_account_id, charge_id, type, payload, created_at, occurred_while_unlinked)
      values (${event.integrationClientId}, ${event.merchantAccountId}, ${event.chargeId}, ${event.type}, ${JSON.stringify(event.payload)}::jsonb, ${event.createdAt},
              coalesce((select unlinked_at is not null from event_link), false))
      returning id
    ), event_job as (
      select recorded_event.id, ${deliveryJobExpression(sql.ref("recorded_event.id"))} as job from recorded_event
    )`;
}

export async function recordEvent(trx: Transaction<Database>, event: NewEvent): Promise<{ id: string; type: string; integrationClientId: string }> {
  // One statement: the link held, the event and its delivery job.
  const { rows } = await sql<{ id: string }>`with ${eventCtes(event)} select id, job from event_job`.execute(trx);
  return { id: rows[0]!.id, type: event.type, integrationClientId: event.integrationClientId };
}

/**
 * The batch form of `eventCtes`, for a statement that writes many events with the changes that cause them:
 * `events_link` (the links of all of them held FOR SHARE, in id order), `recorded_events` (the events, in
 * the order given: the event log's positions follow it) and `events_jobs` (their delivery jobs, one call).
 * The ids are given (so a caller knows which event is whose). The statement's text does not depend on how
 * many events there are (none included), so it is planned once. The statement must select from
 * `events_jobs`, or the jobs are not added.
 */
export function eventsCtes(events: Array<NewEvent & { id: string }>): RawBuilder<unknown> {
  const column = <T>(pick: (event: NewEvent & { id: string }) => T) => events.map(pick);
  return sql`
    events_input as (
      select * from unnest(${column((e) => e.id)}::uuid[], ${column((e) => e.integrationClientId)}::uuid[], ${column((e) => e.merchantAccountId)}::uuid[],
                           ${column((e) => e.chargeId)}::uuid[], ${column((e) => e.type)}::text[], ${column((e) => JSON.stringify(e.payload))}::jsonb[],
                           ${column((e) => e.createdAt)}::timestamptz[])
        with ordinality as e(id, integration_client_id, merchant_account_id, charge_id, type, payload, created_at, n)
    ), events_link as materialized (
      select l.integration_client_id, l.merchant_account_id, l.unlinked_at from merchant_links l
       where (l.integration_client_id, l.merchant_account_id) in (select integration_client_id, merchant_account_id from events_input)
       order by l.id
         for share
    ), recorded_events as (
      insert into events (id, integration_client_id, merchant_account_id, charge_id, type, payload, created_at, occurred_while_unlinked)
      select e.id, e.integration_client_id, e.merchant_account_id, e.charge_id, e.type, e.payload, e.created_at, coalesce(k.unlinked_at is not null, false)
        from events_input e
        left join events_link k on k.integration_client_id = e.integration_client_id and k.merchant_account_id = e.merchant_account_id
       order by e.n
      returning id
    ), events_jobs as (
      select job.id from ${sql.id(QUEUE_SCHEMA, "add_jobs")}((
        select coalesce(array_agg(row(${DELIVER_EVENT_TASK}::text, json_build_object('eventId', r.id), null, null, null, ${DELIVER_EVENT_KEY_PREFIX}::text || r.id, null, null)::${sql.id(QUEUE_SCHEMA, "job_spec")}), '{}')
          from recorded_events r
      )) as job
       where exists (select from recorded_events) -- none to add: the queue is not called
    )`;
}
