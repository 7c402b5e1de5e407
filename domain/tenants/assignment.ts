// PUT /my-integration/tenant: puts the token's merchant account (its link to the integration) in one of
// the integration's active tenants, replacing any earlier one. A merchant account is in at most one
// tenant per integration: the link row holds it (`merchant_links.tenant_id`).
//
// The three 404s, checked in this order under row locks, so that none can be outrun by a concurrent change:
// - `IntegrationCollectGroupNotFoundError` (documented as "integration onboarding incomplete"). In Cobro the
//   group an integration collects through is the integration itself: its tenants and its merchants' links
//   hang directly off its row, created whole in one transaction, so there is no half-onboarded state to
//   find. What remains is the integration's row being gone (removed by an operator) after the token was
//   checked: the row is locked `for key share`, and a deletion that committed meanwhile gives this 404.
// - `ClientUserNotFoundForBindingError` ("not linked"): the token check answers 403 first for an account
//   that is not linked, so this is reached only when the link is ended between the token check and the
//   assignment (the link row is locked and re-read with `unlinked_at is null`).
// - `TenantNotFoundError`: no active tenant (`deleted_at is null`) of this integration has that key; a
//   deleted tenant and another integration's tenant are the same "not found". The tenant row is locked
//   `for share`, so a concurrent deletion waits for the assignment and then sees the bound account
//   (`TenantHasBoundUsersError`), and an assignment waiting for a deletion sees it deleted.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { DomainError, ValidationError } from "../errors.ts";

export interface TenantAssignmentContext {
  integrationClientId: string;
  /** The `merchant_links` row of the token's merchant account in this integration. */
  linkId: string;
}

export async function assignMerchantToTenant(
  db: Kysely<Database>,
  context: TenantAssignmentContext,
  tenantKey: string,
): Promise<{ tenantKey: string; name: string }> {
  if (tenantKey.length === 0) throw ValidationError.of("tenantKey", "minLength", "tenantKey must not be empty", { limit: 1 });
  return db.transaction().execute(async (trx) => {
    const integration = await trx.selectFrom("integration_clients").select("id").where("id", "=", context.integrationClientId).forKeyShare().executeTakeFirst();
    if (!integration) throw new DomainError("IntegrationCollectGroupNotFoundError", "The integration's onboarding is incomplete: it has no collect group");
    const link = await trx
      .selectFrom("merchant_links")
      .select("id")
      .where("id", "=", context.linkId)
      .where("integration_client_id", "=", context.integrationClientId)
      .where("unlinked_at", "is", null)
      .forNoKeyUpdate()
      .executeTakeFirst();
    if (!link) throw new DomainError("ClientUserNotFoundForBindingError", "No integration account was found for the authenticated user");
    const tenant = await trx
      .selectFrom("integration_tenants")
      .select(["id", "key", "name"])
      .where("integration_client_id", "=", context.integrationClientId)
      .where("key", "=", tenantKey)
      .where("deleted_at", "is", null)
      .forShare()
      .executeTakeFirst();
    if (!tenant) throw new DomainError("TenantNotFoundError", "The specified tenant does not exist or was deleted");
    await trx.updateTable("merchant_links").set({ tenant_id: tenant.id }).where("id", "=", link.id).execute();
    return { tenantKey: tenant.key, name: tenant.name };
  });
}
