// The Integration API's handler map: one entry per operation of generated/openapi/integration.yaml.
import type { operations } from "../../generated/types/integration.ts";
import type { IntegrationCaller } from "../../domain/sign-in/callers.ts";
import type { HandlerMap } from "../handler-types.ts";
import { getHealth, getReadiness } from "../health.ts";
import { createPaymentRequestsBulk } from "./bulk.ts";
import { getMe } from "./me.ts";
import { getPayerPage, requestPaymentConfirmation } from "./payer-page.ts";
import { lookupPayer } from "./payer-lookup.ts";
import { assignMerchantTenant } from "./tenant.ts";
import { createCheckoutPayment, getCheckoutPayment } from "./checkout-payments.ts";
import { assignUnmatchedPayment, getUnmatchedPayment, listUnmatchedPayments, returnUnmatchedPayment } from "./unmatched-payments.ts";
import {
  cancelPaymentRequest,
  completePaymentRequestAmount,
  createPaymentRequest,
  getPaymentRequest,
  listPaymentRequests,
  updatePaymentRequestCustomer,
} from "./payment-requests.ts";

export const integrationHandlers: HandlerMap<operations, IntegrationCaller> = {
  getHealth,
  getReadiness,
  getMe,
  assignMerchantTenant,
  lookupPayer,
  createPaymentRequest,
  listPaymentRequests,
  createPaymentRequestsBulk,
  getPaymentRequest,
  completePaymentRequestAmount,
  cancelPaymentRequest,
  updatePaymentRequestCustomer,
  getPayerPage,
  requestPaymentConfirmation,
  createCheckoutPayment,
  getCheckoutPayment,
  listUnmatchedPayments,
  getUnmatchedPayment,
  assignUnmatchedPayment,
  returnUnmatchedPayment,
};
