// Sandbox test tokens: merchant tokens for the integration's own test merchant account, created and linked
// on first use, without the authorization screen. The account, its link and the grant are one transaction.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { ensureTestMerchant, linkMerchant } from "../merchants/merchant-accounts.ts";
import { integrationClientById } from "../integration-clients/integration-clients.ts";
import { issueGrant, type TokenSet } from "../sign-in/oauth.ts";
import type { TokenService } from "../sign-in/tokens.ts";

export async function createTestTokens(
  db: Kysely<Database>,
  tokens: TokenService,
  integrationClientId: string,
  now: Date,
): Promise<{ tokens: TokenSet; wasLinked: boolean }> {
  return db.transaction().execute(async (trx) => {
    const client = await integrationClientById(trx, integrationClientId);
    const merchant = await ensureTestMerchant(trx, client);
    const link = await linkMerchant(trx, client.id, merchant.id, now);
    return { tokens: await issueGrant(trx, tokens, client, merchant, now), wasLinked: link.wasActive };
  });
}
