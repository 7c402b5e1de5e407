// A simulated transfer: the integration admin sends money to the CVU of one of the integration's charges
// and reconciliation runs exactly as for the bank feed, in the batches of the integration's Sandbox clock
// (transfer-batcher.ts). The batch checks that the CVU holds or held a charge of the integration, in the
// statement that records the transfer (a refused one is recorded nowhere), and reads the integration's
// subscription with it, for the answer about the webhook. The request's audit entry is written in the
// transfer's batch, so the two commit together.
import { randomUUID } from "node:crypto";
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { takeWorkAtFirstCommit } from "../../db/transactions.ts";
import type { UnmatchedReason } from "../../db/tables/transfers.table.ts";
import type { TransferBatcher } from "../reconciliation/transfer-batcher.ts";
import { cvuNotInIntegration, subscriptionIfCvuHeld } from "../reconciliation/transfer-rules.ts";

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
  reconciliation: { transfers: TransferBatcher },
  transfer: SimulatedTransfer,
  clockOffsetMs: number,
): Promise<SimulationOutcome> {
  const transactionId = `sim_${randomUUID()}`;
  if (transfer.forcePspFailure) {
    // Nothing is received, but the CVU is checked all the same.
    if (!(await enabledEventsIfCvuHeld(db, transfer.cvu, transfer.integrationClientId))) throw cvuNotInIntegration();
    return { transactionId, conciliated: false, webhookWillFire: false };
  }

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
      fromIntegration: transfer.integrationClientId,
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
    webhookWillFire: outcome.fromIntegrationEvents?.includes(webhookEvent) ?? false,
    webhookEvent,
    ...(outcome.charge ? { paymentRequestId: outcome.charge.id } : {}),
    ...(outcome.unmatchedReason ? { unmatchedReason: outcome.unmatchedReason } : {}),
  };
}

/** The integration's enabled events when `cvu` holds or held one of its charges; undefined when it never did. */
async function enabledEventsIfCvuHeld(db: Kysely<Database>, cvu: string, integrationClientId: string): Promise<string[] | undefined> {
  const row = await db
    .selectFrom("cvu_accounts as a")
    .select((eb) => subscriptionIfCvuHeld(db, eb.ref("a.id"), sql<string>`${integrationClientId}::uuid`).as("enabled_events"))
    .where("a.cvu", "=", cvu)
    .executeTakeFirst();
  return row?.enabled_events ?? undefined;
}
