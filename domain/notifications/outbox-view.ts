// The integration's payer notifications as the Admin API's outbox lists them (`GET
// /my-integration/notifications`): newest first by the time each is due, with the charge's referenceId.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Notification, NotificationChannel, NotificationStatus } from "../../db/tables/notifications.table.ts";

/** The statuses integrators see: `queued` and `sending` (its time came; it is on its way) are shown as `scheduled`. */
export type OutboxStatus = Exclude<NotificationStatus, "queued" | "sending">;

export interface OutboxQuery {
  referenceId?: string;
  channel?: NotificationChannel;
  status?: OutboxStatus;
  limit: number;
  offset: number;
}

export type OutboxRow = Pick<Notification, "id" | "charge_id" | "channel" | "kind" | "recipient" | "scheduled_for" | "sent_at" | "failure_reason"> & {
  reference_id: string;
  status: OutboxStatus;
};

function filtered(db: Kysely<Database>, integrationClientId: string, query: OutboxQuery) {
  return db
    .selectFrom("notifications as n")
    .innerJoin("charges as c", "c.id", "n.charge_id")
    .where("n.integration_client_id", "=", integrationClientId)
    .$if(query.referenceId !== undefined, (q) => q.where("c.reference_id", "=", query.referenceId!))
    .$if(query.channel !== undefined, (q) => q.where("n.channel", "=", query.channel!))
    .$if(query.status === "scheduled", (q) => q.where("n.status", "in", ["scheduled", "queued", "sending"]))
    .$if(query.status !== undefined && query.status !== "scheduled", (q) => q.where("n.status", "=", query.status!));
}

export async function listOutbox(db: Kysely<Database>, integrationClientId: string, query: OutboxQuery): Promise<{ items: OutboxRow[]; total: number }> {
  const [count, rows] = await Promise.all([
    filtered(db, integrationClientId, query)
      .select((eb) => eb.fn.countAll<string>().as("total"))
      .executeTakeFirstOrThrow(),
    filtered(db, integrationClientId, query)
      .select(["n.id", "n.charge_id", "c.reference_id", "n.channel", "n.kind", "n.recipient", "n.status", "n.scheduled_for", "n.sent_at", "n.failure_reason"])
      .orderBy("n.scheduled_for", "desc")
      .orderBy("n.id", "desc")
      .limit(query.limit)
      .offset(query.offset)
      .execute(),
  ]);
  return {
    total: Number(count.total),
    items: rows.map((row) => ({ ...row, status: row.status === "queued" || row.status === "sending" ? "scheduled" : row.status })),
  };
}
