// Integration clients as admins manage them: the integration admin edits its own profile; the platform
// admin registers clients (with their first admin), lists them, and sets the platform's commission.
import { randomBytes } from "node:crypto";
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Executor } from "../../db/transactions.ts";
import type { IntegrationClient, IntegrationType } from "../../db/tables/integration-clients.table.ts";
import { applyServiceCommission, type BackfillOptions, type BackfillResult } from "../earnings/service-commission-backfill.ts";
import { DomainError, ValidationError, type FieldProblem } from "../errors.ts";
import { browserUrlProblem } from "../browser-urls.ts";
import { isUuid } from "../ids.ts";
import { requireCents } from "../money.ts";
import { hashSecret, randomToken } from "../secrets/hashing.ts";
import { createAdminWithTemporaryPassword, type AdminWelcome } from "./admin-welcome.ts";

export interface NewIntegrationClient {
  name: string;
  companyName: string;
  contactEmail: string;
  redirectUris?: string[];
  logoutUrls?: string[];
  type?: IntegrationType;
  scopes?: string[];
  logoUrl?: string | null;
  description?: string | null;
  /** Production only: the Sandbox integration this one is created from when it goes live. */
  provisionedFromSandboxClientId?: string;
}

/** Creates an integration client; its `clientSecret` is returned here once and stored only as a hash. */
export async function createIntegrationClient(db: Executor, input: NewIntegrationClient): Promise<{ client: IntegrationClient; clientSecret: string }> {
  const clientSecret = randomToken("cs_");
  const client = await db
    .insertInto("integration_clients")
    .values({
      provider_client_id: `cli_${randomBytes(12).toString("hex")}`,
      client_secret_hash: await hashSecret(clientSecret),
      name: input.name,
      company_name: input.companyName,
      contact_email: input.contactEmail,
      redirect_uris: input.redirectUris ?? [],
      logout_urls: input.logoutUrls ?? [],
      type: input.type ?? "api_direct",
      scopes: input.scopes ?? ["openid", "email", "profile"],
      logo_url: input.logoUrl ?? null,
      description: input.description ?? null,
      provisioned_from_sandbox_client_id: input.provisionedFromSandboxClientId ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { client, clientSecret };
}

const clientNotFound = () => new DomainError("IntegrationClientNotFoundError", "No integration client with that id");

export async function integrationClientById(db: Executor, id: string): Promise<IntegrationClient> {
  if (!isUuid(id)) throw clientNotFound();
  const client = await db.selectFrom("integration_clients").selectAll().where("id", "=", id).executeTakeFirst();
  if (!client) throw clientNotFound();
  return client;
}

/** The profile fields both admins may change; `description: ""` clears the description. */
export interface ProfileChanges {
  name?: string;
  companyName?: string;
  contactEmail?: string;
  logoUrl?: string;
  type?: IntegrationType;
  description?: string;
}

function profileColumns(changes: ProfileChanges) {
  return {
    ...(changes.name !== undefined ? { name: changes.name } : {}),
    ...(changes.companyName !== undefined ? { company_name: changes.companyName } : {}),
    ...(changes.contactEmail !== undefined ? { contact_email: changes.contactEmail } : {}),
    ...(changes.logoUrl !== undefined ? { logo_url: changes.logoUrl } : {}),
    ...(changes.type !== undefined ? { type: changes.type } : {}),
    ...(changes.description !== undefined ? { description: changes.description === "" ? null : changes.description } : {}),
  };
}

/** The integration admin's PATCH of its own profile; answers the client as it is now. */
export async function updateIntegrationProfile(db: Kysely<Database>, integrationClientId: string, changes: ProfileChanges): Promise<IntegrationClient> {
  const columns = profileColumns(changes);
  if (Object.keys(columns).length > 0) await db.updateTable("integration_clients").set(columns).where("id", "=", integrationClientId).execute();
  return integrationClientById(db, integrationClientId);
}

/**
 * The platform admin's PATCH: the profile, the logout URLs (the whole list, checked as at creation) and
 * the platform's commission (a percentage with at most 2 decimals; null ends the deal). With the commission in the request (changed or not: saving again
 * continues an unfinished backfill), the deal is then applied to the integration's merchant links
 * within the time budget.
 */
export async function updateIntegrationClientAsPlatform(
  db: Kysely<Database>,
  serviceEnv: "sandbox" | "production",
  id: string,
  changes: ProfileChanges & { serviceCommissionPercentage?: number | null; logoutUrls?: string[] },
  backfill: BackfillOptions,
): Promise<{ client: IntegrationClient; commissionBackfill?: BackfillResult }> {
  const malformed = browserUrlProblems("logoutUrls", changes.logoutUrls ?? [], serviceEnv);
  if (malformed.length > 0) throw new ValidationError(malformed);
  const client = await integrationClientById(db, id);
  const commission = changes.serviceCommissionPercentage;
  const commissionChanged = commission !== undefined;
  if (commission !== null && commission !== undefined) requireCents("serviceCommissionPercentage", commission);
  const updated = await db
    .updateTable("integration_clients")
    .set({
      ...profileColumns(changes),
      ...(changes.logoutUrls !== undefined ? { logout_urls: changes.logoutUrls } : {}),
      ...(commissionChanged ? { service_commission_percentage: commission === null ? null : String(commission) } : {}),
    })
    .where("id", "=", client.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  if (!commissionChanged) return { client: updated };
  return { client: updated, commissionBackfill: await applyServiceCommission(db, client.id, updated.service_commission_percentage, backfill) };
}

/** Redirect and logout URLs of a host's shape, and https in Production (http://localhost is for the Sandbox). */
function browserUrlProblems(field: string, urls: string[], serviceEnv: "sandbox" | "production"): FieldProblem[] {
  return urls.flatMap((url, index) => {
    const name = `${field}[${index}]`;
    if (serviceEnv === "production" && !url.startsWith("https://")) return [{ field: name, rule: "https", message: `${name} must use https in Production` }];
    const problem = browserUrlProblem(url);
    return problem
      ? [{ field: name, rule: problem.rule, message: `${name} ${problem.complaint}`, ...(problem.rule === "format" ? { format: "uri" } : {}) }]
      : [];
  });
}

/**
 * Registers an integration client and, when asked, its first admin, in one transaction. http://localhost
 * redirect URIs are for local development against the Sandbox only: Production requires https.
 */
export async function registerIntegrationClient(
  db: Kysely<Database>,
  serviceEnv: "sandbox" | "production",
  input: NewIntegrationClient & { redirectUris: string[]; firstAdmin?: { email: string; name: string | null } },
  now: Date,
): Promise<{ client: IntegrationClient; clientSecret: string; firstAdminWelcome?: AdminWelcome }> {
  const malformed = [
    ...browserUrlProblems("redirectUrls", input.redirectUris, serviceEnv),
    ...browserUrlProblems("logoutUrls", input.logoutUrls ?? [], serviceEnv),
  ];
  if (malformed.length > 0) throw new ValidationError(malformed);
  const { firstAdmin, ...client } = input;
  return db.transaction().execute(async (trx) => {
    const created = await createIntegrationClient(trx, client);
    if (!firstAdmin) return created;
    // The caller mails the welcome once this transaction has committed.
    const firstAdminWelcome = await createAdminWithTemporaryPassword(
      trx,
      { ...firstAdmin, role: "INTEGRATION_ADMIN", integrationClientId: created.client.id },
      now,
    );
    return { ...created, firstAdminWelcome };
  });
}

/**
 * A page of integration clients, newest first, each with whether the welcome email of its first admin (the
 * earliest invited) went out, whether any of its admins has signed in, and whether it has a webhook URL
 * (a client URL of type `webhook`, or an active tenant's URL).
 */
export async function listIntegrationClients(
  db: Kysely<Database>,
  page: { limit: number; offset: number },
): Promise<{ items: Array<IntegrationClient & { firstAdminEmailSent: boolean; firstAdminLoggedIn: boolean; webhookConfigured: boolean }>; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom("integration_clients as c")
      .selectAll("c")
      .select(
        sql<boolean>`exists (select 1 from admin_users a where a.integration_client_id = c.id and a.first_login_at is not null)`.as("first_admin_logged_in"),
      )
      .select(
        sql<boolean>`(exists (select 1 from client_urls u where u.integration_client_id = c.id and u.url_type = 'webhook') or exists (select 1 from integration_tenants t where t.integration_client_id = c.id and t.deleted_at is null))`.as(
          "webhook_configured",
        ),
      )
      .select(
        sql<boolean>`coalesce((select a.welcome_email_sent_at is not null from admin_users a where a.integration_client_id = c.id order by a.invited_at, a.id limit 1), false)`.as(
          "first_admin_email_sent",
        ),
      )
      .orderBy("c.created_at", "desc")
      .orderBy("c.id")
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom("integration_clients")
      .select((eb) => eb.fn.countAll<string>().as("total"))
      .executeTakeFirstOrThrow(),
  ]);
  return {
    items: rows.map(({ first_admin_logged_in, first_admin_email_sent, webhook_configured, ...client }) => ({
      ...client,
      firstAdminEmailSent: first_admin_email_sent,
      firstAdminLoggedIn: first_admin_logged_in,
      webhookConfigured: webhook_configured,
    })),
    total: Number(count.total),
  };
}
