// The event outbox: events are rows written in the transaction of the change that causes them, with their
// delivery job (domain/webhooks/delivery.ts) in that same transaction: nothing is lost if the process dies
// in between, and no job exists for an event that was rolled back.
import type { Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { EventsTable } from "../../db/tables/payments.table.ts";
import { isMerchantUnlinked } from "../identity/unlinked-merchants.ts";
import { enqueueDelivery } from "../webhooks/delivery.ts";

export interface NewEvent {
  type: EventsTable["type"];
  integrationClientId: string;
  merchantAccountId: string | null;
  chargeId: string | null;
  createdAt: Date;
  payload: Record<string, unknown>;
}

export async function recordEvent(trx: Transaction<Database>, event: NewEvent): Promise<{ id: string; type: string; integrationClientId: string }> {
  // An event of a merchant account unlinked from the integration stays hidden from it for good.
  const occurredWhileUnlinked = event.merchantAccountId !== null && (await isMerchantUnlinked(trx, event.integrationClientId, event.merchantAccountId, { lockLink: true }));
  const row = await trx
    .insertInto("events")
    .values({
      integration_client_id: event.integrationClientId,
      merchant_account_id: event.merchantAccountId,
      charge_id: event.chargeId,
      type: event.type,
      payload: JSON.stringify(event.payload),
      created_at: event.createdAt,
      occurred_while_unlinked: occurredWhileUnlinked,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  await enqueueDelivery(trx, row.id);
  return { id: row.id, type: event.type, integrationClientId: event.integrationClientId };
}
