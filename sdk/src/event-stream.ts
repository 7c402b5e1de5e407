// The integration's event stream (GET /my-integration/events/stream on the Admin API) followed as one
// endless sequence of events: after a dropped connection it reconnects with `Last-Event-ID` set to the
// last event received, which the service answers with every later event, so none is lost or repeated.
// `cobro listen` reads the stream with it; any integrator can.
import { EventsApi, type Configuration } from "./generated/admin/index.js";
import { httpStatusOf, isNoAnswerError, isResponseError } from "./errors.js";
import { SseParser } from "./server-sent-events.js";

/** One event of the stream: its `data`, as the contract describes it. */
export interface StreamedEvent {
  eventId: string;
  /** The `X-Service-Webhook-Id` that the event's webhook delivery sends. */
  webhookId: string;
  /** The event's name (`payment_request.payment_received`…). */
  event: string;
  createdAt: string;
  /** The exact body of the event's webhook. */
  payload: Record<string, unknown>;
}

/** Why the stream waits before trying again. */
export type EventStreamWait =
  /** The connection ended or dropped; it resumes after the last event received. */
  | { reason: "ended"; delayMs: number }
  /** The service did not answer (down, restarting, no network). */
  | { reason: "no-answer"; delayMs: number }
  /** 429: the integration has as many streams open as the service allows; `Retry-After` says how long. */
  | { reason: "too-many-streams"; delayMs: number };

/**
 * What to do when the service refuses to open the stream: `retry` at once (after renewing a refused
 * token, say), `from-now` to forget the last event (a 404: it is older than the 30 days events are kept)
 * and start with new ones, `fail` to end the iteration with the error.
 */
export type EventStreamRefusalAction = "retry" | "from-now" | "fail";

export interface EventStreamOptions {
  /** The Admin API as an integration admin: its `basePath` and `accessToken` (called at each connection). */
  configuration: Configuration;
  /** Only events with these names; all when absent or empty. */
  events?: string[];
  /** Only events of this tenant's merchant accounts. */
  integrationTenantId?: string;
  /** Resume after this event (the last one handled by an earlier run); without it, only events from now on. */
  lastEventId?: string;
  /** The wait before reconnecting until the service sends its own (`retry:`, 2 s). */
  reconnectDelayMs?: number;
  /** Ends the iteration, also during a wait. */
  signal?: AbortSignal;
  /** Each connection opened: the first one, then each reconnection. */
  onConnected?: (connection: { reconnected: boolean; lastEventId: string | undefined }) => void;
  /** Before each wait. */
  onWait?: (wait: EventStreamWait) => void;
  /** An answer other than 429 before the stream started (401, 404…); without this hook the iteration fails with it. */
  onRefused?: (refusal: { status: number; error: unknown; lastEventId: string | undefined }) => EventStreamRefusalAction | Promise<EventStreamRefusalAction>;
}

/** Waits `ms`, or less when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** The generated request for the stream (base path, token, errors), answered as the open response: the generated method reads it whole. */
class StreamingEventsApi extends EventsApi {
  async open(options: EventStreamOptions, lastEventId: string | undefined): Promise<Response> {
    const request = await this.streamEventsRequestOpts({
      event: options.events && options.events.length > 0 ? options.events : undefined,
      integrationTenantId: options.integrationTenantId,
      lastEventID: lastEventId,
    });
    return this.request({ ...request, headers: { ...request.headers, Accept: "text/event-stream" } }, { signal: options.signal });
  }
}

/**
 * The integration's events, in the event log's order, for as long as the iteration runs:
 *
 *     for await (const event of new EventStream({ configuration, lastEventId })) { … }
 *
 * `lastEventId` is the last event received: keep it where a later run can read it to resume there.
 */
export class EventStream implements AsyncIterable<StreamedEvent> {
  private position: string | undefined;

  constructor(private readonly options: EventStreamOptions) {
    this.position = options.lastEventId;
  }

  /** The last event received (or the one given to start after); what a reconnection sends as `Last-Event-ID`. */
  get lastEventId(): string | undefined {
    return this.position;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<StreamedEvent> {
    const { signal } = this.options;
    const api = new StreamingEventsApi(this.options.configuration);
    let delayMs = this.options.reconnectDelayMs ?? 2000;
    let connected = false;
    while (!signal?.aborted) {
      let response: Response;
      try {
        response = await api.open(this.options, this.position);
      } catch (error) {
        if (signal?.aborted) return;
        const status = httpStatusOf(error);
        if (status === 429 && isResponseError(error)) {
          const seconds = Number(error.response.headers.get("retry-after")) || 30;
          this.options.onWait?.({ reason: "too-many-streams", delayMs: seconds * 1000 });
          await sleep(seconds * 1000, signal);
          continue;
        }
        if (status !== undefined) {
          const action = (await this.options.onRefused?.({ status, error, lastEventId: this.position })) ?? "fail";
          if (action === "fail") throw error;
          if (action === "from-now") this.position = undefined;
          continue;
        }
        if (!isNoAnswerError(error)) throw error;
        this.options.onWait?.({ reason: "no-answer", delayMs });
        await sleep(delayMs, signal);
        continue;
      }
      this.options.onConnected?.({ reconnected: connected, lastEventId: this.position });
      connected = true;
      // A new parser per connection: what a dropped one left half-read is sent again after the last id.
      const parser = new SseParser();
      try {
        const decoder = new TextDecoder();
        for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
          for (const message of parser.push(decoder.decode(chunk, { stream: true }))) {
            const event = JSON.parse(message.data) as StreamedEvent;
            this.position = message.id ?? event.eventId;
            yield event;
          }
        }
      } catch (error) {
        if (signal?.aborted) return;
        // A dropped connection fails the read with a TypeError (undici's "terminated"); anything else is a fault.
        if (!(error instanceof TypeError) && !isNoAnswerError(error)) throw error;
      }
      delayMs = parser.retryMs ?? delayMs;
      if (signal?.aborted) return;
      this.options.onWait?.({ reason: "ended", delayMs });
      await sleep(delayMs, signal);
    }
  }
}
