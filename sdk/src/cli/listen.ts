// `cobro listen`: reads the integration's event stream (GET /my-integration/events/stream) and posts each
// event to a local URL as a real delivery would (the same body and headers, signed with the integration's
// signing secret in both schemes), so the integrator's own receiver and verification run unchanged.
import * as admin from "../generated/admin/index.js";
import { httpStatusOf } from "../errors.js";
import { EventStream, type StreamedEvent } from "../event-stream.js";
import type { SigningSecretScheme } from "../standard-webhooks.js";
import { required, type Command } from "./command.js";
import { readCursor, writeCursor } from "./config.js";
import { deliveryHeaders } from "./delivery-headers.js";
import { CliError, type Output } from "./output.js";
import type { Session } from "./session.js";

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
    // fetch fails with "fetch failed"; why (ECONNREFUSED, a port fetch refuses to call) is its cause.
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason = (error as Error).name === "TimeoutError" ? "timeout" : (cause?.code ?? cause?.message ?? (error as Error).message);
    return { error: reason, latencyMs: Math.round(performance.now() - started) };
  }
}

/** Why a forward failed, in a word: the receiver's status, or what stopped the request (ECONNREFUSED, timeout). */
const refusalOf = (result: { status?: number; error?: string }): string | undefined =>
  result.status === undefined ? result.error : result.status >= 200 && result.status < 300 ? undefined : `HTTP ${result.status}`;

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
      "An event your receiver refuses (an answer other than 2xx, or no answer) is not forwarded again: a line\n" +
      "on stderr names it, with why, and the command that replays it (--after the event before it).\n" +
      "Your receiver's answer changes nothing at the service: the real delivery runs as it would anyway.",
    options: {
      "forward-to": { type: "string" },
      events: { type: "string" },
      "print-secret": { type: "boolean" },
      "from-now": { type: "boolean" },
      after: { type: "string" },
    },
    optionHelp: {
      "forward-to": "the local URL to POST each event to (required unless --print-secret)",
      events: "only these events, comma-separated (default: all)",
      "print-secret": "print the signing secret the requests are signed with, and exit",
      "from-now": "forget where the last listener of this profile stopped; only events from now on",
      after: "replay every event after this event id (kept 30 days), then go on with new ones",
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
      const after = values.after as string | undefined;
      if (after !== undefined && values["from-now"]) throw new CliError("usage", "--after and --from-now contradict each other: give one");
      if (values["from-now"]) writeCursor(profile, undefined);
      let refusedToken = false;
      const controller = new AbortController();
      for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => controller.abort());
      const stream = new EventStream({
        configuration: session.adminConfiguration(),
        events,
        lastEventId: after ?? readCursor(profile),
        signal: controller.signal,
        onConnected: ({ reconnected, lastEventId }) => {
          refusedToken = false;
          out.note(
            `${reconnected ? "Reconnected" : "Ready"}: forwarding ${events.length > 0 ? events.join(", ") : "every event"} to ${target}${lastEventId ? ` (after ${lastEventId})` : ""}. Ctrl-C stops.`,
          );
        },
        onWait: ({ reason, delayMs }) => {
          if (reason === "too-many-streams")
            out.note(`The integration has as many event streams open as the server allows; trying again in ${delayMs / 1000} s.`);
          else if (reason === "no-answer") out.note(`No answer from the event stream; trying again in ${delayMs} ms.`);
          else out.note(`The event stream ended; reconnecting in ${delayMs} ms.`);
        },
        onRefused: async ({ status, lastEventId }) => {
          // An --after the log does not hold is a mistake to say, not a reason to skip to new events.
          if (status === 404 && after !== undefined && lastEventId === after) return "fail";
          if (status === 404 && lastEventId !== undefined) {
            out.note(`The last event this profile handled (${lastEventId}) is no longer in the event log: starting with new events.`);
            writeCursor(profile, undefined);
            return "from-now";
          }
          // An idToken revoked or expired since it was stored: refresh once.
          if (status === 401 && !refusedToken) {
            refusedToken = true;
            await session.forgetAccessToken(await session.accessToken());
            return "retry";
          }
          return "fail";
        },
      });
      let previous = stream.lastEventId;
      for await (const event of stream) {
        // The stream's filter already holds only these; the check guards a server that sends more.
        if (events.length === 0 || events.includes(event.event)) {
          const result = await forward(target, event, signing);
          const referenceId = typeof event.payload.referenceId === "string" ? event.payload.referenceId : "";
          const refusal = refusalOf(result);
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
          // The cursor moves past it all the same (the stream goes on): say so, and how to have it again.
          if (refusal !== undefined) {
            // The stream resumes after an event: the one before this, when this listener saw one.
            const replay = previous
              ? `replay it with: cobro listen --forward-to ${target} --after ${previous}${profile === "default" ? "" : ` --profile ${profile}`}`
              : "it was this listener's first event, so there is no earlier one to replay it --after";
            out.note(
              `Your receiver refused event ${event.eventId} (${event.event}${referenceId ? ` ${referenceId}` : ""}): ${refusal}. It is not forwarded again; ${replay}`,
            );
          }
        }
        previous = event.eventId;
        writeCursor(profile, stream.lastEventId);
      }
    },
  },
];
