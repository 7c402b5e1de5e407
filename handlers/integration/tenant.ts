// PUT /my-integration/tenant: the token's merchant account joins one of the integration's tenants.
import { assignMerchantToTenant } from "../../domain/tenants/assignment.ts";
import { requireMerchant } from "./caller.ts";
import type { Handler } from "./handler.ts";

export const assignMerchantTenant: Handler<"assignMerchantTenant"> = async ({ body, caller, services }) => {
  const merchant = requireMerchant(caller);
  const assigned = await assignMerchantToTenant(services.db, { integrationClientId: merchant.integrationClientId, linkId: merchant.linkId }, body.tenantKey);
  return { status: 200, body: assigned };
};
