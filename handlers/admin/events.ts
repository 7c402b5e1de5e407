// The integration's recent events with their delivery, manual resends, and the live stream of them.
import { resendEvent as resend } from "../../domain/webhooks/delivery.ts";
import { EVENT_RETENTION_MS, listEvents as list } from "../../domain/events/event-log.ts";
import { HEARTBEAT } from "../../domain/events/event-log-watcher.ts";
import { startEventStream } from "../../domain/events/event-stream.ts";
import { requireIntegrationAdmin } from "./caller.ts";
import { pageOf } from "./page-query.ts";
import type { Handler } from "./handler.ts";

/** A query flag, whether or not the validator already coerced it. */
function flag(value: unknown): boolean | undefined {
  if (value === undefined) return undefined;
  return value === true || value === "true";
}

export const listEvents: Handler<"listEvents"> = async ({ caller, query, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const { limit, offset } = pageOf(query);
  const retentionStart = new Date(services.clock.now().getTime() - EVENT_RETENTION_MS);
  const page = await list(services.db, admin.integrationClientId, { delivered: flag(query.delivered), event: query.event, limit, offset, retentionStart });
  return { status: 200, body: { items: page.items, total: page.total, limit, offset } };
};

export const resendEvent: Handler<"resendEvent"> = async ({ caller, params, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const now = services.clock.now();
  const view = await resend(services.db, admin.integrationClientId, params.eventId, now, new Date(now.getTime() - EVENT_RETENTION_MS));
  return { status: 202, body: view };
};

/** The first line of every stream: how long an EventSource waits before it reconnects. */
const RETRY_LINE = "retry: 2000\n\n";
const HEARTBEAT_LINE = ": heartbeat\n\n";
/**
 * The last lines of a stream the server ends because it is stopping (a release, a restart): reconnect soon,
 * resuming after the last id received; the load balancer sends the new connection to a process that serves.
 */
const STOPPING_LINES = ": this server is stopping: reconnect, with Last-Event-ID\nretry: 500\n\n";

/** Names given repeated, comma-separated, or both. */
function eventNames(value: string[] | string | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value])
    .flatMap((item) => item.split(","))
    .map((name) => name.trim())
    .filter((name) => name !== "");
}

export const streamEvents: Handler<"streamEvents"> = async ({ caller, query, headers, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const eventLog = services.eventLog;
  if (!eventLog) throw new Error("the event stream needs the process's event log watcher");
  const integrationClientId = admin.integrationClientId;
  const filter = { events: eventNames(query.event), tenantId: query.integrationTenantId };
  const lastEventId = headers["last-event-id"];
  const afterEventId = (Array.isArray(lastEventId) ? lastEventId[0] : lastEventId) || query.since;
  const retentionStart = new Date(services.clock.now().getTime() - EVENT_RETENTION_MS);
  // Refusals (404, 422, 429) are answered here, before the stream's first byte.
  const start = await startEventStream(services.db, integrationClientId, { afterEventId, filter, retentionStart });
  const { heartbeatMs, maxPerIntegration } = services.config.eventStream;
  // Counted from here (429 when the integration's streams are at the limit) until the client leaves.
  const subscription = eventLog.subscribe(integrationClientId, maxPerIntegration);

  const stream = async function* (signal: AbortSignal): AsyncGenerator<string> {
    try {
      yield RETRY_LINE;
      for await (const item of eventLog.follow(subscription, start, filter, { heartbeatMs, signal }))
        yield item === HEARTBEAT ? HEARTBEAT_LINE : `id: ${item.eventId}\nevent: ${item.event}\ndata: ${JSON.stringify(item)}\n\n`;
      // Following ends when the client leaves (the signal) or when the process stops serving.
      if (!signal.aborted) yield STOPPING_LINES;
    } finally {
      subscription.close();
    }
  };
  return { status: 200, body: stream, headers: { "Cache-Control": "no-cache", "X-Accel-Buffering": "no" } };
};
