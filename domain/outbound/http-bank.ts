// Production's bank: the bank's outgoing transfers API, as Cobro's bank connector speaks it.
//   POST {apiUrl}/transfers            Idempotency-Key: <returnId>
//        {"type": "return", "amount": "1500.00", "originalTransactionId", "toCvu"?, "toCuil"?, "reference": <returnId>}
//   GET  {apiUrl}/transfers/{id}
// Both answer {"id", "status": "completed" | "pending" | "rejected", "reason"?}; a pending one may say when to
// ask again (Retry-After, seconds). A 4xx is a refusal for good, its `error.message` (or `reason`) the reason
// (408 and 429 say "later"); a 5xx, a timeout or a failed connection is temporary, and the same return id is
// sent again (the bank takes one transfer per key). The URL is the operator's configuration, not an
// integrator's input, so it is not judged by the webhooks' SSRF guard; one deadline, no redirects (undici's
// `request` follows none), and the token only in the Authorization header: never in a reason or a log.
import { request, type Agent } from "undici";
import { fromCents } from "../money.ts";
import type { BankTransferResult, BankTransfers, ReturnTransfer } from "./bank-transfers.ts";
import { providerAgent, readJsonAnswer, unansweredReason } from "./http-client.ts";
import { failureReason, PROVIDER_TIMEOUT_MS } from "./sender.ts";

export interface HttpBankOptions {
  /** The API's base, without a trailing slash. */
  apiUrl: string;
  token: string;
  timeoutMs?: number;
}

/** When the bank says pending without a Retry-After. */
export const DEFAULT_CHECK_AFTER_MS = 60_000;

export class HttpBank implements BankTransfers {
  readonly #options: HttpBankOptions;
  readonly #timeoutMs: number;
  readonly #agent: Agent;

  constructor(options: HttpBankOptions) {
    this.#options = options;
    this.#timeoutMs = options.timeoutMs ?? PROVIDER_TIMEOUT_MS;
    this.#agent = providerAgent(this.#timeoutMs);
  }

  send(transfer: ReturnTransfer): Promise<BankTransferResult> {
    const body = {
      type: "return",
      amount: fromCents(transfer.amountCents).toFixed(2),
      originalTransactionId: transfer.originalTransactionId,
      ...(transfer.toCvu ? { toCvu: transfer.toCvu } : {}),
      ...(transfer.toCuil ? { toCuil: transfer.toCuil } : {}),
      reference: transfer.returnId,
    };
    return this.#call("POST", "/transfers", { "idempotency-key": transfer.returnId, "content-type": "application/json" }, JSON.stringify(body));
  }

  check(transfer: ReturnTransfer & { bankTransferId: string }): Promise<BankTransferResult> {
    return this.#call("GET", `/transfers/${encodeURIComponent(transfer.bankTransferId)}`, {});
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }

  async #call(method: "GET" | "POST", path: string, headers: Record<string, string>, body?: string): Promise<BankTransferResult> {
    const deadline = AbortSignal.timeout(this.#timeoutMs);
    try {
      const response = await request(`${this.#options.apiUrl}${path}`, {
        method,
        dispatcher: this.#agent,
        headers: { authorization: `Bearer ${this.#options.token}`, accept: "application/json", "user-agent": "Cobro-Returns/1.0", ...headers },
        ...(body !== undefined ? { body } : {}),
        signal: deadline,
      });
      const retryAfter = Number(response.headers["retry-after"]);
      return outcomeOf(
        response.statusCode,
        await readJsonAnswer<BankAnswer>(response.body),
        Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined,
      );
    } catch (error) {
      return { outcome: "temporary_failure", reason: unansweredReason(error, deadline, this.#timeoutMs, "the bank") };
    }
  }
}

interface BankAnswer {
  id?: unknown;
  status?: unknown;
  reason?: unknown;
  error?: { message?: unknown };
}

function outcomeOf(status: number, answer: BankAnswer | undefined, retryAfterMs: number | undefined): BankTransferResult {
  const said = typeof answer?.error?.message === "string" ? answer.error.message : typeof answer?.reason === "string" ? answer.reason : undefined;
  if (status >= 200 && status <= 299) {
    const id = typeof answer?.id === "string" && answer.id !== "" ? answer.id : undefined;
    if (id === undefined) return { outcome: "temporary_failure", reason: `the bank answered ${status} without a transfer id` };
    if (answer?.status === "completed") return { outcome: "completed", bankTransferId: id };
    if (answer?.status === "pending") return { outcome: "pending", bankTransferId: id, checkAfterMs: retryAfterMs ?? DEFAULT_CHECK_AFTER_MS };
    if (answer?.status === "rejected") return { outcome: "rejected", bankTransferId: id, reason: failureReason(said ?? "the bank rejected the transfer") };
    return { outcome: "temporary_failure", reason: `the bank answered ${status} with an unknown status` };
  }
  if (status === 408 || status === 429 || status >= 500 || status < 200)
    return { outcome: "temporary_failure", reason: failureReason(`the bank answered ${status}${said !== undefined ? `: ${said}` : ""}`) };
  if (status >= 300 && status <= 399)
    return { outcome: "rejected", reason: `the bank answered ${status}: redirects are not followed (check COBRO_BANK_API_URL)` };
  return { outcome: "rejected", reason: failureReason(said ?? `the bank answered ${status}`) };
}
