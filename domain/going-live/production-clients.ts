// Production's side of going live: creating the integration that a Sandbox approved, once per Sandbox
// integration. A repeated call (the Sandbox retrying after a lost answer) finds the integration already
// created and answers it, without creating a second one or mailing a second welcome.
import type { Kysely } from "kysely";
import { isUniqueViolation } from "../../db/errors.ts";
import type { Database } from "../../db/schema.ts";
import type { IntegrationType } from "../../db/tables/integration-clients.table.ts";
import type { AdminWelcome } from "../integration-clients/admin-welcome.ts";
import { registerIntegrationClient } from "../integration-clients/integration-clients.ts";
import { DomainError } from "../errors.ts";

export interface ProductionClientInput {
  name: string;
  companyName: string;
  contactEmail: string;
  description?: string;
  type: IntegrationType;
  scopes: string[];
  redirectUrls: string[];
  logoutUrls: string[];
  firstAdminEmail: string;
  firstAdminName?: string;
}

export interface ProductionClient {
  integrationClientId: string;
  providerClientId: string;
  /** Whether the first admin's welcome email went out (an earlier call's, when not created now). */
  firstAdminEmailSent: boolean;
}

export type ProvisionResult = { created: true; client: ProductionClient; firstAdminWelcome: AdminWelcome } | { created: false; client: ProductionClient };

export async function provisionProductionClient(
  db: Kysely<Database>,
  serviceEnv: "sandbox" | "production",
  sandboxClientId: string,
  input: ProductionClientInput,
  now: Date,
  /**
   * Told whether the call creates the integration before anything commits (the creation is the only change
   * it can commit): what the change is recorded with (the audit log's status).
   */
  decided?: (created: boolean) => void,
): Promise<ProvisionResult> {
  if (serviceEnv !== "production")
    throw new DomainError("ProductionOnlyError", "This deployment is the Sandbox: integrations that go live are created in the Production deployment");
  const existing = await provisionedFrom(db, sandboxClientId);
  if (existing) {
    decided?.(false);
    return { created: false, client: existing };
  }
  decided?.(true);
  try {
    const registered = await registerIntegrationClient(
      db,
      serviceEnv,
      {
        name: input.name,
        companyName: input.companyName,
        contactEmail: input.contactEmail,
        description: input.description ?? null,
        type: input.type,
        scopes: input.scopes,
        redirectUris: input.redirectUrls,
        logoutUrls: input.logoutUrls,
        provisionedFromSandboxClientId: sandboxClientId,
        firstAdmin: { email: input.firstAdminEmail, name: input.firstAdminName ?? null },
      },
      now,
    );
    return {
      created: true,
      client: { integrationClientId: registered.client.id, providerClientId: registered.client.provider_client_id, firstAdminEmailSent: false },
      firstAdminWelcome: registered.firstAdminWelcome!,
    };
  } catch (error) {
    // Two calls for the same Sandbox integration at once: the other one created it.
    if (!isUniqueViolation(error, "integration_clients_provisioned_from_sandbox_client_id_key")) throw error;
    decided?.(false);
    return { created: false, client: (await provisionedFrom(db, sandboxClientId))! };
  }
}

async function provisionedFrom(db: Kysely<Database>, sandboxClientId: string): Promise<ProductionClient | undefined> {
  const row = await db
    .selectFrom("integration_clients as c")
    .select(["c.id", "c.provider_client_id"])
    .select((eb) =>
      eb
        .exists(
          eb.selectFrom("admin_users as a").select("a.id").whereRef("a.integration_client_id", "=", "c.id").where("a.welcome_email_sent_at", "is not", null),
        )
        .as("welcome_sent"),
    )
    .where("c.provisioned_from_sandbox_client_id", "=", sandboxClientId)
    .executeTakeFirst();
  return row ? { integrationClientId: row.id, providerClientId: row.provider_client_id, firstAdminEmailSent: Boolean(row.welcome_sent) } : undefined;
}
