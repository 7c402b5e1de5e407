// What an integration no longer sees of a merchant account it was unlinked from (DELETE
// /my-integration/users/{id}). While the link is unlinked, the merchant's charges and events leave the
// integration's Admin lists and none of its events is delivered (decided at each delivery attempt, so
// events already queued stop too). An event that occurs while it is unlinked is marked when recorded and
// stays hidden for good; after a re-authorization (re-link) everything else is seen again: the charges
// in their current state, the events from before the unlink, and every event from the re-link on.
// The charges themselves are untouched: they stay payable and payments are recorded as always.
import { sql, type RawBuilder } from "kysely";

import type { Executor } from "../../db/transactions.ts";
import type { OutboxEvent } from "../../db/tables/events.table.ts";

/**
 * Whether the merchant account is unlinked from the integration now. `lockLink`: hold the link row
 * (FOR SHARE) until the transaction ends, so an unlink cannot slip in between the check and the write.
 */
export async function isMerchantUnlinked(
  db: Executor,
  integrationClientId: string,
  merchantAccountId: string,
  options: { lockLink?: boolean } = {},
): Promise<boolean> {
  const link = await db
    .selectFrom("merchant_links")
    .select("unlinked_at")
    .where("integration_client_id", "=", integrationClientId)
    .where("merchant_account_id", "=", merchantAccountId)
    .$if(options.lockLink === true, (q) => q.forShare())
    .executeTakeFirst();
  return link !== undefined && link.unlinked_at !== null;
}

/** Whether the event must not reach the integration now: it occurred while unlinked, or its merchant is unlinked. */
export async function isEventWithheld(
  db: Executor,
  event: Pick<OutboxEvent, "integration_client_id" | "merchant_account_id" | "occurred_while_unlinked">,
): Promise<boolean> {
  if (event.occurred_while_unlinked) return true;
  return event.merchant_account_id !== null && isMerchantUnlinked(db, event.integration_client_id, event.merchant_account_id);
}

/**
 * SQL condition for list queries: the row under `alias` (a table with `integration_client_id` and
 * `merchant_account_id`, such as `charges` or `events`) belongs to a merchant account unlinked from its
 * integration now.
 */
export function ofUnlinkedMerchant(alias: string): RawBuilder<boolean> {
  return sql<boolean>`exists (select 1 from merchant_links unlinked where unlinked.integration_client_id = ${sql.ref(`${alias}.integration_client_id`)} and unlinked.merchant_account_id = ${sql.ref(`${alias}.merchant_account_id`)} and unlinked.unlinked_at is not null)`;
}

/** SQL condition for list queries: the event under `alias` is hidden from its integration now (see isEventWithheld). */
export function eventWithheldFromIntegration(alias: string): RawBuilder<boolean> {
  return sql<boolean>`(${sql.ref(`${alias}.occurred_while_unlinked`)} or ${ofUnlinkedMerchant(alias)})`;
}
