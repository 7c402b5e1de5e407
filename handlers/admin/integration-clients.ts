// The platform admin's management of integration clients (/integration-admin/clients): register, list,
// read, update (with the platform's commission).
import {
  integrationClientById,
  listIntegrationClients as listClients,
  registerIntegrationClient,
  updateIntegrationClientAsPlatform,
} from "../../domain/integration-clients/integration-clients.ts";
import type { Services } from "../handler-types.ts";
import { requireAccountMail, sendWelcomeEmail } from "../../domain/integration-clients/admin-welcome.ts";
import { requirePlatformAdmin } from "./caller.ts";
import { platformIntegrationClientDetail } from "./integration-client-view.ts";
import { pageOf } from "./page-query.ts";
import type { Handler } from "./handler.ts";

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

export const createIntegrationClient: Handler<"createIntegrationClient"> = async ({ caller, body, services, log }) => {
  requirePlatformAdmin(caller);
  const mail = body.firstAdminEmail ? requireAccountMail(services.accountMail) : undefined;
  const created = await registerIntegrationClient(
    services.db,
    services.config.serviceEnv,
    {
      name: body.name,
      companyName: body.companyName,
      contactEmail: body.contactEmail,
      redirectUris: body.redirectUrls ?? [],
      logoutUrls: body.logoutUrls ?? [],
      scopes: body.scopes,
      logoUrl: body.logoUrl ?? null,
      description: body.description ?? null,
      ...(body.firstAdminEmail ? { firstAdmin: { email: body.firstAdminEmail, name: body.firstAdminName ?? null } } : {}),
    },
    services.clock.now(),
  );
  if (mail && created.firstAdminWelcome) {
    const mailed = await sendWelcomeEmail(services.db, mail, services.clock, created.firstAdminWelcome, services.config.publicUrls.admin);
    // The client exists either way; its summary shows `firstAdminEmailSent: false`.
    if (!mailed.sent)
      log.warn({ integrationClientId: created.client.id, reason: mailed.reason }, "the first admin's welcome email was not accepted by the mail server");
  }
  return { status: 201, body: { ...platformIntegrationClientDetail(created.client), providerClientSecret: created.clientSecret, ...oauthUrls(services) } };
};

export const listIntegrationClients: Handler<"listIntegrationClients"> = async ({ caller, query, services }) => {
  requirePlatformAdmin(caller);
  const page = pageOf(query);
  const { items, total } = await listClients(services.db, page);
  return {
    status: 200,
    body: {
      items: items.map(({ firstAdminEmailSent, firstAdminLoggedIn, webhookConfigured, ...client }) => ({
        ...platformIntegrationClientDetail(client),
        firstAdminEmailSent,
        firstAdminLoggedIn,
        webhookConfigured,
      })),
      total,
      ...page,
    },
  };
};

export const getIntegrationClient: Handler<"getIntegrationClient"> = async ({ caller, params, services }) => {
  requirePlatformAdmin(caller);
  return { status: 200, body: platformIntegrationClientDetail(await integrationClientById(services.db, params.id)) };
};

export const updateIntegrationClient: Handler<"updateIntegrationClient"> = async ({ caller, params, body, services, log }) => {
  requirePlatformAdmin(caller);
  const { client, commissionBackfill } = await updateIntegrationClientAsPlatform(services.db, services.config.serviceEnv, params.id, body, {
    budgetMs: services.config.commissionBackfillBudgetMs,
  });
  if (!commissionBackfill) return { status: 200, body: platformIntegrationClientDetail(client) };
  for (const failure of commissionBackfill.failures) {
    log.warn(
      { integrationClientId: client.id, links: failure.links, reason: failure.reason },
      "service commission: links not updated, tried again by the next save",
    );
  }
  return { status: 200, body: { ...platformIntegrationClientDetail(client), commissionBackfill: commissionBackfill.counts } };
};
