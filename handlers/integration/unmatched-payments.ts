// Unmatched payments on the Integration API: the money of the token's merchant account that no charge took,
// for its integration's backend to find what a `payment.unmatched` webhook announced, to assign it to a charge
// or to return it to its sender.
import { integrationNow } from "../../domain/clock.ts";
import { assignmentView, assignUnmatchedPayment as assign } from "../../domain/reconciliation/assign-unmatched.ts";
import { requestReturn, returnResultView } from "../../domain/reconciliation/return-unmatched.ts";
import {
  getUnmatchedPayment as getOne,
  listUnmatchedPayments as listSome,
  type UnmatchedPaymentScope,
} from "../../domain/reconciliation/unmatched-payments.ts";
import { pageOf } from "../admin/page-query.ts";
import { idempotencyKeyOf } from "../handler-types.ts";
import { requireMerchant } from "./caller.ts";
import type { Handler } from "./handler.ts";

/** The token's merchant account's money, in its integration. */
function scopeOf(merchant: { integrationClientId: string; merchantAccountId: string }): Extract<UnmatchedPaymentScope, { kind: "merchant" }> {
  return { kind: "merchant", integrationClientId: merchant.integrationClientId, merchantAccountId: merchant.merchantAccountId };
}

export const listUnmatchedPayments: Handler<"listUnmatchedPayments"> = async ({ caller, query, services }) => {
  const merchant = requireMerchant(caller);
  const page = pageOf(query);
  const { items, total } = await listSome(services.db, scopeOf(merchant), { state: query.state, reason: query.reason, from: query.from, to: query.to }, page);
  return { status: 200, body: { items, total, ...page } };
};

export const getUnmatchedPayment: Handler<"getUnmatchedPayment"> = async ({ caller, params, services }) => {
  const merchant = requireMerchant(caller);
  return { status: 200, body: await getOne(services.db, scopeOf(merchant), params.unmatchedPaymentId) };
};

export const assignUnmatchedPayment: Handler<"assignUnmatchedPayment"> = async ({ caller, params, body, services }) => {
  const merchant = requireMerchant(caller);
  const result = await assign(services.db, scopeOf(merchant), params.unmatchedPaymentId, body, {
    now: integrationNow(services.clock, merchant.clockOffsetMs),
    livemode: services.config.serviceEnv === "production",
    actor: { kind: "integration_api" },
  });
  return { status: 200, body: assignmentView(result) };
};

export const returnUnmatchedPayment: Handler<"returnUnmatchedPayment"> = async ({ caller, params, headers, body, services }) => {
  const merchant = requireMerchant(caller);
  const result = await requestReturn(
    services.db,
    scopeOf(merchant),
    params.unmatchedPaymentId,
    { idempotencyKey: idempotencyKeyOf(headers), simulateFailure: body.simulateFailure },
    { now: integrationNow(services.clock, merchant.clockOffsetMs), serviceEnv: services.config.serviceEnv, actor: { kind: "integration_api" } },
  );
  return { status: 202, body: returnResultView(result) };
};
