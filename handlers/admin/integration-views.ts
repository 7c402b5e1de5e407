// The integration admin's views of their integration: its profile, admins, merchant accounts and charges;
// and the platform admin's management of integration clients and their admins.
import { sql, type Kysely } from "kysely";
import type { operations, components } from "../../generated/types/admin.ts";
import type { Database } from "../../db/schema.ts";
import type { IntegrationClient } from "../../db/tables/identity.table.ts";
import type { AdminApiCaller } from "../../domain/identity/callers.ts";
import { createAdminUser, createIntegrationClient as createClient, generatePassword } from "../../domain/identity/accounts.ts";
import { isUuid } from "../../domain/ids.ts";
import { DomainError, ValidationError } from "../../domain/errors.ts";
import { fromCents, requireCents } from "../../domain/money.ts";
import type { OperationHandler, Services } from "../../server/handler-types.ts";
import { requireIntegrationAdmin, requirePlatformAdmin } from "./caller.ts";

type Handler<Id extends keyof operations> = OperationHandler<operations[Id], AdminApiCaller>;
type Schemas = components["schemas"];

function detail(client: IntegrationClient): Schemas["IntegrationClientDetail"] {
  return {
    integrationClientId: client.id,
    providerClientId: client.provider_client_id,
    name: client.name,
    companyName: client.company_name,
    contactEmail: client.contact_email,
    description: client.description,
    logoUrl: client.logo_url,
    scopes: client.scopes,
    type: client.type,
    createDate: client.created_at.toISOString(),
  };
}

function platformDetail(client: IntegrationClient): Schemas["PlatformIntegrationClientDetail"] {
  return { ...detail(client), serviceCommissionPercentage: client.service_commission_percentage === null ? null : Number(client.service_commission_percentage) };
}

const clientNotFound = () => new DomainError("IntegrationClientNotFoundError", "No integration client with that id");

async function clientById(db: Kysely<Database>, id: string): Promise<IntegrationClient> {
  if (!isUuid(id)) throw clientNotFound();
  const client = await db.selectFrom("integration_clients").selectAll().where("id", "=", id).executeTakeFirst();
  if (!client) throw clientNotFound();
  return client;
}

/** PATCH fields shared by both views; `description: ""` clears the description. */
function profileChanges(body: Schemas["IntegrationClientUpdate"]) {
  return {
    ...(body.name !== undefined ? { name: body.name } : {}),
    ...(body.companyName !== undefined ? { company_name: body.companyName } : {}),
    ...(body.contactEmail !== undefined ? { contact_email: body.contactEmail } : {}),
    ...(body.logoUrl !== undefined ? { logo_url: body.logoUrl } : {}),
    ...(body.type !== undefined ? { type: body.type } : {}),
    ...(body.description !== undefined ? { description: body.description === "" ? null : body.description } : {}),
  };
}

function page(query: { limit?: number; offset?: number }) {
  return { limit: query.limit ?? 20, offset: query.offset ?? 0 };
}

export const getMyIntegration: Handler<"getMyIntegration"> = async ({ caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  return { status: 200, body: detail(await clientById(services.db, admin.integrationClientId)) };
};

export const updateMyIntegration: Handler<"updateMyIntegration"> = async ({ caller, body, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const changes = profileChanges(body);
  if (Object.keys(changes).length > 0) await services.db.updateTable("integration_clients").set(changes).where("id", "=", admin.integrationClientId).execute();
  return { status: 200, body: detail(await clientById(services.db, admin.integrationClientId)) };
};

async function adminsOf(db: Kysely<Database>, integrationClientId: string): Promise<Schemas["ClientAdminList"]> {
  const rows = await db.selectFrom("admin_users").selectAll().where("integration_client_id", "=", integrationClientId).orderBy("invited_at").execute();
  return {
    items: rows.map((row) => ({ integrationClientAdminId: row.id, email: row.email, status: row.first_login_at ? ("active" as const) : ("pending" as const), invitedAt: row.invited_at.toISOString() })),
    total: rows.length,
  };
}

export const listMyIntegrationAdmins: Handler<"listMyIntegrationAdmins"> = async ({ caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  return { status: 200, body: await adminsOf(services.db, admin.integrationClientId) };
};

export const listIntegrationUsers: Handler<"listIntegrationUsers"> = async ({ caller, query, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const { limit, offset } = page(query);
  const base = services.db
    .selectFrom("merchant_links as l")
    .innerJoin("merchant_accounts as m", "m.id", "l.merchant_account_id")
    .leftJoin("integration_tenants as t", (join) => join.onRef("t.id", "=", "l.tenant_id").on("t.deleted_at", "is", null))
    .where("l.integration_client_id", "=", admin.integrationClientId)
    .where("l.unlinked_at", "is", null);
  const [rows, count] = await Promise.all([
    base.select(["l.id", "m.id as userId", "m.email", "m.fantasy_name", "l.linked_at", "t.key as tenantKey", "t.name as tenantName"]).orderBy("l.linked_at", "desc").orderBy("l.id").limit(limit).offset(offset).execute(),
    base.select((eb) => eb.fn.countAll<string>().as("total")).executeTakeFirstOrThrow(),
  ]);
  return {
    status: 200,
    body: {
      items: rows.map((row) => ({
        integrationClientUserId: row.id,
        userId: row.userId,
        email: row.email,
        fantasyName: row.fantasy_name,
        joinedAt: row.linked_at.toISOString(),
        ...(row.tenantKey ? { tenantKey: row.tenantKey, tenantName: row.tenantName! } : {}),
        currentCommissionPercentage: 0,
      })),
      total: Number(count.total),
      limit,
      offset,
    },
  };
};

export const listIntegrationPaymentRequests: Handler<"listIntegrationPaymentRequests"> = async ({ caller, query, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const { limit, offset } = page(query);
  let base = services.db.selectFrom("charges").where("integration_client_id", "=", admin.integrationClientId);
  if (query.status) base = base.where("state", "=", query.status);
  const [rows, count] = await Promise.all([
    base.select(["id", "reference_id", "paid_cents", "customer_email", "description", "created_at", "state"]).orderBy("created_at", "desc").orderBy("id").limit(limit).offset(offset).execute(),
    base.select((eb) => eb.fn.countAll<string>().as("total")).executeTakeFirstOrThrow(),
  ]);
  return {
    status: 200,
    body: {
      items: rows.map((row) => ({
        paymentRequestId: row.id,
        integrationReferenceId: row.reference_id,
        paidAmount: fromCents(row.paid_cents),
        ...(row.customer_email ? { payerEmail: row.customer_email } : {}),
        description: row.description,
        createdAt: row.created_at.toISOString(),
        status: row.state,
      })),
      total: Number(count.total),
      limit,
      offset,
    },
  };
};

// ----- platform admin ----------------------------------------------------------------------------------

function oauthUrls(services: Services) {
  const auth = services.config.publicUrls.auth;
  return {
    authorizationUrl: `${auth}/integration/oauth2/authorize`,
    tokenUrl: `${auth}/integration/oauth2/token`,
    userinfoUrl: `${services.config.publicUrls.integration}/me`,
    hostedUiUrl: `${auth}/integration/oauth2/authorize`,
    logoutUrl: `${auth}/integration/oauth2/logout`,
  };
}

export const createIntegrationClient: Handler<"createIntegrationClient"> = async ({ caller, body, services }) => {
  requirePlatformAdmin(caller);
  // http://localhost redirect URIs are for local development against the Sandbox only.
  if (services.config.serviceEnv === "production") {
    const insecure = (body.redirectUrls ?? []).flatMap((url, index) => (url.startsWith("https://") ? [] : [{ field: `redirectUrls[${index}]`, message: `redirectUrls[${index}] must use https in Production` }]));
    if (insecure.length > 0) throw new ValidationError(insecure);
  }
  const created = await services.db.transaction().execute(async (trx) => {
    const { client, clientSecret } = await createClient(trx, {
      name: body.name,
      companyName: body.companyName,
      contactEmail: body.contactEmail,
      redirectUris: body.redirectUrls ?? [],
      logoutUrls: body.logoutUrls ?? [],
      scopes: body.scopes,
      logoUrl: body.logoUrl ?? null,
      description: body.description ?? null,
    });
    // The first admin gets a random password; the welcome email that carries it needs the mail
    // adapter (notifications issue): until then the admin's password is reset by a platform admin.
    if (body.firstAdminEmail) {
      await createAdminUser(trx, { email: body.firstAdminEmail, password: generatePassword(), role: "INTEGRATION_ADMIN", integrationClientId: client.id, name: body.firstAdminName ?? null });
    }
    return { client, clientSecret };
  });
  return { status: 201, body: { ...platformDetail(created.client), providerClientSecret: created.clientSecret, ...oauthUrls(services) } };
};

export const listIntegrationClients: Handler<"listIntegrationClients"> = async ({ caller, query, services }) => {
  requirePlatformAdmin(caller);
  const { limit, offset } = page(query);
  const [rows, count] = await Promise.all([
    services.db
      .selectFrom("integration_clients as c")
      .selectAll("c")
      .select([
        sql<boolean>`exists (select 1 from admin_users a where a.integration_client_id = c.id and a.first_login_at is not null)`.as("first_admin_logged_in"),
        sql<boolean>`exists (select 1 from admin_users a where a.integration_client_id = c.id)`.as("has_admin"),
      ])
      .orderBy("c.created_at", "desc")
      .orderBy("c.id")
      .limit(limit)
      .offset(offset)
      .execute(),
    services.db.selectFrom("integration_clients").select((eb) => eb.fn.countAll<string>().as("total")).executeTakeFirstOrThrow(),
  ]);
  return {
    status: 200,
    body: {
      items: rows.map(({ first_admin_logged_in, has_admin: _hasAdmin, ...client }) => ({
        ...platformDetail(client),
        firstAdminEmailSent: false,
        firstAdminLoggedIn: first_admin_logged_in,
        webhookConfigured: false,
      })),
      total: Number(count.total),
      limit,
      offset,
    },
  };
};

export const getIntegrationClient: Handler<"getIntegrationClient"> = async ({ caller, params, services }) => {
  requirePlatformAdmin(caller);
  return { status: 200, body: platformDetail(await clientById(services.db, params.id)) };
};

export const updateIntegrationClient: Handler<"updateIntegrationClient"> = async ({ caller, params, body, services }) => {
  requirePlatformAdmin(caller);
  const client = await clientById(services.db, params.id);
  const changes = profileChanges(body);
  const commissionChanged = body.serviceCommissionPercentage !== undefined;
  if (commissionChanged) {
    const value = body.serviceCommissionPercentage;
    if (value !== null && value !== undefined) requireCents("serviceCommissionPercentage", value);
  }
  const updated = await services.db
    .updateTable("integration_clients")
    .set({ ...changes, ...(commissionChanged ? { service_commission_percentage: body.serviceCommissionPercentage === null ? null : String(body.serviceCommissionPercentage) } : {}) })
    .where("id", "=", client.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  if (!commissionChanged) return { status: 200, body: platformDetail(updated) };
  // The percentage is read from the integration when a charge's money is settled, so every open charge
  // takes it at once: the backfill is complete in one step.
  const { open } = await services.db
    .selectFrom("charges")
    .select((eb) => eb.fn.countAll<string>().as("open"))
    .where("integration_client_id", "=", client.id)
    .where("state", "in", ["pending", "partial_payment"])
    .executeTakeFirstOrThrow();
  const total = Number(open);
  return { status: 200, body: { ...platformDetail(updated), commissionBackfill: { pending: 0, failed: 0, skipped: 0, applied: total, total } } };
};

export const createClientAdmin: Handler<"createClientAdmin"> = async ({ caller, params, body, services }) => {
  requirePlatformAdmin(caller);
  const client = await clientById(services.db, params.id);
  if (body.clientId !== client.provider_client_id) throw new DomainError("ClientIdMismatchError", "clientId is not the OAuth clientId of the integration client in the path");
  const created = await createAdminUser(services.db, { email: body.email, password: generatePassword(), role: "INTEGRATION_ADMIN", integrationClientId: client.id, name: body.name ?? null });
  const row = await services.db.selectFrom("admin_users").selectAll().where("id", "=", created.id).executeTakeFirstOrThrow();
  return { status: 201, body: { integrationClientAdminId: row.id, email: row.email, status: "pending", invitedAt: row.invited_at.toISOString() } };
};

export const listClientAdmins: Handler<"listClientAdmins"> = async ({ caller, params, services }) => {
  requirePlatformAdmin(caller);
  const client = await clientById(services.db, params.id);
  return { status: 200, body: await adminsOf(services.db, client.id) };
};
