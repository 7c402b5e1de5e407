// How an API process's event streams learn that their integration's log moved, and follow it: one poll
// for all of them, every `intervalMs` while any is open (eventLogAdvance, domain/events/event-stream.ts), waking only the
// streams of integrations with events newly below the horizon. Events are written by every API process and
// by the worker; a poll of the horizon sees them all, and also sees it pass events that committed earlier
// but waited for an older transaction, which a NOTIFY at their commit would not announce. No connection is
// held between polls: each poll, and each stream's read, borrows one from the pool for one query.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { DomainError } from "../errors.ts";
import { eventLogAdvance, readEventStream, type EventLogCursor, type EventStreamFilter, type StreamedEvent } from "./event-stream.ts";

export type WaitOutcome = "woken" | "timeout" | "closed";

/** How long a client refused for too many open streams is asked to wait: streams end when their clients leave. */
const STREAM_LIMIT_RETRY_AFTER_SECONDS = 30;

/** What a followed log yields after `heartbeatMs` without an event: the stream says it is alive. */
export const HEARTBEAT = Symbol("heartbeat");

export interface EventLogSubscription {
  /** Whose event log it watches. */
  readonly integrationClientId: string;
  /** Resolves when the log may have moved, after `timeoutMs` of quiet, or when the stream must end. */
  wait(timeoutMs: number, signal: AbortSignal): Promise<WaitOutcome>;
  close(): void;
}

interface Subscriber {
  integrationClientId: string;
  /** Woken while not waiting: the next wait returns at once. */
  pending: boolean;
  closed: boolean;
  wake?: (outcome: WaitOutcome) => void;
}

export class EventLogWatcher {
  readonly #db: Kysely<Database>;
  readonly #intervalMs: number;
  readonly #onError: (error: unknown) => void;
  readonly #subscribers = new Set<Subscriber>();
  /** Subscribed since the last poll began: woken by the next one whatever it finds. */
  readonly #newcomers = new Set<Subscriber>();
  #timer: NodeJS.Timeout | undefined;
  #horizon: string | undefined;
  #polling = false;
  #stopped = false;

  constructor(db: Kysely<Database>, options: { intervalMs: number; onError: (error: unknown) => void }) {
    this.#db = db;
    this.#intervalMs = options.intervalMs;
    this.#onError = options.onError;
  }

  /** Open streams in this process (of one integration, when given). */
  openStreams(integrationClientId?: string): number {
    let count = 0;
    for (const subscriber of this.#subscribers) if (integrationClientId === undefined || subscriber.integrationClientId === integrationClientId) count++;
    return count;
  }

  /**
   * Subscribe before the stream's first read: the first poll after it wakes the stream whatever it finds,
   * so an event that passed the horizon between that read and the poll's previous one is read too. With
   * `limit`, an integration that already has that many streams open here is refused (429
   * `TooManyEventStreamsError`); counting and subscribing are one synchronous step, so requests arriving
   * together cannot all pass the count.
   */
  subscribe(integrationClientId: string, limit?: number): EventLogSubscription {
    if (limit !== undefined && this.openStreams(integrationClientId) >= limit)
      throw new DomainError("TooManyEventStreamsError", `The integration already has ${limit} event streams open on this server: close one first`, {
        headers: { "Retry-After": STREAM_LIMIT_RETRY_AFTER_SECONDS },
      });
    const subscriber: Subscriber = { integrationClientId, pending: false, closed: this.#stopped };
    if (!this.#stopped) this.#subscribers.add(subscriber);
    this.#newcomers.add(subscriber);
    this.#schedule();
    return {
      integrationClientId,
      wait: (timeoutMs, signal) => this.#wait(subscriber, timeoutMs, signal),
      close: () => this.#close(subscriber, "closed"),
    };
  }

  /**
   * The subscription's integration's events after `start`, in the log's order, as they pass the horizon,
   * until `signal` aborts or the watcher stops; `HEARTBEAT` after `heartbeatMs` with nothing yielded,
   * whatever woke the reader meanwhile. A backlog is read batch after batch without waiting.
   * `subscription` is taken before the first read so nothing that moves meanwhile goes unnoticed; the
   * caller closes it (it counts against the integration's limit from the request on).
   */
  async *follow(
    subscription: EventLogSubscription,
    start: EventLogCursor,
    filter: EventStreamFilter,
    options: { heartbeatMs: number; signal: AbortSignal },
  ): AsyncGenerator<StreamedEvent | typeof HEARTBEAT> {
    let lastYielded = performance.now();
    let cursor = start;
    while (!options.signal.aborted) {
      const batch = await readEventStream(this.#db, subscription.integrationClientId, cursor, filter);
      cursor = batch.cursor;
      for (const event of batch.events) {
        yield event;
        lastYielded = performance.now();
      }
      if (batch.more) continue;
      const outcome = await subscription.wait(Math.max(0, lastYielded + options.heartbeatMs - performance.now()), options.signal);
      if (outcome === "closed") return;
      if (outcome === "timeout") {
        yield HEARTBEAT;
        lastYielded = performance.now();
      }
    }
  }

  /** Ends every stream (the service is stopping) and polls no more. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    for (const subscriber of [...this.#subscribers]) this.#close(subscriber, "closed");
  }

  #wait(subscriber: Subscriber, timeoutMs: number, signal: AbortSignal): Promise<WaitOutcome> {
    if (subscriber.closed || signal.aborted) return Promise.resolve("closed");
    if (subscriber.pending) {
      subscriber.pending = false;
      return Promise.resolve("woken");
    }
    return new Promise((resolve) => {
      const done = (outcome: WaitOutcome) => {
        clearTimeout(timer);
        signal.removeEventListener("abort", aborted);
        subscriber.wake = undefined;
        resolve(outcome);
      };
      const aborted = () => done("closed");
      const timer = setTimeout(() => done("timeout"), timeoutMs);
      signal.addEventListener("abort", aborted, { once: true });
      subscriber.wake = done;
    });
  }

  #close(subscriber: Subscriber, outcome: WaitOutcome): void {
    subscriber.closed = true;
    this.#subscribers.delete(subscriber);
    this.#newcomers.delete(subscriber);
    subscriber.wake?.(outcome);
    if (this.#subscribers.size === 0) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  #notify(subscriber: Subscriber): void {
    if (subscriber.wake) subscriber.wake("woken");
    else subscriber.pending = true;
  }

  #schedule(): void {
    if (this.#stopped || this.#timer !== undefined || this.#polling || this.#subscribers.size === 0) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.#poll();
    }, this.#intervalMs);
  }

  async #poll(): Promise<void> {
    this.#polling = true;
    const newcomers = [...this.#newcomers];
    this.#newcomers.clear();
    try {
      const integrations = [...new Set([...this.#subscribers].map((subscriber) => subscriber.integrationClientId))];
      const advance = await eventLogAdvance(this.#db, integrations, this.#horizon);
      this.#horizon = advance.horizon;
      const moved = new Set(advance.integrationClientIds);
      for (const subscriber of this.#subscribers) if (moved.has(subscriber.integrationClientId)) this.#notify(subscriber);
      for (const subscriber of newcomers) if (!subscriber.closed) this.#notify(subscriber);
    } catch (error) {
      // The same window is polled again next time (the horizon did not move); newcomers are woken then.
      for (const subscriber of newcomers) if (!subscriber.closed) this.#newcomers.add(subscriber);
      this.#onError(error);
    } finally {
      this.#polling = false;
      this.#schedule();
    }
  }
}
