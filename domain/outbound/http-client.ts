// The one HTTP client for calls to integrators' URLs (event deliveries, the test webhook, URL
// verification). Every call:
// - is judged by the SSRF guard first (scheme, literal addresses, and the name's addresses now), and
//   again at connect time: the connection's own DNS lookup refuses any internal address, so a name that
//   changes between the check and the connection (DNS rebinding) cannot reach inside;
// - has one deadline (5 s by default) from the start of the call to the response's status line;
// - never follows a redirect (undici's `request` does not; a 3xx is a failure of kind `redirect`);
// - never keeps the receiver's body: at most MAX_RESPONSE_BYTES_READ of it are read and discarded, then
//   the connection is dropped (a receiver flooding an endless body costs nothing more).
// Below it, what the calls to the providers the operator configures (the chat provider, the bank) share:
// their agent, their byte-capped JSON answer, and the reason when none came.
import { performance } from "node:perf_hooks";
import type { LookupAddress, LookupOneOptions } from "node:dns";
import { Agent, request } from "undici";
import { addressAllowed, checkDestination, systemResolve, type DestinationPolicy } from "./destination-guard.ts";

/** A receiver must answer 2xx within this time. */
export const DELIVERY_TIMEOUT_MS = 5000;

/** The most of a receiver's answer body read (and discarded) before its connection is dropped. */
export const MAX_RESPONSE_BYTES_READ = 64 * 1024;

/** Open connections to one receiver (origin) at most; further calls wait for one, within their deadline. */
export const MAX_CONNECTIONS_PER_ORIGIN = 32;

export type OutboundFailure = "non_2xx" | "timeout" | "connection_error" | "redirect" | "blocked_address";

export interface OutboundResult {
  /** 2xx within the deadline. */
  ok: boolean;
  /** The status the receiver answered, when it answered. */
  status?: number;
  /** Absent when `ok`. */
  failure?: OutboundFailure;
  durationMs: number;
  /** For logs only: why it failed (never the receiver's body). */
  detail?: string;
}

export interface OutboundClientOptions extends DestinationPolicy {
  /**
   * The deadline of a call, in milliseconds (default DELIVERY_TIMEOUT_MS, the contract's 5 s). Only tests
   * shorten it, to exercise a slow receiver without waiting 5 s.
   */
  timeoutMs?: number;
}

class BlockedAddressError extends Error {
  readonly code = "ERR_COBRO_BLOCKED_ADDRESS";
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** net.connect's `lookup`, refusing every name that resolves (even in part) to an address the policy forbids. */
function guardedLookup(policy: DestinationPolicy) {
  const resolve = policy.resolve ?? systemResolve;
  return (hostname: string, options: LookupOneOptions & { all?: boolean }, callback: LookupCallback): void => {
    resolve(hostname).then(
      (addresses) => {
        const refused = addresses.find((address) => !addressAllowed(address, policy.allowLoopback));
        if (refused !== undefined || addresses.length === 0) {
          callback(new BlockedAddressError(`${hostname} resolves to an internal or private address (${refused ?? "none"})`), "");
          return;
        }
        const family = (address: string) => (address.includes(":") ? 6 : 4);
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((address) => family(address) === options.family) : addresses;
        if (wanted.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no IPv${options.family} address`), { code: "ENOTFOUND" }), "");
          return;
        }
        if (options.all)
          callback(
            null,
            wanted.map((address) => ({ address, family: family(address) })),
          );
        else callback(null, wanted[0]!, family(wanted[0]!));
      },
      (error: unknown) => callback(Object.assign(error instanceof Error ? error : new Error(String(error)), { code: "ENOTFOUND" }), ""),
    );
  };
}

/** The error codes and names along an error's `cause` chain (undici wraps the socket's error). */
export function codesOf(error: unknown): string[] {
  const codes: string[] = [];
  for (
    let current = error as { code?: unknown; name?: unknown; cause?: unknown } | undefined, depth = 0;
    current && depth < 5;
    current = current.cause as typeof current, depth++
  ) {
    if (typeof current.code === "string") codes.push(current.code);
    if (typeof current.name === "string") codes.push(current.name);
  }
  return codes;
}

/** True when a call failed for want of an answer in time: its deadline, or one of the agent's own timeouts. */
export function isTimeout(error: unknown, deadline: AbortSignal): boolean {
  return deadline.aborted || codesOf(error).some((code) => ["TimeoutError", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_CONNECT_TIMEOUT", "ETIMEDOUT"].includes(code));
}

/** More of a provider's answer than this is not read: an id or an error message fits in far less. */
export const PROVIDER_ANSWER_LIMIT_BYTES = 64 * 1024;

/**
 * The connections to a provider the operator configured (the chat provider, the bank): `timeoutMs` for
 * connecting, for the status line and between body chunks; kept alive. Not an integrator's URL, so no SSRF guard.
 */
export function providerAgent(timeoutMs: number): Agent {
  return new Agent({ connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, keepAliveTimeout: 4000 });
}

/** A provider's answer as a JSON object, read up to `limit` bytes; undefined past that, or when it is not a JSON object. */
export async function readJsonAnswer<T extends object>(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  limit: number = PROVIDER_ANSWER_LIMIT_BYTES,
): Promise<T | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      return undefined;
    }
  }
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    return typeof parsed === "object" && parsed !== null ? (parsed as T) : undefined;
  } catch {
    return undefined;
  }
}

/** Why a call to a provider (`who`: "the bank") got no answer: its deadline passed, or it could not be reached. */
export function unansweredReason(error: unknown, deadline: AbortSignal, timeoutMs: number, who: string): string {
  if (isTimeout(error, deadline)) return `${who} did not answer within ${timeoutMs} ms`;
  return `could not reach ${who} (${codesOf(error)[0] ?? "connection failed"})`;
}

export class OutboundHttpClient {
  readonly #policy: DestinationPolicy;
  readonly #timeoutMs: number;
  readonly #agent: Agent;

  constructor(options: OutboundClientOptions) {
    this.#policy = { allowLoopback: options.allowLoopback, resolve: options.resolve };
    this.#timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
    this.#agent = new Agent({
      connect: { lookup: guardedLookup(this.#policy) as never, timeout: this.#timeoutMs },
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
      // Kept-alive connections, at most this many per destination origin: a burst of deliveries reuses them
      // instead of opening one per event, and never floods one receiver.
      connections: MAX_CONNECTIONS_PER_ORIGIN,
      keepAliveTimeout: 4000,
      keepAliveMaxTimeout: 30_000,
    });
  }

  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /** The destinations this client may call: registrations are judged by the same policy. */
  get policy(): DestinationPolicy {
    return this.#policy;
  }

  /** POSTs `rawBody` (JSON) with `headers`; never throws for anything the destination does. */
  async postJson(url: string, rawBody: string, headers: Record<string, string>): Promise<OutboundResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const deadline = AbortSignal.timeout(this.#timeoutMs);
    const verdict = await checkDestination(url, this.#policy, false);
    if (!verdict.allowed) {
      const unresolved = verdict.reason.endsWith("does not resolve");
      return { ok: false, failure: unresolved ? "connection_error" : "blocked_address", durationMs: elapsed(), detail: verdict.reason };
    }
    try {
      const response = await request(url, {
        method: "POST",
        dispatcher: this.#agent,
        headers: { "content-type": "application/json", "user-agent": "Cobro-Webhooks/1.0", ...headers },
        body: rawBody,
        signal: deadline,
      });
      const durationMs = elapsed();
      // Discarded unread (and the connection freed, or dropped past the cap); never kept, never logged.
      response.body.dump({ limit: MAX_RESPONSE_BYTES_READ }).catch(() => undefined);
      const status = response.statusCode;
      if (status >= 200 && status <= 299) return { ok: true, status, durationMs };
      if (status >= 300 && status <= 399) return { ok: false, status, failure: "redirect", durationMs, detail: `redirect ${status} not followed` };
      return { ok: false, status, failure: "non_2xx", durationMs, detail: `answered ${status}` };
    } catch (error) {
      const durationMs = elapsed();
      const codes = codesOf(error);
      if (codes.includes("ERR_COBRO_BLOCKED_ADDRESS")) return { ok: false, failure: "blocked_address", durationMs, detail: (error as Error).message };
      if (isTimeout(error, deadline)) {
        return { ok: false, failure: "timeout", durationMs, detail: `no answer within ${this.#timeoutMs} ms` };
      }
      return { ok: false, failure: "connection_error", durationMs, detail: codes[0] ?? "connection failed" };
    }
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}
