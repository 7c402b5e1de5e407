// A Sandbox a newcomer can use at once: a platform admin, one integration with a localhost redirect URI,
// its admin, and a test merchant account linked to it.
import { randomBytes } from "node:crypto";
import { sql, type Kysely, type Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import { createAdminUser } from "../integration-clients/admin-accounts.ts";
import { createIntegrationClient } from "../integration-clients/integration-clients.ts";
import { createMerchantAccount, linkMerchant } from "../merchants/merchant-accounts.ts";
import { generatePassword } from "../secrets/hashing.ts";

export const SANDBOX_REDIRECT_URI = "http://localhost:8080/callback";

export interface SandboxCredentials {
  platformAdmin: { email: string; password: string };
  integration: { clientId: string; clientSecret: string; redirectUri: string; name: string };
  integrationAdmin: { email: string; password: string };
  merchant: { email: string; password: string; merchantUserId: string };
}

/** Creates a fresh, independent set (unique emails), all in one transaction. */
export async function createSandboxSet(db: Kysely<Database>, now: Date): Promise<SandboxCredentials> {
  return db.transaction().execute((trx) => createSandboxSetIn(trx, now));
}

async function createSandboxSetIn(trx: Transaction<Database>, now: Date): Promise<SandboxCredentials> {
  const tag = randomBytes(3).toString("hex");
  const passwords = { platformAdmin: generatePassword(), integrationAdmin: generatePassword(), merchant: generatePassword() };
  const platformAdminEmail = `platform-admin+${tag}@sandbox.cobro.test`;
  await createAdminUser(trx, { email: platformAdminEmail, password: passwords.platformAdmin, role: "PLATFORM_ADMIN", name: "Platform admin" });
  const name = `Sandbox integration ${tag}`;
  const { client, clientSecret } = await createIntegrationClient(trx, {
    name,
    companyName: "Sandbox S.A.",
    contactEmail: `integration+${tag}@sandbox.cobro.test`,
    redirectUris: [SANDBOX_REDIRECT_URI],
  });
  const integrationAdminEmail = `integration-admin+${tag}@sandbox.cobro.test`;
  await createAdminUser(trx, {
    email: integrationAdminEmail,
    password: passwords.integrationAdmin,
    role: "INTEGRATION_ADMIN",
    integrationClientId: client.id,
    name: "Integration admin",
  });
  const merchant = await createMerchantAccount(trx, {
    email: `merchant+${tag}@sandbox.cobro.test`,
    password: passwords.merchant,
    fantasyName: "Almacén de Prueba",
    accountHolderName: "Almacén de Prueba S.R.L.",
    accountHolderTaxId: "30712345671",
  });
  await linkMerchant(trx, client.id, merchant.id, now);
  return {
    platformAdmin: { email: platformAdminEmail, password: passwords.platformAdmin },
    integration: { clientId: client.provider_client_id, clientSecret, redirectUri: SANDBOX_REDIRECT_URI, name },
    integrationAdmin: { email: integrationAdminEmail, password: passwords.integrationAdmin },
    merchant: { email: merchant.email, password: passwords.merchant, merchantUserId: merchant.id },
  };
}

/**
 * On the first start of a Sandbox with an empty database, create the set; undefined when the database
 * already has an integration. Safe when several processes start at once (one advisory lock).
 */
export async function bootstrapEmptySandbox(db: Kysely<Database>, now: Date): Promise<SandboxCredentials | undefined> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('cobro.sandbox-bootstrap'))`.execute(trx);
    const any = await trx.selectFrom("integration_clients").select("id").limit(1).executeTakeFirst();
    if (any) return undefined;
    return createSandboxSetIn(trx, now);
  });
}

/** Which database this is (written once by the first migration): a Sandbox's credentials are kept per database. */
export async function installationId(db: Kysely<Database>): Promise<string> {
  const row = await db.selectFrom("installation").select("installation_id").executeTakeFirstOrThrow();
  return row.installation_id;
}
