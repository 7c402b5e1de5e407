// The platform's suspension of an integration client. While suspended, the integration takes no new
// money commitments: creating charges (one or in bulk) and changing a charge's payer answer 404
// `IntegrationNotReadyToCollectError`. Everything about money already on its way keeps working: reads,
// cancellations, and payments to charges already open.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { IntegrationClient } from "../../db/tables/integration-clients.table.ts";
import { DomainError, ValidationError } from "../errors.ts";
import { integrationClientById } from "./integration-clients.ts";

/**
 * Suspends the client (a suspended one keeps its `suspended_at` and takes the new reason). Creates that
 * began before the suspension committed may still finish.
 */
export async function suspendIntegrationClient(
  db: Kysely<Database>,
  id: string,
  suspension: { reason: string; adminUserId: string },
  now: Date,
): Promise<IntegrationClient> {
  if (suspension.reason.trim() === "") throw ValidationError.of("reason", "blank", "reason must not be only spaces");
  const client = await integrationClientById(db, id);
  return db
    .updateTable("integration_clients")
    .set({ suspended_at: client.suspended_at ?? now, suspension_reason: suspension.reason, suspended_by_admin_id: suspension.adminUserId })
    .where("id", "=", client.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Ends the suspension; a client that is not suspended is answered as it is. */
export async function reinstateIntegrationClient(db: Kysely<Database>, id: string): Promise<IntegrationClient> {
  const client = await integrationClientById(db, id);
  return db
    .updateTable("integration_clients")
    .set({ suspended_at: null, suspension_reason: null, suspended_by_admin_id: null })
    .where("id", "=", client.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Throws 404 `IntegrationNotReadyToCollectError` when the platform has the integration suspended. */
export async function requireIntegrationCollecting(trx: Transaction<Database>, integrationClientId: string): Promise<void> {
  const client = await trx.selectFrom("integration_clients").select("suspended_at").where("id", "=", integrationClientId).executeTakeFirst();
  if (client?.suspended_at) throw integrationSuspended();
}

/** The refusal of a suspended integration's new money commitments (for reads that fold the suspension in). */
export function integrationSuspended(): DomainError {
  return new DomainError(
    "IntegrationNotReadyToCollectError",
    "The integration is suspended by the platform: it cannot create charges or change payers until it is reinstated",
  );
}
