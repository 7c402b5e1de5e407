// PUT /my-integration/tenant: the token's merchant account joins one of the integration's tenants.
import type { operations } from "../../generated/types/integration.ts";
import type { IntegrationCaller } from "../../domain/identity/callers.ts";
import { assignMerchantToTenant } from "../../domain/tenants/assignment.ts";
import type { OperationHandler } from "../../server/handler-types.ts";
import { requireMerchant } from "./caller.ts";

export const assignMerchantTenant: OperationHandler<operations["assignMerchantTenant"], IntegrationCaller> = async ({ body, caller, services }) => {
  const merchant = requireMerchant(caller);
  const assigned = await assignMerchantToTenant(services.db, { integrationClientId: merchant.integrationClientId, linkId: merchant.linkId }, body.tenantKey);
  return { status: 200, body: assigned };
};
