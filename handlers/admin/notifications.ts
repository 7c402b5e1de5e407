// The integration's payer notifications (/my-integration/notifications): the outbox integrators read to
// answer "did my payer get the reminder?".
import type { components } from "../../generated/types/admin.ts";
import { listOutbox, type OutboxRow } from "../../domain/notifications/outbox-view.ts";
import { requireIntegrationAdmin } from "./caller.ts";
import { pageOf } from "./page-query.ts";
import type { Handler } from "./handler.ts";

function notificationView(row: OutboxRow): components["schemas"]["Notification"] {
  return {
    notificationId: row.id,
    paymentRequestId: row.charge_id,
    referenceId: row.reference_id,
    channel: row.channel,
    kind: row.kind,
    // A chat number is stored as digits; integrators read it in international form.
    to: row.channel === "whatsapp" ? `+${row.recipient}` : row.recipient,
    status: row.status,
    scheduledFor: row.scheduled_for.toISOString(),
    ...(row.sent_at ? { sentAt: row.sent_at.toISOString() } : {}),
    ...(row.failure_reason !== null ? { failureReason: row.failure_reason } : {}),
  };
}

export const listNotifications: Handler<"listNotifications"> = async ({ caller, query, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const page = pageOf(query);
  const { items, total } = await listOutbox(services.db, admin.integrationClientId, {
    referenceId: query.referenceId,
    channel: query.channel,
    status: query.status,
    ...page,
  });
  return { status: 200, body: { items: items.map(notificationView), total, ...page } };
};
