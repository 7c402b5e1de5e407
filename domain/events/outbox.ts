// The event outbox: events are rows written in the transaction of the change that causes them, with their
// delivery job (domain/webhooks/delivery.ts) in that same transaction: nothing is lost if the process dies
// in between, and no job exists for an event that was rolled back.
import { sql, type Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { EventsTable } from "../../db/tables/payments.table.ts";
import { deliveryJobExpression } from "../webhooks/delivery.ts";

export interface NewEvent {
  type: EventsTable["type"];
  integrationClientId: string;
  merchantAccountId: string | null;
  chargeId: string | null;
  createdAt: Date;
  payload: Record<string, unknown>;
}

export async function recordEvent(trx: Transaction<Database>, event: NewEvent): Promise<{ id: string; type: string; integrationClientId: string }> {
  // One statement: the merchant's link held (FOR SHARE, so an unlink cannot slip in between the check and
  // the write), the event (one of a merchant account unlinked from the integration stays hidden from it for
  // good, domain/identity/unlinked-merchants.ts) and its delivery job.
  const { rows } = await sql<{ id: string }>`
    with link as (
      select unlinked_at from merchant_links
       where integration_client_id = ${event.integrationClientId} and merchant_account_id = ${event.merchantAccountId}
         for share
    ), recorded as (
      insert into events (integration_client_id, merchant_account_id, charge_id, type, payload, created_at, occurred_while_unlinked)
      values (${event.integrationClientId}, ${event.merchantAccountId}, ${event.chargeId}, ${event.type}, ${JSON.stringify(event.payload)}::jsonb, ${event.createdAt},
              coalesce((select unlinked_at is not null from link), false))
      returning id
    )
    select recorded.id, ${deliveryJobExpression(sql.ref("recorded.id"))} as job from recorded`.execute(trx);
  return { id: rows[0]!.id, type: event.type, integrationClientId: event.integrationClientId };
}
