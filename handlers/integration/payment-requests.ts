// The charges of the token's merchant account: create, bulk, read, list, complete a draft, change the
// payer, cancel.
import type { IntegrationCaller } from "../../domain/sign-in/callers.ts";
import { validateCreateRequest } from "../../domain/charges/charge-rules.ts";
import { paymentRequestView } from "../../domain/charges/charge-view.ts";
import { ChargeListCounts } from "../../domain/charges/charge-list-counts.ts";
import { cancelCharge, completeDraftAmount, createCharge, getCharge, listCharges, type ChargeContext } from "../../domain/charges/charges.ts";
import { ValidationError } from "../../domain/errors.ts";
import { integrationNow } from "../../domain/clock.ts";
import { updateChargeCustomer } from "../../domain/charges/customer-update.ts";
import { fromCents, requireCents } from "../../domain/money.ts";
import type { Services } from "../handler-types.ts";
import { requireMerchant } from "./caller.ts";
import type { Handler } from "./handler.ts";

export function chargeContext(caller: IntegrationCaller, services: Services): ChargeContext {
  return chargeContextOf(requireMerchant(caller), services);
}

/** The context of charges of a merchant account created by an integration (also the widget's, by its key). */
export function chargeContextOf(scope: { integrationClientId: string; merchantAccountId: string; clockOffsetMs: number }, services: Services): ChargeContext {
  return {
    integrationClientId: scope.integrationClientId,
    merchantAccountId: scope.merchantAccountId,
    now: integrationNow(services.clock, scope.clockOffsetMs),
    serviceEnv: services.config.serviceEnv,
    globalMessageCap: services.config.globalDailyMessageCap,
    destinationPolicy: services.outboundHttp.policy,
  };
}

export const createPaymentRequest: Handler<"createPaymentRequest"> = async ({ body, caller, services }) => {
  const context = chargeContext(caller, services);
  const spec = validateCreateRequest(body, context.now);
  const stored = await createCharge(services.db, context, spec);
  services.metrics.money.chargesCreated.inc({ kind: stored.charge.kind, channel: "single" });
  return { status: 201, body: paymentRequestView(stored.charge, stored.cvu, stored.bankAccountInfo) };
};

export const getPaymentRequest: Handler<"getPaymentRequest"> = async ({ params, caller, services }) => {
  const stored = await getCharge(services.db, chargeContext(caller, services), params.referenceId);
  return { status: 200, body: paymentRequestView(stored.charge, stored.cvu, stored.bankAccountInfo) };
};

export const listPaymentRequests: Handler<"listPaymentRequests"> = async ({ query, caller, services }) => {
  if (query.startDate && query.endDate && query.endDate < query.startDate)
    throw ValidationError.of("endDate", "dateOrder", "endDate must not be before startDate", { fields: ["startDate"] });
  services.chargeListCounts ??= new ChargeListCounts(services.clock);
  const { items, total, exact } = await listCharges(services.db, services.chargeListCounts, chargeContext(caller, services), {
    startDate: query.startDate,
    endDate: query.endDate,
    limit: query.limit ?? 1000,
    offset: query.offset ?? 0,
  });
  return {
    status: 200,
    headers: { "X-Total-Count": total, "X-Total-Count-Exact": String(exact) },
    body: items.map(({ charge, cvu, bankAccountInfo }) => ({
      ...paymentRequestView(charge, cvu, bankAccountInfo),
      paidAmount: fromCents(charge.paid_cents),
      createdAt: charge.created_at.toISOString(),
    })),
  };
};

export const completePaymentRequestAmount: Handler<"completePaymentRequestAmount"> = async ({ params, body, caller, services }) => {
  const cents = requireCents("amount", body.amount);
  const { charge, previousAmountCents } = await completeDraftAmount(services.db, chargeContext(caller, services), params.referenceId, cents);
  return {
    status: 200,
    body: {
      referenceId: charge.reference_id,
      previousAmount: previousAmountCents === null ? null : fromCents(previousAmountCents),
      amount: fromCents(charge.amount_cents!),
      description: charge.description,
      state: charge.state,
      dueDates: charge.due_dates,
    },
  };
};

export const cancelPaymentRequest: Handler<"cancelPaymentRequest"> = async ({ params, caller, services }) => {
  const charge = await cancelCharge(services.db, chargeContext(caller, services), params.referenceId);
  return { status: 200, body: { referenceId: charge.reference_id, state: "canceled" } };
};

export const updatePaymentRequestCustomer: Handler<"updatePaymentRequestCustomer"> = async ({ params, body, caller, services }) => {
  const stored = await updateChargeCustomer(services.db, chargeContext(caller, services), params.referenceId, body);
  return { status: 200, body: paymentRequestView(stored.charge, stored.cvu, stored.bankAccountInfo) };
};
