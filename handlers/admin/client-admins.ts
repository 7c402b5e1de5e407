// The admins of an integration client: listed by its own admins (/my-integration/admins) and by platform
// admins, who also invite them (/integration-admin/clients/{id}/admins).
import type { components } from "../../generated/types/admin.ts";
import { inviteClientAdmin, listClientAdmins as adminsOf, renewClientAdminWelcome, type ClientAdmin } from "../../domain/integration-clients/client-admins.ts";
import { integrationClientById } from "../../domain/integration-clients/integration-clients.ts";
import { requireAccountMail, sendWelcomeEmail } from "../../domain/integration-clients/admin-welcome.ts";
import { requireIntegrationAdmin, requirePlatformAdmin } from "./caller.ts";
import type { Handler } from "./handler.ts";

function clientAdminView(admin: ClientAdmin): components["schemas"]["ClientAdmin"] {
  return { integrationClientAdminId: admin.id, email: admin.email, status: admin.status, invitedAt: admin.invitedAt.toISOString() };
}

function clientAdminList(admins: ClientAdmin[]): components["schemas"]["ClientAdminList"] {
  return { items: admins.map(clientAdminView), total: admins.length };
}

export const listMyIntegrationAdmins: Handler<"listMyIntegrationAdmins"> = async ({ caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  return { status: 200, body: clientAdminList(await adminsOf(services.db, admin.integrationClientId)) };
};

export const createClientAdmin: Handler<"createClientAdmin"> = async ({ caller, params, body, services, log }) => {
  requirePlatformAdmin(caller);
  const mail = requireAccountMail(services.accountMail);
  const { admin, welcome } = await inviteClientAdmin(
    services.db,
    params.id,
    { clientId: body.clientId, email: body.email, name: body.name ?? null },
    services.clock.now(),
  );
  const mailed = await sendWelcomeEmail(services.db, mail, services.clock, welcome, services.config.publicUrls.admin);
  if (!mailed.sent) log.warn({ adminUserId: admin.id, reason: mailed.reason }, "the new client admin's welcome email was not accepted by the mail server");
  return { status: 201, body: clientAdminView(admin) };
};

export const resendClientAdminWelcome: Handler<"resendClientAdminWelcome"> = async ({ caller, params, services, log }) => {
  requirePlatformAdmin(caller);
  const mail = requireAccountMail(services.accountMail);
  const { admin, welcome } = await renewClientAdminWelcome(services.db, params.id, params.adminId, services.clock.now());
  const mailed = await sendWelcomeEmail(services.db, mail, services.clock, welcome, services.config.publicUrls.admin);
  if (!mailed.sent) log.warn({ adminUserId: admin.id, reason: mailed.reason }, "the client admin's new welcome email was not accepted by the mail server");
  return { status: 200, body: clientAdminView(admin) };
};

export const listClientAdmins: Handler<"listClientAdmins"> = async ({ caller, params, services }) => {
  requirePlatformAdmin(caller);
  const client = await integrationClientById(services.db, params.id);
  return { status: 200, body: clientAdminList(await adminsOf(services.db, client.id)) };
};
