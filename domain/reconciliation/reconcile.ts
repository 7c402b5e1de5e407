// Money in: a bank transfer is recorded once (by its transaction id) and matched to a charge — by the CVU
// that received it (cvu mode) or by the sender's CUIL among the CVU's open charges (cuil mode). Payments
// accumulate; the state change, the payment, its breakdown (domain/earnings/), its event and its payer
// notifications are one transaction. A transfer received alone is a batch of one (reconcile-batch.ts); the
// service's requests go through the group commit of transfer-batcher.ts, which gives it company under load.
// Concurrent transfers to one charge are serialised on the charge's row, so they sum correctly; transfers
// to different charges sharing a CVU do not wait for each other.
import type { Executor } from "../../db/transactions.ts";
import { reconcileBatch } from "./reconcile-batch.ts";
import type { IncomingTransfer, ReconciliationOutcome } from "./transfer-rules.ts";

export type { IncomingTransfer, ReconciliationOutcome } from "./transfer-rules.ts";

export async function receiveTransfer(
  db: Executor,
  transfer: IncomingTransfer,
  options: { receivedAt: Date; livemode: boolean },
): Promise<ReconciliationOutcome> {
  const [answer] = await reconcileBatch(db, [transfer], options);
  if (answer!.status === "rejected") throw answer!.reason;
  return answer!.value;
}
