// The integration's recent events with their delivery, and manual resends.
import { resendEvent as resend } from "../../domain/webhooks/delivery.ts";
import { EVENT_RETENTION_MS, listEvents as list } from "../../domain/events/event-log.ts";
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
