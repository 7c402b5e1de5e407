// The event outbox: events are rows written in the transaction of the change that causes them; the
// webhook worker delivers them (nothing is lost if the process dies in between).
import type { Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { EventsTable } from "../../db/tables/payments.table.ts";

export interface NewEvent {
  type: EventsTable["type"];
  integrationClientId: string;
  merchantAccountId: string | null;
  chargeId: string | null;
  createdAt: Date;
  payload: Record<string, unknown>;
}

export async function recordEvent(trx: Transaction<Database>, event: NewEvent): Promise<{ id: string; type: string; integrationClientId: string }> {
  const row = await trx
    .insertInto("events")
    .values({
      integration_client_id: event.integrationClientId,
      merchant_account_id: event.merchantAccountId,
      charge_id: event.chargeId,
      type: event.type,
      payload: JSON.stringify(event.payload),
      created_at: event.createdAt,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return { id: row.id, type: event.type, integrationClientId: event.integrationClientId };
}
