// The integration's offer (GET/PUT /my-integration/offer).
import type { operations } from "../../generated/types/admin.ts";
import type { AdminApiCaller } from "../../domain/identity/callers.ts";
import { offerOf } from "../../domain/identity/offer.ts";
import { ValidationError } from "../../domain/errors.ts";
import { decimalsProblem, toCents } from "../../domain/money.ts";
import type { OperationHandler } from "../../server/handler-types.ts";
import { requireIntegrationAdmin } from "./caller.ts";

type Handler<Id extends keyof operations> = OperationHandler<operations[Id], AdminApiCaller>;

export const getOffer: Handler<"getOffer"> = async ({ caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const client = await services.db.selectFrom("integration_clients").select(["offer_percentage", "offer_fixed_cents"]).where("id", "=", admin.integrationClientId).executeTakeFirstOrThrow();
  return { status: 200, body: offerOf(client) };
};

export const replaceOffer: Handler<"replaceOffer"> = async ({ caller, body, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const problems = [
    body.percentage === undefined ? undefined : decimalsProblem("percentage", body.percentage),
    body.fixedAmount === undefined ? undefined : decimalsProblem("fixedAmount", body.fixedAmount),
  ].filter((problem) => problem !== undefined);
  if (problems.length > 0) throw new ValidationError(problems);
  const fixedCents = body.fixedAmount === undefined ? null : toCents(body.fixedAmount);
  const client = await services.db
    .updateTable("integration_clients")
    .set({ offer_percentage: body.percentage === undefined ? null : String(body.percentage), offer_fixed_cents: fixedCents ?? null })
    .where("id", "=", admin.integrationClientId)
    .returning(["offer_percentage", "offer_fixed_cents"])
    .executeTakeFirstOrThrow();
  return { status: 200, body: offerOf(client) };
};
