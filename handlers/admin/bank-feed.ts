// POST /internal/bank-feed/transfers and /internal/bank-feed/transfers/batch: production money in, from
// the bank integration, one transfer at a time or a page of them.
import { isDatabaseUnavailable } from "../../db/errors.ts";
import { DomainError } from "../../domain/errors.ts";
import { requireCents } from "../../domain/money.ts";
import { reconcileBatch } from "../../domain/reconciliation/reconcile-batch.ts";
import type { IncomingTransfer, ReconciliationOutcome } from "../../domain/reconciliation/reconcile.ts";
import type { components } from "../../generated/types/admin.ts";
import { countTransfer } from "../../runtime/metrics.ts";
import type { Services } from "../handler-types.ts";
import type { Handler } from "./handler.ts";

type BankFeedTransfer = components["schemas"]["BankFeedTransfer"];
type ItemResult = components["schemas"]["BankFeedItemResult"];

function incoming(body: BankFeedTransfer, amountField: string): IncomingTransfer {
  return {
    transactionId: body.transactionId,
    amountCents: requireCents(amountField, body.amount),
    receivingCvu: body.receivingCvu,
    senderCuil: body.senderCuil,
    senderCvu: body.senderCvu,
    senderName: body.senderName,
    operatedAt: new Date(body.operatedAt),
    source: "bank-feed",
  };
}

const optionsOf = (services: Services) => ({ receivedAt: services.clock.now(), livemode: services.config.serviceEnv === "production" });

/** Counts the transfer in the money metrics and answers what the single operation answers of it. */
function answerOf(services: Services, transfer: IncomingTransfer, outcome: ReconciliationOutcome) {
  const charge = outcome.charge;
  countTransfer(services.metrics, {
    source: "bank-feed",
    amountCents: transfer.amountCents,
    duplicate: outcome.duplicate,
    matched: charge !== undefined,
    unmatchedReason: outcome.unmatchedReason,
  });
  return {
    transferId: outcome.transferId,
    conciliated: charge !== undefined || (outcome.duplicate && outcome.unmatchedReason === undefined),
    ...(charge ? { paymentRequestId: charge.id } : {}),
    ...(outcome.unmatchedReason ? { unmatchedReason: outcome.unmatchedReason } : {}),
  };
}

export const ingestBankTransfer: Handler<"ingestBankTransfer"> = async ({ body, services }) => {
  const transfer = incoming(body, "amount");
  const outcome = await services.transfers.receive(transfer, { livemode: services.config.serviceEnv === "production", clockOffsetMs: 0 });
  return { status: 200, body: { duplicate: outcome.duplicate, ...answerOf(services, transfer, outcome) } };
};

export const ingestBankTransferPage: Handler<"ingestBankTransferPage"> = async ({ body, services, log, requestId }) => {
  const transfers = body.transfers.map((item, index) => incoming(item, `transfers[${index}].amount`));
  const outcomes = await reconcileBatch(services.db, transfers, optionsOf(services));
  // The database away: the page may be partly applied; 503 asks for it again (what was recorded answers duplicate).
  const unavailable = outcomes.find((outcome) => outcome.status === "rejected" && isDatabaseUnavailable(outcome.reason));
  if (unavailable?.status === "rejected") throw unavailable.reason;
  const counts = { recorded: 0, duplicate: 0, matched: 0, unmatched: 0, failed: 0 };
  const results = outcomes.map((settled, index): ItemResult => {
    const transfer = transfers[index]!;
    const head = { index, transactionId: transfer.transactionId };
    if (settled.status === "rejected") {
      counts.failed++;
      log.error({ err: settled.reason, index, transactionId: transfer.transactionId }, "a transfer of a bank feed page was not recorded");
      return { ...head, outcome: "failed", error: itemError(settled.reason, requestId) };
    }
    const answer = answerOf(services, transfer, settled.value);
    if (settled.value.duplicate) counts.duplicate++;
    else {
      counts.recorded++;
      if (answer.paymentRequestId) counts.matched++;
      else counts.unmatched++;
    }
    return { ...head, outcome: settled.value.duplicate ? "duplicate" : "recorded", ...answer };
  });
  return { status: 200, body: { ...counts, results } };
};

/** A failed transfer's error, in the Admin API's general shape; its `id` is the request's, in the log with it. */
function itemError(reason: unknown, requestId: string): components["schemas"]["AdminErrorBody"] {
  if (reason instanceof DomainError) return { code: reason.code, message: reason.message, id: requestId };
  return {
    code: "InternalError",
    message: "This transfer could not be recorded; nothing of it was written. Send it again; quote the id to support if it fails again.",
    id: requestId,
  };
}
