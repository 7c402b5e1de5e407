// `cobro listen`: reads the integration's event stream (GET /my-integration/events/stream) and posts each
// event to a local URL as a real delivery would (the same body and headers, signed with the integration's
// signing secret in both schemes), so the integrator's own receiver and verification run unchanged.
import * as admin from "../generated/admin/index.js";
import { httpStatusOf, isNoAnswerError, isResponseError } from "../errors.js";
import type { SigningSecretScheme } from "../standard-webhooks.js";
import { required, type Command } from "./command.js";
import { readCursor, writeCursor } from "./config.js";
import { deliveryHeaders } from "./delivery-headers.js";
import { CliError, type Output } from "./output.js";
import type { Session } from "./session.js";
import { SseParser } from "./sse.js";

/** What the stream's `data` holds for each event. */
interface StreamedEvent {
  eventId: string;
  webhookId: string;
  event: string;
  createdAt: string;
  payload: Record<string, unknown>;
}

/** The generated runtime's request (its base path, token and errors) for the stream, which the generated clients read whole. */
class EventStreamApi extends admin.BaseAPI {
  async open(events: string[], lastEventId: string | undefined, signal: AbortSignal): Promise<Response> {
    const token = await this.configuration.accessToken!("BearerAuth", []);
    return this.request(
      {
        path: "/my-integration/events/stream",
        method: "GET",
        headers: { Accept: "text/event-stream", Authorization: `Bearer ${token}`, ...(lastEventId ? { "Last-Event-ID": lastEventId } : {}) },
        // `event=a&event=b`: the parameter repeats, as the contract declares it.
        query: events.length > 0 ? { event: events } : {},
      },
      { signal },
    );
  }
}

/** The integration's signing secret; one is created when none exists yet (it exists once a webhook URL is registered). */
async function signingSecret(session: Session, out: Output): Promise<{ secret: string; scheme: SigningSecretScheme }> {
  const webhooks = new admin.WebhooksApi(session.adminConfiguration());
  try {
    const found = await webhooks.getWebhookSigningSecret();
    return { secret: found.webhookSigningSecret, scheme: found.scheme };
  } catch (error) {
    if (httpStatusOf(error) !== 404) throw error;
    const created = await webhooks.rotateWebhookSigningSecret();
    out.note("The integration had no signing secret: one was created.");
    return { secret: created.webhookSigningSecret, scheme: created.scheme };
  }
}

/** A delivery answers within 5 seconds, as the service requires of a webhook receiver. */
const FORWARD_TIMEOUT_MS = 5_000;

async function forward(url: string, event: StreamedEvent, signing: { secret: string; scheme: SigningSecretScheme }) {
  const rawBody = JSON.stringify(event.payload);
  const started = performance.now();
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: deliveryHeaders(event.webhookId, rawBody, signing),
      body: rawBody,
      redirect: "manual",
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    });
    await response.arrayBuffer();
    return { status: response.status, latencyMs: Math.round(performance.now() - started) };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause;
    const reason = (error as Error).name === "TimeoutError" ? "timeout" : (cause?.code ?? (error as Error).message);
    return { error: reason, latencyMs: Math.round(performance.now() - started) };
  }
}

/** Waits `ms`, or less when `signal` aborts (Ctrl-C during a wait ends at once). */
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });

export const listenCommands: Command[] = [
  {
    name: ["listen"],
    summary: "Forward the Sandbox's webhooks to a local URL, signed as real deliveries are.",
    details:
      "Reads GET /my-integration/events/stream and POSTs each event's payload to --forward-to with the headers\n" +
      "a delivery sends (X-Service-Signature, X-Service-Webhook-Id, webhook-id, webhook-timestamp,\n" +
      "webhook-signature), signed with the integration's signing secret, so your receiver verifies them with\n" +
      "the secret it already has. One line per event: time, type, referenceId, your receiver's status, latency.\n" +
      "After a dropped stream it reconnects with Last-Event-ID; the last event handled is kept per profile, so\n" +
      "a listener started again resumes where the previous one stopped (--from-now skips what happened since).\n" +
      "Your receiver's answer changes nothing at the service: the real delivery runs as it would anyway.",
    options: { "forward-to": { type: "string" }, events: { type: "string" }, "print-secret": { type: "boolean" }, "from-now": { type: "boolean" } },
    optionHelp: {
      "forward-to": "the local URL to POST each event to (required unless --print-secret)",
      events: "only these events, comma-separated (default: all)",
      "print-secret": "print the signing secret the requests are signed with, and exit",
      "from-now": "forget where the last listener of this profile stopped; only events from now on",
    },
    async run({ values, session, out, profile }) {
      const signing = await signingSecret(session, out);
      if (values["print-secret"]) {
        if (out.json) out.document({ webhookSigningSecret: signing.secret, scheme: signing.scheme });
        else out.line(signing.secret);
        return;
      }
      const target = required(values, "forward-to");
      try {
        new URL(target);
      } catch {
        throw new CliError("usage", `--forward-to is not a URL: ${target}`);
      }
      const events = ((values.events as string | undefined) ?? "")
        .split(",")
        .map((name) => name.trim())
        .filter((name) => name !== "");
      if (values["from-now"]) writeCursor(profile, undefined);
      let cursor = readCursor(profile);
      const stream = new EventStreamApi(session.adminConfiguration());
      let retryMs = 2000;
      let connected = false;
      let refusedToken = false;
      const controller = new AbortController();
      for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => controller.abort());
      while (!controller.signal.aborted) {
        let response: Response;
        try {
          response = await stream.open(events, cursor, controller.signal);
          refusedToken = false;
        } catch (error) {
          if (controller.signal.aborted) break;
          const status = httpStatusOf(error);
          if (status === 404 && cursor !== undefined) {
            out.note(`The last event this profile handled (${cursor}) is no longer in the event log: starting with new events.`);
            cursor = undefined;
            writeCursor(profile, undefined);
            continue;
          }
          // An idToken revoked or expired since it was stored: refresh once.
          if (status === 401 && !refusedToken) {
            refusedToken = true;
            await session.forgetAccessToken(await session.accessToken());
            continue;
          }
          // The integration's streams are at the server's limit (another terminal, another tool): wait as asked.
          if (status === 429 && isResponseError(error)) {
            const seconds = Number(error.response.headers.get("retry-after")) || 30;
            out.note(`The integration has as many event streams open as the server allows; trying again in ${seconds} s.`);
            await sleep(seconds * 1000, controller.signal);
            continue;
          }
          if (isResponseError(error) || !isNoAnswerError(error)) throw error;
          out.note(`No answer from the event stream; trying again in ${retryMs} ms.`);
          await sleep(retryMs, controller.signal);
          continue;
        }
        out.note(
          `${connected ? "Reconnected" : "Ready"}: forwarding ${events.length > 0 ? events.join(", ") : "every event"} to ${target}${cursor ? ` (after ${cursor})` : ""}. Ctrl-C stops.`,
        );
        connected = true;
        // A new parser per connection: what a dropped one left half-read is sent again after the cursor.
        const parser = new SseParser();
        try {
          const decoder = new TextDecoder();
          for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
            for (const message of parser.push(decoder.decode(chunk, { stream: true }))) {
              const event = JSON.parse(message.data) as StreamedEvent;
              if (events.length === 0 || events.includes(event.event)) {
                const result = await forward(target, event, signing);
                const referenceId = typeof event.payload.referenceId === "string" ? event.payload.referenceId : "";
                if (out.json) out.jsonLine({ time: new Date().toISOString(), eventId: event.eventId, event: event.event, referenceId, ...result });
                else {
                  const outcome =
                    result.status === undefined
                      ? out.paint(`error ${result.error}`, "red")
                      : out.paint(String(result.status), result.status >= 200 && result.status < 300 ? "green" : "red");
                  out.line(
                    `${new Date().toISOString().slice(0, 19).replace("T", " ")}  ${event.event.padEnd(34)}  ${referenceId.padEnd(20)}  ${outcome}  ${result.latencyMs} ms`,
                  );
                }
              }
              cursor = message.id ?? event.eventId;
              writeCursor(profile, cursor);
            }
          }
        } catch (error) {
          if (controller.signal.aborted) break;
          if (!(error instanceof TypeError) && !isNoAnswerError(error)) throw error;
        }
        retryMs = parser.retryMs ?? retryMs;
        if (controller.signal.aborted) break;
        out.note(`The event stream ended; reconnecting in ${retryMs} ms.`);
        await sleep(retryMs, controller.signal);
      }
    },
  },
];
