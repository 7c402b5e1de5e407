// The checkout widget's charges (`/v1/payments`), by the integration's widget keys: created from the
// store's server with the secret key through the same use case as `POST /payment-request`, read by the
// widget with the publishable key.
import type { IntegrationCaller, WidgetKeyCaller } from "../../domain/sign-in/callers.ts";
import { validateCreateRequest } from "../../domain/charges/charge-rules.ts";
import { paymentRequestView } from "../../domain/charges/charge-view.ts";
import { createCharge } from "../../domain/charges/charges.ts";
import {
  checkoutChargeOf,
  checkoutChargeRequest,
  checkoutExpiresAt,
  checkoutPaymentStatusView,
  requireLinkedMerchant,
} from "../../domain/checkout/checkout-payments.ts";
import { integrationNow } from "../../domain/clock.ts";
import { chargeContextOf } from "./payment-requests.ts";
import type { Handler } from "./handler.ts";

/** `/v1/payments` runs only for a widget key of the kind its scheme takes (the security handler refused the rest). */
function requireWidgetKey(caller: IntegrationCaller, key: WidgetKeyCaller["key"]): WidgetKeyCaller {
  if (caller.kind !== "widget-key" || caller.key !== key) throw new Error(`a /v1/payments operation ran without a ${key} widget key`);
  return caller;
}

export const createCheckoutPayment: Handler<"createCheckoutPayment"> = async ({ body, caller, services }) => {
  const widget = requireWidgetKey(caller, "secret");
  const context = chargeContextOf(
    { integrationClientId: widget.integrationClientId, merchantAccountId: body.merchantUserId, clockOffsetMs: widget.clockOffsetMs },
    services,
  );
  const spec = validateCreateRequest(checkoutChargeRequest(body, context.now), context.now);
  await requireLinkedMerchant(services.db, widget.integrationClientId, body.merchantUserId);
  const stored = await createCharge(services.db, context, spec);
  services.metrics.money.chargesCreated.inc({ kind: stored.charge.kind, channel: "widget" });
  return { status: 201, body: { ...paymentRequestView(stored.charge, stored.cvu, stored.bankAccountInfo), expiresAt: checkoutExpiresAt(stored.charge) } };
};

export const getCheckoutPayment: Handler<"getCheckoutPayment"> = async ({ params, caller, services }) => {
  const widget = requireWidgetKey(caller, "publishable");
  const stored = await checkoutChargeOf(services.db, widget.integrationClientId, params.paymentRequestId);
  return { status: 200, body: checkoutPaymentStatusView(stored, integrationNow(services.clock, widget.clockOffsetMs)) };
};
