// The Sandbox's bank: nothing leaves. It takes every return and finishes it a moment later, when the return's
// next check comes (its job's run_at, SANDBOX_RETURN_DELAY_MS after the request): `completed`, or, for a
// return asked with `simulateFailure`, refused with a bank's reason.
import type { BankTransfers } from "./bank-transfers.ts";

/** How long a Sandbox return takes: the "moment" before it completes by itself. */
export const SANDBOX_RETURN_DELAY_MS = 30_000;

/** The reason the Sandbox's bank gives for a return asked to fail. */
export const SANDBOX_RETURN_FAILURE = "Cuenta de destino inexistente o cerrada (simulado en el Sandbox)";

export const sandboxBank: BankTransfers = {
  send: async (transfer) => ({ outcome: "pending", bankTransferId: `sandbox-${transfer.returnId}`, checkAfterMs: SANDBOX_RETURN_DELAY_MS }),
  check: async (transfer) =>
    transfer.simulateFailure
      ? { outcome: "rejected", reason: SANDBOX_RETURN_FAILURE, bankTransferId: transfer.bankTransferId }
      : { outcome: "completed", bankTransferId: transfer.bankTransferId },
  close: async () => {},
};
