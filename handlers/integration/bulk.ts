// POST /payment-request/bulk: 1 to 100 CUIL-mode charges on one shared CVU, all or nothing.
import { createChargeBatch } from "../../domain/charges/bulk.ts";
import { validateBulkItems } from "../../domain/charges/charge-rules.ts";
import { chargeContext } from "./payment-requests.ts";
import type { Handler } from "./handler.ts";

export const createPaymentRequestsBulk: Handler<"createPaymentRequestsBulk"> = async ({ body, caller, services }) => {
  const context = chargeContext(caller, services);
  const specs = validateBulkItems(body.paymentRequests, context.now);
  const batch = await createChargeBatch(services.db, context, specs);
  // All or nothing: every item is a new charge.
  for (const spec of specs) services.metrics.money.chargesCreated.inc({ kind: spec.kind, channel: "bulk" });
  return {
    status: 201,
    body: {
      batchId: batch.batchId,
      total: specs.length,
      created: batch.charges.length,
      sharedCvu: batch.sharedCvu,
      accountInfo: batch.accountInfo,
      paymentRequests: batch.charges,
    },
  };
};
