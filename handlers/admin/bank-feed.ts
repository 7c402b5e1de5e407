// POST /internal/bank-feed/transfers: production money in, from the bank integration.
import { requireCents } from "../../domain/money.ts";
import { countTransfer } from "../../runtime/metrics.ts";
import type { Handler } from "./handler.ts";

export const ingestBankTransfer: Handler<"ingestBankTransfer"> = async ({ body, services }) => {
  const amountCents = requireCents("amount", body.amount);
  const outcome = await services.transfers.receive(
    {
      transactionId: body.transactionId,
      amountCents,
      receivingCvu: body.receivingCvu,
      senderCuil: body.senderCuil,
      senderCvu: body.senderCvu,
      senderName: body.senderName,
      operatedAt: new Date(body.operatedAt),
      source: "bank-feed",
    },
    { livemode: services.config.serviceEnv === "production", clockOffsetMs: 0 },
  );
  const charge = outcome.charge;
  countTransfer(services.metrics, {
    source: "bank-feed",
    amountCents,
    duplicate: outcome.duplicate,
    matched: charge !== undefined,
    unmatchedReason: outcome.unmatchedReason,
  });
  return {
    status: 200,
    body: {
      transferId: outcome.transferId,
      duplicate: outcome.duplicate,
      conciliated: charge !== undefined || (outcome.duplicate && outcome.unmatchedReason === undefined),
      ...(charge ? { paymentRequestId: charge.id } : {}),
      ...(outcome.unmatchedReason ? { unmatchedReason: outcome.unmatchedReason } : {}),
    },
  };
};
