// The webhook backlog by integration: events whose delivery is pending (taken by the worker at least
// once and not yet acknowledged, failed for good or withheld). Read through the index of pending
// deliveries, so its cost follows the backlog, not the events kept. An event the worker has not taken
// yet has no delivery row: the job queue's own waiting count shows those.
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";

export interface IntegrationBacklog {
  integrationClientId: string;
  waiting: number;
  /** The oldest waiting event's creation, on the service's clock (a Sandbox integration's runs ahead by its offset). */
  oldestCreatedAt: Date;
}

/** The `limit` integrations with most events waiting (the oldest first on ties). */
export async function integrationsWithMostWaiting(db: Kysely<Database>, limit: number): Promise<IntegrationBacklog[]> {
  const { rows } = await sql<{ integration_client_id: string; waiting: number; oldest_created_at: Date }>`
    select e.integration_client_id, count(*)::int as waiting,
           min(e.created_at) - max(i.clock_offset_ms) * interval '1 millisecond' as oldest_created_at
      from event_deliveries d
      join events e on e.id = d.event_id
      join integration_clients i on i.id = e.integration_client_id
     where d.status = 'pending'
     group by e.integration_client_id
     order by waiting desc, oldest_created_at asc
     limit ${limit}`.execute(db);
  return rows.map((row) => ({ integrationClientId: row.integration_client_id, waiting: row.waiting, oldestCreatedAt: row.oldest_created_at }));
}
