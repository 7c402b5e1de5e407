// The Integration API's handler map: one entry per operation of generated/openapi/integration.yaml.
import type { operations } from "../../generated/types/integration.ts";
import type { IntegrationCaller } from "../../domain/identity/callers.ts";
import { notImplemented, type HandlerMap } from "../../server/handler-types.ts";
import { getHealth, getReadiness } from "../health.ts";
import { getMe } from "./me.ts";

export const integrationHandlers: HandlerMap<operations, IntegrationCaller> = {
  getHealth,
  getReadiness,
  getMe,
  assignMerchantTenant: notImplemented,
  lookupPayer: notImplemented,
  createPaymentRequest: notImplemented,
  listPaymentRequests: notImplemented,
  createPaymentRequestsBulk: notImplemented,
  getPaymentRequest: notImplemented,
  completePaymentRequestAmount: notImplemented,
  cancelPaymentRequest: notImplemented,
  updatePaymentRequestCustomer: notImplemented,
};
