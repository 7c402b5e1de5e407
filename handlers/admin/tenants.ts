// Tenants (locations) of the admin's integration.
import {
  createTenant as create,
  deleteTenant as remove,
  listTenants as list,
  setTenantValidationToken as setToken,
  updateTenant as update,
  type TenantContext,
} from "../../domain/tenants/administration.ts";
import type { Services } from "../handler-types.ts";
import { requireIntegrationAdmin } from "./caller.ts";
import type { Handler } from "./handler.ts";

function contextOf(integrationClientId: string, services: Services): TenantContext {
  return { integrationClientId, policy: services.outboundHttp.policy, now: services.clock.now() };
}

export const listTenants: Handler<"listTenants"> = async ({ caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  return { status: 200, body: await list(services.db, admin.integrationClientId) };
};

export const createTenant: Handler<"createTenant"> = async ({ body, caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const created = await create(services.db, contextOf(admin.integrationClientId, services), {
    key: body.key,
    name: body.name,
    webhookUrl: body.webhook_url,
    validationToken: body.webhook_validation_token,
  });
  return { status: 201, body: created };
};

export const updateTenant: Handler<"updateTenant"> = async ({ body, caller, params, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const tenant = await update(services.db, contextOf(admin.integrationClientId, services), params.integrationTenantId, {
    key: body.key,
    name: body.name,
    webhookUrl: body.webhook_url,
  });
  return { status: 200, body: tenant };
};

export const deleteTenant: Handler<"deleteTenant"> = async ({ caller, params, services }) => {
  const admin = requireIntegrationAdmin(caller);
  await remove(services.db, admin.integrationClientId, params.integrationTenantId, services.clock.now());
  return { status: 204 };
};

export const setTenantValidationToken: Handler<"setTenantValidationToken"> = async ({ body, caller, params, services }) => {
  const admin = requireIntegrationAdmin(caller);
  await setToken(services.db, admin.integrationClientId, params.integrationTenantId, body.webhook_validation_token);
  return { status: 204 };
};

export const deleteTenantValidationToken: Handler<"deleteTenantValidationToken"> = async ({ caller, params, services }) => {
  const admin = requireIntegrationAdmin(caller);
  await setToken(services.db, admin.integrationClientId, params.integrationTenantId, null);
  return { status: 204 };
};
