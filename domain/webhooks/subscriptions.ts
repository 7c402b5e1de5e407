// The event subscription (`enabledEvents`) of an integration: the gate every delivery passes first, for
// matched and unmatched payments alike. Empty: nothing is delivered.
import { sql, type Kysely, type RawBuilder } from "kysely";
import type { Database } from "../../db/schema.ts";
import { refuseUnknownEvents } from "../events/catalog.ts";

export async function getSubscription(db: Kysely<Database>, integrationClientId: string): Promise<string[]> {
  const row = await db.selectFrom("integration_clients").select("enabled_events").where("id", "=", integrationClientId).executeTakeFirstOrThrow();
  return row.enabled_events;
}

/** Whether the integration subscribes to the event type: the gate of deliveries, resends and the test webhook. */
export async function isSubscribed(db: Kysely<Database>, integrationClientId: string, eventType: string): Promise<boolean> {
  return (await getSubscription(db, integrationClientId)).includes(eventType);
}

/** SQL condition: the integration under `integrationAlias` subscribes to the event type `eventType` (the gate of isSubscribed, inside a query). */
export function subscribedTo(integrationAlias: string, eventType: RawBuilder<unknown> | ReturnType<typeof sql.ref>): RawBuilder<boolean> {
  return sql<boolean>`(${eventType} = any(${sql.ref(`${integrationAlias}.enabled_events`)}))`;
}

/** Replaces the list; a name outside the catalog is 422 `UnknownWebhookEventError` and nothing changes. */
export async function replaceSubscription(db: Kysely<Database>, integrationClientId: string, enabledEvents: string[]): Promise<string[]> {
  refuseUnknownEvents(enabledEvents, "enabledEvents");
  const row = await db
    .updateTable("integration_clients")
    .set({ enabled_events: [...new Set(enabledEvents)] })
    .where("id", "=", integrationClientId)
    .returning("enabled_events")
    .executeTakeFirstOrThrow();
  return row.enabled_events;
}
