// The integration's offer (GET/PUT /my-integration/offer).
import { readOffer, replaceOffer as replace } from "../../domain/commissions/offer.ts";
import { requireIntegrationAdmin } from "./caller.ts";
import type { Handler } from "./handler.ts";

export const getOffer: Handler<"getOffer"> = async ({ caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  return { status: 200, body: await readOffer(services.db, admin.integrationClientId) };
};

export const replaceOffer: Handler<"replaceOffer"> = async ({ caller, body, services }) => {
  const admin = requireIntegrationAdmin(caller);
  return { status: 200, body: await replace(services.db, admin.integrationClientId, body) };
};
