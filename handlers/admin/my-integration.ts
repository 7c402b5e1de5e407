// The integration admin's own integration: its profile (GET/PATCH /my-integration) and its OAuth client secret.
import type { operations } from "../../generated/types/admin.ts";
import type { AdminApiCaller } from "../../domain/identity/callers.ts";
import { rotateIntegrationClientSecret } from "../../domain/identity/client-secrets.ts";
import { integrationClientById, updateIntegrationProfile } from "../../domain/identity/integration-clients.ts";
import type { OperationHandler } from "../../server/handler-types.ts";
import { requireIntegrationAdmin } from "./caller.ts";
import { integrationClientDetail } from "./integration-client-view.ts";

type Handler<Id extends keyof operations> = OperationHandler<operations[Id], AdminApiCaller>;

export const getMyIntegration: Handler<"getMyIntegration"> = async ({ caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  return { status: 200, body: integrationClientDetail(await integrationClientById(services.db, admin.integrationClientId)) };
};

export const updateMyIntegration: Handler<"updateMyIntegration"> = async ({ caller, body, services }) => {
  const admin = requireIntegrationAdmin(caller);
  return { status: 200, body: integrationClientDetail(await updateIntegrationProfile(services.db, admin.integrationClientId, body)) };
};

export const rotateClientSecret: Handler<"rotateClientSecret"> = async ({ caller, body, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const rotated = await rotateIntegrationClientSecret(services.db, services.clock, admin.integrationClientId, body?.graceSeconds ?? 0);
  return { status: 200, body: { clientSecret: rotated.clientSecret, previousSecretExpiresAt: rotated.previousSecretExpiresAt?.toISOString() ?? null } };
};
