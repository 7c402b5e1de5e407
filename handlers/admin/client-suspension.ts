// The platform admin's suspension of an integration client (/integration-admin/setup/clients/{id}/suspend
// and /reinstate): while suspended, the Integration API refuses new charges and payer changes.
import { reinstateIntegrationClient as reinstate, suspendIntegrationClient as suspend } from "../../domain/integration-clients/client-suspension.ts";
import { requirePlatformAdmin } from "./caller.ts";
import { platformIntegrationClientDetail } from "./integration-client-view.ts";
import type { Handler } from "./handler.ts";

export const suspendIntegrationClient: Handler<"suspendIntegrationClient"> = async ({ caller, params, body, services }) => {
  const admin = requirePlatformAdmin(caller);
  const client = await suspend(services.db, params.id, { reason: body.reason, adminUserId: admin.adminUserId }, services.clock.now());
  return { status: 200, body: platformIntegrationClientDetail(client) };
};

export const reinstateIntegrationClient: Handler<"reinstateIntegrationClient"> = async ({ caller, params, services }) => {
  requirePlatformAdmin(caller);
  return { status: 200, body: platformIntegrationClientDetail(await reinstate(services.db, params.id)) };
};
