// The integration's webhook URLs and OAuth redirect URIs, with the webhook URL's reachability test.
import {
  createClientUrl as create,
  deleteClientUrl as remove,
  listClientUrls as list,
  testClientUrl as test,
  updateClientUrl as update,
  type ClientUrlContext,
} from "../../domain/webhooks/client-urls.ts";
import type { Services } from "../handler-types.ts";
import { requireIntegrationAdmin } from "./caller.ts";
import type { Handler } from "./handler.ts";

function contextOf(integrationClientId: string, services: Services): ClientUrlContext {
  return { integrationClientId, policy: services.outboundHttp.policy, sandbox: services.config.serviceEnv === "sandbox", now: services.clock.now() };
}

export const listClientUrls: Handler<"listClientUrls"> = async ({ caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const items = await list(services.db, admin.integrationClientId);
  return { status: 200, body: { items, total: items.length } };
};

export const createClientUrl: Handler<"createClientUrl"> = async ({ body, caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const view = await create(services.db, services.outboundHttp, contextOf(admin.integrationClientId, services), {
    url: body.url,
    urlType: body.urlType,
    validationToken: body.validationToken,
  });
  return { status: 201, body: view };
};

export const updateClientUrl: Handler<"updateClientUrl"> = async ({ body, caller, params, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const view = await update(services.db, services.outboundHttp, contextOf(admin.integrationClientId, services), params.clientUrlId, {
    url: body.url,
    validationToken: body.validationToken,
  });
  return { status: 200, body: view };
};

export const deleteClientUrl: Handler<"deleteClientUrl"> = async ({ caller, params, services }) => {
  const admin = requireIntegrationAdmin(caller);
  await remove(services.db, admin.integrationClientId, params.clientUrlId);
  return { status: 204 };
};

export const testClientUrl: Handler<"testClientUrl"> = async ({ caller, params, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const verification = await test(services.db, services.outboundHttp, admin.integrationClientId, params.clientUrlId, services.clock.now());
  return { status: 200, body: { verification } };
};
