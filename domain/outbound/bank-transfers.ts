// The bank's side of money going out: returning unmatched money to the account it came from. Built once per
// worker process from the operator's configuration (server/service.ts): the bank's outgoing transfers API in
// Production (http-bank.ts), the Sandbox's bank otherwise (sandbox-bank.ts). Like a message sender, a bank
// never throws for anything the bank does; it answers one of four outcomes and the return's use case records it.

/** One outgoing transfer: the return of a received transfer, identified by Cobro's return id (the bank's idempotency key). */
export interface ReturnTransfer {
  returnId: string;
  amountCents: number;
  /** The bank's id of the transfer being returned. */
  originalTransactionId: string;
  /** The sender's account (CBU or CVU) and CUIL, when the bank reported them. */
  toCvu: string | null;
  toCuil: string | null;
  /** Sandbox only: the Sandbox's bank refuses it (Production's never receives it). */
  simulateFailure: boolean;
}

export type BankTransferResult =
  /** The bank sent the money. */
  | { outcome: "completed"; bankTransferId: string }
  /** The bank took the transfer and has not finished it: ask again after `checkAfterMs`. */
  | { outcome: "pending"; bankTransferId: string; checkAfterMs: number }
  /** The bank refused it for good (an account closed or unknown): its words. */
  | { outcome: "rejected"; reason: string; bankTransferId?: string }
  /** No answer, or one that says "later": asked again with the same return id, which the bank takes once. */
  | { outcome: "temporary_failure"; reason: string };

export interface BankTransfers {
  /** Asks for the transfer; the same return id twice is one transfer at the bank. */
  send(transfer: ReturnTransfer): Promise<BankTransferResult>;
  /** Where a transfer the bank took stands. */
  check(transfer: ReturnTransfer & { bankTransferId: string }): Promise<BankTransferResult>;
  /** Closes its connections (the worker stops). */
  close(): Promise<void>;
}
