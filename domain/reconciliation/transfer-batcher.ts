// Group commit for transfers that arrive one request each (the single bank-feed operation,
// simulate-payment): each joins the next batch of its kind and is answered when that batch commits, so
// that many concurrent transfers cost one transaction of set-based statements (reconcile-batch.ts)
// instead of one transaction each.
//
// When a batch goes: at once while fewer than `maxInFlight` batches are committing (an idle service adds
// no wait to a lone transfer), else when a committing batch ends, when it holds `maxSize` transfers, or
// when its first transfer has waited `windowMs`, whichever comes first. Transfers are batched by the time
// they are received in (Production's clock, or one Sandbox clock's offset), since a batch has one
// receivedAt: the instant it is sent, in that clock.
//
// Nothing is acknowledged before it commits: a request is answered from its batch's outcome, and a
// process that dies with batches waiting or committing has answered none of their transfers.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { TakenWork } from "../../db/transactions.ts";
import { integrationNow, type Clock } from "../clock.ts";
import { reconcileBatch } from "./reconcile-batch.ts";
import type { IncomingTransfer, ReconciliationOutcome } from "./transfer-rules.ts";

export interface TransferBatchSettings {
  /** The most transfers one batch holds. */
  maxSize: number;
  /** The longest a transfer waits for its batch to go while others commit, in milliseconds. */
  windowMs: number;
  /** How many batches may commit at once before new transfers wait for one of them (or the window). */
  maxInFlight: number;
}

/** Whose time a transfer is received in: Production's (offset 0, live), or a Sandbox integration's clock. */
export interface ReceivedIn {
  livemode: boolean;
  clockOffsetMs: number;
}

/** What the batcher reports of each batch sent (for the metrics). */
export type BatchObserver = (batch: { size: number; waitedMs: number }) => void;

interface Waiting {
  transfer: IncomingTransfer;
  atCommit: TakenWork | undefined;
  resolve(outcome: ReconciliationOutcome): void;
  reject(reason: unknown): void;
}

interface PendingBatch {
  receivedIn: ReceivedIn;
  items: Waiting[];
  openedAt: number;
  timer?: NodeJS.Timeout;
}

export class TransferBatcher {
  readonly #pending = new Map<string, PendingBatch>();
  #inFlight = 0;
  readonly #idle: Array<() => void> = [];
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly #settings: TransferBatchSettings;
  readonly #observe: BatchObserver;

  constructor(db: Kysely<Database>, clock: Clock, settings: TransferBatchSettings, observe: BatchObserver = () => {}) {
    this.#db = db;
    this.#clock = clock;
    this.#settings = settings;
    this.#observe = observe;
  }

  /**
   * Reconciles the transfer in the next batch of its kind; answers its outcome once that batch has
   * committed. `atCommit` is work that commits with the transfer, in its batch's transaction (the
   * request's audit entry).
   */
  receive(transfer: IncomingTransfer, receivedIn: ReceivedIn, atCommit?: TakenWork): Promise<ReconciliationOutcome> {
    return new Promise((resolve, reject) => {
      const key = `${receivedIn.livemode ? "live" : "test"}:${receivedIn.clockOffsetMs}`;
      let batch = this.#pending.get(key);
      if (!batch) {
        batch = { receivedIn, items: [], openedAt: performance.now() };
        this.#pending.set(key, batch);
      }
      batch.items.push({ transfer, atCommit, resolve, reject });
      if (batch.items.length >= this.#settings.maxSize || this.#inFlight < this.#settings.maxInFlight) {
        this.#send(key, batch);
      } else if (!batch.timer) {
        const waiting = batch;
        batch.timer = setTimeout(() => this.#send(key, waiting), this.#settings.windowMs);
      }
    });
  }

  /** Resolves once no transfer waits or commits (what a test or a stopping process waits for). */
  whenIdle(): Promise<void> {
    if (this.#inFlight === 0 && this.#pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #send(key: string, batch: PendingBatch): void {
    if (this.#pending.get(key) !== batch) return; // already sent
    this.#pending.delete(key);
    clearTimeout(batch.timer);
    this.#inFlight += 1;
    this.#observe({ size: batch.items.length, waitedMs: performance.now() - batch.openedAt });
    const receivedAt = integrationNow(this.#clock, batch.receivedIn.clockOffsetMs);
    const transfers = batch.items.map((item) => item.transfer);
    const atCommit = batch.items.map((item) => item.atCommit);
    reconcileBatch(this.#db, transfers, { receivedAt, livemode: batch.receivedIn.livemode }, atCommit)
      .then(
        (outcomes) => {
          for (const [index, outcome] of outcomes.entries()) {
            const item = batch.items[index]!;
            if (outcome.status === "fulfilled") item.resolve(outcome.value);
            else item.reject(outcome.reason);
          }
        },
        (error: unknown) => {
          for (const item of batch.items) item.reject(error);
        },
      )
      .finally(() => {
        this.#inFlight -= 1;
        if (this.#inFlight < this.#settings.maxInFlight) this.#sendOldestWaiting();
        if (this.#inFlight === 0 && this.#pending.size === 0) for (const resolve of this.#idle.splice(0)) resolve();
      });
  }

  /** A committing batch ended: the batch that has waited longest goes. */
  #sendOldestWaiting(): void {
    let oldest: [string, PendingBatch] | undefined;
    for (const entry of this.#pending) if (!oldest || entry[1].openedAt < oldest[1].openedAt) oldest = entry;
    if (oldest) this.#send(...oldest);
  }
}
