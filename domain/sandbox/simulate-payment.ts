// A simulated transfer: the integration admin sends money to the CVU of one of the integration's charges
// and reconciliation runs exactly as for the bank feed, in the batches of the integration's Sandbox clock
// (transfer-batcher.ts). The ownership check reads first, apart from the batch (simulated-cvus.ts): a CVU
// that held a charge of the integration always will (charges holding a CVU are never deleted), so nothing
// between the check and the batch can make it false. The request's audit entry is written in the
// transfer's batch, so the two commit together.
import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { takeWorkAtFirstCommit } from "../../db/transactions.ts";
import type { UnmatchedReason } from "../../db/tables/transfers.table.ts";
import { DomainError } from "../errors.ts";
import type { TransferBatcher } from "../reconciliation/transfer-batcher.ts";
import type { SimulatedCvus } from "./simulated-cvus.ts";

export interface SimulatedTransfer {
  integrationClientId: string;
  cvu: string;
  amountCents: number;
  operatedAt: Date;
  senderCuil?: string;
  senderCvu?: string;
  senderName?: string;
  /** The payment provider fails: nothing is received. */
  forcePspFailure: boolean;
}

export interface SimulationOutcome {
  /** The bank transaction id given to the simulated transfer (`sim_…`). */
  transactionId: string;
  conciliated: boolean;
  webhookWillFire: boolean;
  /** The event the transfer wrote; absent when the provider failed. */
  webhookEvent?: "payment_request.payment_received" | "payment.unmatched";
  paymentRequestId?: string;
  unmatchedReason?: UnmatchedReason;
}

export async function simulatePayment(
  db: Kysely<Database>,
  reconciliation: { transfers: TransferBatcher; simulatedCvus: SimulatedCvus },
  transfer: SimulatedTransfer,
  clockOffsetMs: number,
): Promise<SimulationOutcome> {
  // The CVU must belong (now or before) to a charge of the caller's integration; read with it, the
  // integration's subscription, for the answer about the webhook.
  const enabledEvents = await reconciliation.simulatedCvus.enabledEventsIfOwned(transfer.cvu, transfer.integrationClientId);
  if (!enabledEvents) throw new DomainError("CvuNotInIntegrationError", "The cvu does not belong to a charge of this integration");

  const transactionId = `sim_${randomUUID()}`;
  if (transfer.forcePspFailure) return { transactionId, conciliated: false, webhookWillFire: false };

  const outcome = await reconciliation.transfers.receive(
    {
      transactionId,
      amountCents: transfer.amountCents,
      receivingCvu: transfer.cvu,
      senderCuil: transfer.senderCuil,
      senderCvu: transfer.senderCvu,
      senderName: transfer.senderName,
      operatedAt: transfer.operatedAt,
      source: "simulation",
    },
    { livemode: false, clockOffsetMs },
    // The request's audit entry, when `db` carries one, commits with the transfer in its batch.
    takeWorkAtFirstCommit(db),
  );
  const conciliated = outcome.charge !== undefined;
  const webhookEvent = conciliated ? "payment_request.payment_received" : "payment.unmatched";
  return {
    transactionId,
    conciliated,
    webhookWillFire: enabledEvents.includes(webhookEvent),
    webhookEvent,
    ...(outcome.charge ? { paymentRequestId: outcome.charge.id } : {}),
    ...(outcome.unmatchedReason ? { unmatchedReason: outcome.unmatchedReason } : {}),
  };
}
