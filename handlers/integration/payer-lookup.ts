// GET /payer-lookup: a payer document looked up in the tax registry, against the daily quota of the
// token's integration and merchant account. The documented 404 (account not linked) never reaches here: the
// token check answers 403 `Not authorized as user of integration client` for an unlinked account first.
import { integrationNow } from "../../domain/clock.ts";
import { DomainError } from "../../domain/errors.ts";
import { lookUpPayer } from "../../domain/payer-lookup/lookup.ts";
import { requireMerchant } from "./caller.ts";
import type { Handler } from "./handler.ts";

export const lookupPayer: Handler<"lookupPayer"> = async ({ query, caller, services, log }) => {
  const merchant = requireMerchant(caller);
  const context = {
    integrationClientId: merchant.integrationClientId,
    merchantAccountId: merchant.merchantAccountId,
    now: integrationNow(services.clock, merchant.clockOffsetMs),
  };
  try {
    return { status: 200, body: await lookUpPayer(services.db, services.payerRegistry, context, query.document) };
  } catch (error) {
    // The 503s say nothing about their cause to the integrator; the log does.
    if (error instanceof DomainError && (error.code === "PayerLookupProviderUnavailableError" || error.code === "PayerLookupQuotaUnavailableError")) {
      log.warn({ err: error.cause, code: error.code }, "payer lookup unavailable");
    }
    throw error;
  }
};
