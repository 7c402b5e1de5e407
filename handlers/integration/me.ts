// GET /me: the merchant account behind the token.
import { linkedMerchant } from "../../domain/merchants/merchant-users.ts";
import { requireMerchant } from "./caller.ts";
import type { Handler } from "./handler.ts";

export const getMe: Handler<"getMe"> = async ({ caller, services }) => {
  const merchant = requireMerchant(caller);
  const row = await linkedMerchant(services.db, merchant.merchantAccountId, merchant.linkId);
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
