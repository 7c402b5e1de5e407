// The integration admin's checkout widget keys (`/my-integration/api-keys`).
import {
  createPublishableKey,
  replaceAllowedOrigins as replaceOrigins,
  rotateSecretKey,
  widgetKeysOf,
  type WidgetKeys,
} from "../../domain/checkout/widget-keys.ts";
import type { components } from "../../generated/types/admin.ts";
import { requireIntegrationAdmin } from "./caller.ts";
import type { Handler } from "./handler.ts";

function apiKeysView(keys: WidgetKeys): components["schemas"]["ApiKeysView"] {
  return {
    publishableKey: keys.publishableKey,
    secretKeyLast4: keys.secretKeyLast4,
    hasKeys: keys.publishableKey !== null,
    hasSecretKey: keys.secretKeyLast4 !== null,
    allowedOrigins: keys.allowedOrigins,
  };
}

export const getApiKeys: Handler<"getApiKeys"> = async ({ caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  return { status: 200, body: apiKeysView(await widgetKeysOf(services.db, admin.integrationClientId)) };
};

export const createApiKeys: Handler<"createApiKeys"> = async ({ caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  return {
    status: 201,
    body: apiKeysView(await createPublishableKey(services.db, admin.integrationClientId, services.config.serviceEnv, services.clock.now())),
  };
};

export const replaceAllowedOrigins: Handler<"replaceAllowedOrigins"> = async ({ caller, body, services }) => {
  const admin = requireIntegrationAdmin(caller);
  return { status: 200, body: apiKeysView(await replaceOrigins(services.db, admin.integrationClientId, body.allowedOrigins, services.clock.now())) };
};

export const rotateApiSecretKey: Handler<"rotateApiSecretKey"> = async ({ caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  return { status: 200, body: await rotateSecretKey(services.db, admin.integrationClientId, services.config.serviceEnv, services.clock.now()) };
};
