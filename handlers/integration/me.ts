// GET /me: the merchant account behind the token.
import type { operations } from "../../generated/types/integration.ts";
import type { IntegrationCaller } from "../../domain/identity/callers.ts";
import { requireMerchant } from "./caller.ts";
import type { OperationHandler } from "../../server/handler-types.ts";

export const getMe: OperationHandler<operations["getMe"], IntegrationCaller> = async ({ caller, services }) => {
  const merchant = requireMerchant(caller);
  const row = await services.db
    .selectFrom("merchant_accounts as m")
    .innerJoin("merchant_links as l", "l.merchant_account_id", "m.id")
    .leftJoin("integration_tenants as tn", (join) => join.onRef("tn.id", "=", "l.tenant_id").on("tn.deleted_at", "is", null))
    .select(["m.id", "m.email", "m.fantasy_name", "m.account_holder_name", "m.account_holder_tax_id", "l.linked_at", "tn.key as tenant_key"])
    .where("m.id", "=", merchant.merchantAccountId)
    .where("l.id", "=", merchant.linkId)
    .executeTakeFirstOrThrow();
  return {
    status: 200,
    body: {
      merchantUserId: row.id,
      email: row.email,
      fantasyName: row.fantasy_name,
      accountHolderName: row.account_holder_name,
      accountHolderTaxId: row.account_holder_tax_id,
      integration: { name: merchant.integrationName },
      ...(row.tenant_key ? { tenantKey: row.tenant_key } : {}),
      linkedAt: row.linked_at.toISOString(),
    },
  };
};
