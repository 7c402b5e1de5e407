// The integration's offer (GET/PUT /my-integration/offer).
import type { operations } from "../../generated/types/admin.ts";
import type { AdminApiCaller } from "../../domain/identity/callers.ts";
import { readOffer, replaceOffer as replace } from "../../domain/identity/offer.ts";
import type { OperationHandler } from "../../server/handler-types.ts";
import { requireIntegrationAdmin } from "./caller.ts";

type Handler<Id extends keyof operations> = OperationHandler<operations[Id], AdminApiCaller>;

export const getOffer: Handler<"getOffer"> = async ({ caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  return { status: 200, body: await readOffer(services.db, admin.integrationClientId) };
};

export const replaceOffer: Handler<"replaceOffer"> = async ({ caller, body, services }) => {
  const admin = requireIntegrationAdmin(caller);
  return { status: 200, body: await replace(services.db, admin.integrationClientId, body) };
};
