// Creating an approved integration in Production, run by the worker: the profile, the https redirect
// and logout URIs, and the requesting admin as Production's first admin. Nothing else carries over. The
// Sandbox integration's id is Production's key for it, so an attempt repeated after a lost answer finds
// the integration already created instead of making a second one.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { httpsOnly } from "./automatic-check.ts";
import { ProvisioningFailure, type ProductionAdminApi, type ProductionClientProfile } from "./production-admin-api.ts";

export type ProvisioningOutcome =
  | { kind: "provisioned"; productionIntegrationClientId: string }
  /** Production could not be reached or answered a temporary error: try again later. */
  | { kind: "retry"; error: string }
  /** Production refused it for good: a platform admin takes over. */
  | { kind: "failed"; error: string }
  /** Not (or no longer) waiting for provisioning. */
  | { kind: "nothing_to_do" };

export async function provisionInProduction(
  db: Kysely<Database>,
  production: ProductionAdminApi,
  goLiveRequestId: string,
  now: Date,
): Promise<ProvisioningOutcome> {
  const request = await db
    .selectFrom("go_live_requests as r")
    .innerJoin("integration_clients as c", "c.id", "r.integration_client_id")
    .innerJoin("admin_users as a", "a.id", "r.requested_by_admin_id")
    .select([
      "r.id",
      "r.status",
      "r.provisioning_status",
      "c.id as client_id",
      "c.name",
      "c.company_name",
      "c.contact_email",
      "c.description",
      "c.type",
      "c.scopes",
      "c.redirect_uris",
      "c.logout_urls",
      "a.email",
      "a.name as admin_name",
    ])
    .where("r.id", "=", goLiveRequestId)
    .executeTakeFirst();
  if (request?.status !== "approved" || request.provisioning_status !== "in_progress") return { kind: "nothing_to_do" };

  const profile: ProductionClientProfile = {
    name: request.name,
    companyName: request.company_name,
    contactEmail: request.contact_email,
    ...(request.description ? { description: request.description } : {}),
    type: request.type,
    scopes: request.scopes,
    redirectUrls: httpsOnly(request.redirect_uris),
    logoutUrls: httpsOnly(request.logout_urls),
    firstAdminEmail: request.email,
    ...(request.admin_name && request.admin_name.length >= 2 ? { firstAdminName: request.admin_name } : {}),
  };
  try {
    const provisioned = await production.provisionClient(request.client_id, profile);
    await db
      .updateTable("go_live_requests")
      .set({
        provisioning_status: "provisioned",
        production_integration_client_id: provisioned.integrationClientId,
        production_client_id: provisioned.providerClientId,
        provisioned_at: now,
        provisioning_error: null,
      })
      .where("id", "=", request.id)
      .execute();
    return { kind: "provisioned", productionIntegrationClientId: provisioned.integrationClientId };
  } catch (error) {
    if (!(error instanceof ProvisioningFailure)) throw error;
    await db
      .updateTable("go_live_requests")
      .set({ provisioning_error: error.message, ...(error.permanent ? { provisioning_status: "failed" as const } : {}) })
      .where("id", "=", request.id)
      .execute();
    return error.permanent ? { kind: "failed", error: error.message } : { kind: "retry", error: error.message };
  }
}
