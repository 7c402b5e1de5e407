// Tenants (locations) as the integration admin manages them. Each routes the events of its merchant
// accounts to its own `webhook_url` with its own write-only validation token.
// - `key` is unique among the integration's active tenants: the partial unique index
//   integration_tenants_active_key decides, under concurrency too (409 TenantDuplicateKeyError).
// - `webhook_url` passes the SSRF guard and must resolve now (400 TenantWebhookUrlInvalidError: "points
//   to a private network or cannot be validated"); it is judged again at every delivery.
// - Creating requires the integration `type` `multitenant` (403 IntegrationNotMultitenantError);
//   reading, changing and deleting existing tenants does not.
// - A tenant with assigned (linked) merchant accounts cannot be deleted (409 TenantHasBoundUsersError).
//   The tenant row is locked first; an assignment (domain/tenants/assignment.ts) locks it `for share`,
//   so a deletion and an assignment never miss each other. Deletion is soft: the key becomes free.
import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { IntegrationTenant } from "../../db/tables/tenants.table.ts";
import { DomainError } from "../errors.ts";
import { checkDestination, type DestinationPolicy } from "../outbound/destination-guard.ts";
import { ensureSigningSecret } from "../webhooks/signing-secrets.ts";
import { sealTenantToken } from "../webhooks/validation-tokens.ts";
import { isUniqueViolation } from "../../db/errors.ts";

export interface TenantView {
  integrationTenantId: string;
  key: string;
  name: string;
  webhook_url: string;
  hasValidationToken: boolean;
}

export interface TenantContext {
  integrationClientId: string;
  policy: DestinationPolicy;
  now: Date;
}

const ACTIVE_KEY_INDEX = "integration_tenants_active_key";

const tenantNotFound = () => new DomainError("TenantNotFoundError", "The specified tenant does not exist or was deleted");
const duplicateKey = (key: string) => new DomainError("TenantDuplicateKeyError", `An active tenant of the integration already has the key "${key}"`);

function viewOf(row: IntegrationTenant): TenantView {
  return { integrationTenantId: row.id, key: row.key, name: row.name, webhook_url: row.webhook_url, hasValidationToken: row.validation_token !== null };
}

async function checkWebhookUrl(url: string, policy: DestinationPolicy): Promise<void> {
  const verdict = await checkDestination(url, policy, false);
  if (!verdict.allowed) throw new DomainError("TenantWebhookUrlInvalidError", `webhook_url is not accepted: ${verdict.reason}`);
}

export async function listTenants(db: Kysely<Database>, integrationClientId: string): Promise<TenantView[]> {
  const rows = await db
    .selectFrom("integration_tenants")
    .selectAll()
    .where("integration_client_id", "=", integrationClientId)
    .where("deleted_at", "is", null)
    .orderBy("key")
    .execute();
  return rows.map(viewOf);
}

export async function createTenant(
  db: Kysely<Database>,
  context: TenantContext,
  input: { key: string; name: string; webhookUrl: string; validationToken?: string },
): Promise<{ integrationTenantId: string; key: string; name: string }> {
  const client = await db.selectFrom("integration_clients").select("type").where("id", "=", context.integrationClientId).executeTakeFirstOrThrow();
  if (client.type !== "multitenant") throw new DomainError("IntegrationNotMultitenantError", "Tenants can be created only by integrations of type multitenant");
  await checkWebhookUrl(input.webhookUrl, context.policy);
  try {
    return await db.transaction().execute(async (trx) => {
      const id = randomUUID(); // known before the insert: the sealed token is bound to it
      const row = await trx
        .insertInto("integration_tenants")
        .values({
          id,
          integration_client_id: context.integrationClientId,
          key: input.key,
          name: input.name,
          webhook_url: input.webhookUrl,
          validation_token: sealTenantToken(id, input.validationToken ?? null),
          created_at: context.now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      // The integrator can read the secret before the first event reaches the new URL.
      await ensureSigningSecret(trx, context.integrationClientId, context.now);
      return { integrationTenantId: row.id, key: row.key, name: row.name };
    });
  } catch (error) {
    if (isUniqueViolation(error, ACTIVE_KEY_INDEX)) throw duplicateKey(input.key);
    throw error;
  }
}

async function activeTenant(db: Kysely<Database>, integrationClientId: string, tenantId: string): Promise<IntegrationTenant> {
  const row = await db
    .selectFrom("integration_tenants")
    .selectAll()
    .where("id", "=", tenantId)
    .where("integration_client_id", "=", integrationClientId)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
  if (!row) throw tenantNotFound();
  return row;
}

export async function updateTenant(
  db: Kysely<Database>,
  context: TenantContext,
  tenantId: string,
  input: { key: string; name: string; webhookUrl: string },
): Promise<TenantView> {
  await activeTenant(db, context.integrationClientId, tenantId);
  await checkWebhookUrl(input.webhookUrl, context.policy);
  try {
    const row = await db
      .updateTable("integration_tenants")
      .set({ key: input.key, name: input.name, webhook_url: input.webhookUrl })
      .where("id", "=", tenantId)
      .where("integration_client_id", "=", context.integrationClientId)
      .where("deleted_at", "is", null)
      .returningAll()
      .executeTakeFirst();
    if (!row) throw tenantNotFound();
    return viewOf(row);
  } catch (error) {
    if (isUniqueViolation(error, ACTIVE_KEY_INDEX)) throw duplicateKey(input.key);
    throw error;
  }
}

export async function deleteTenant(db: Kysely<Database>, integrationClientId: string, tenantId: string, now: Date): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const tenant = await trx
      .selectFrom("integration_tenants")
      .select("id")
      .where("id", "=", tenantId)
      .where("integration_client_id", "=", integrationClientId)
      .where("deleted_at", "is", null)
      .forUpdate()
      .executeTakeFirst();
    if (!tenant) throw tenantNotFound();
    const bound = await trx
      .selectFrom("merchant_links")
      .select((eb) => eb.fn.countAll<string>().as("n"))
      .where("tenant_id", "=", tenantId)
      .where("unlinked_at", "is", null)
      .executeTakeFirstOrThrow();
    if (Number(bound.n) > 0) {
      throw new DomainError(
        "TenantHasBoundUsersError",
        `The tenant has ${bound.n} assigned merchant account(s); a tenant with assigned accounts cannot be deleted`,
      );
    }
    await trx.updateTable("integration_tenants").set({ deleted_at: now }).where("id", "=", tenantId).execute();
    // Unlinked accounts still pointing at it leave it too (were they to link again, they are in no tenant).
    await trx.updateTable("merchant_links").set({ tenant_id: null }).where("tenant_id", "=", tenantId).execute();
  });
}

/** Sets, rotates (`token`) or removes (`null`) the tenant's validation token. */
export async function setTenantValidationToken(db: Kysely<Database>, integrationClientId: string, tenantId: string, token: string | null): Promise<void> {
  const result = await db
    .updateTable("integration_tenants")
    .set({ validation_token: sealTenantToken(tenantId, token) })
    .where("id", "=", tenantId)
    .where("integration_client_id", "=", integrationClientId)
    .where("deleted_at", "is", null)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) throw tenantNotFound();
}
