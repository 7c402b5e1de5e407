// The event outbox: events are rows written in the transaction of the change that causes them, with their
// delivery job in that same transaction (the job runs domain/webhooks/delivery.ts): nothing is lost if the
// process dies in between, and no job exists for an event that was rolled back.
import { sql, type RawBuilder } from "kysely";
import { addJobExpression, addJobsPerRow, DELIVER_EVENT_KEY_PREFIX, DELIVER_EVENT_TASK } from "../../db/job-queue.ts";
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
 * The events' CTEs for a statement that writes them with the changes that cause them: `events_link` (the
 * merchants' links held FOR SHARE, in id order, so an unlink cannot slip in between the check and the
 * write), `recorded_events` (the events, in the order given: the event log's positions follow it; one of
 * a merchant account unlinked from the integration stays hidden from it for good,
 * domain/merchants/unlinked-merchants.ts) and `events_jobs` (their delivery jobs, one call).
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
    ), events_jobs as (${addJobsPerRow("recorded_events", DELIVER_EVENT_TASK, "eventId", DELIVER_EVENT_KEY_PREFIX)}
    )`;
}
