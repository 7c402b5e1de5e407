// The integration's recent events (30 days) with their delivery state and attempts: what the Admin API's
// `GET /my-integration/events` and the answer of a resend show. The events of an unlinked merchant account
// are not listed (domain/merchants/unlinked-merchants.ts).
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { eventWithheldFromIntegration } from "../merchants/unlinked-merchants.ts";
import type { DeliveryAttemptRow, DeliveryStatus, NotSentReason } from "../../db/tables/webhooks.table.ts";

/** Events are kept, and listed, for 30 days (the contract's choice). */
export const EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

export interface EventAttemptView {
  attempt: number;
  attemptedAt: string;
  targetUrl: string;
  responseStatus?: number;
  durationMs: number;
  error?: "non_2xx" | "timeout" | "connection_error" | "redirect" | "blocked_address";
}

export interface EventView {
  eventId: string;
  event: string;
  webhookId: string;
  livemode: boolean;
  createdAt: string;
  deliveryStatus: DeliveryStatus;
  notSentReason?: NotSentReason;
  targetUrl?: string;
  nextAttemptAt?: string;
  attempts: EventAttemptView[];
  payload: Record<string, unknown>;
}

export interface EventQuery {
  /** true: delivered only; false: everything else (pending, failed, not sent). */
  delivered?: boolean;
  event?: string;
  limit: number;
  offset: number;
  /** Events created before this are past retention. */
  retentionStart: Date;
}

function baseQuery(db: Kysely<Database>, integrationClientId: string, query: EventQuery) {
  return db
    .selectFrom("events as e")
    .leftJoin("event_deliveries as d", "d.event_id", "e.id")
    .where("e.integration_client_id", "=", integrationClientId)
    .where("e.created_at", ">=", query.retentionStart)
    .where(sql<boolean>`not ${eventWithheldFromIntegration("e")}`)
    .$if(query.event !== undefined, (q) => q.where("e.type", "=", query.event as never))
    .$if(query.delivered === true, (q) => q.where("d.status", "=", "delivered"))
    .$if(query.delivered === false, (q) => q.where((eb) => eb.or([eb("d.status", "is", null), eb("d.status", "!=", "delivered")])));
}

export async function listEvents(db: Kysely<Database>, integrationClientId: string, query: EventQuery): Promise<{ items: EventView[]; total: number }> {
  const [count, rows] = await Promise.all([
    baseQuery(db, integrationClientId, query)
      .select((eb) => eb.fn.countAll<string>().as("total"))
      .executeTakeFirstOrThrow(),
    baseQuery(db, integrationClientId, query)
      .select(["e.id", "e.type", "e.payload", "e.created_at", "d.status", "d.not_sent_reason", "d.target_url", "d.next_attempt_at"])
      .orderBy("e.created_at", "desc")
      .orderBy("e.id", "desc")
      .limit(query.limit)
      .offset(query.offset)
      .execute(),
  ]);
  const attempts = await attemptsOf(
    db,
    rows.map((row) => row.id),
  );
  return { total: Number(count.total), items: rows.map((row) => viewOf(row, attempts.get(row.id) ?? [])) };
}

export async function getEventView(db: Kysely<Database>, integrationClientId: string, eventId: string): Promise<EventView | undefined> {
  const row = await db
    .selectFrom("events as e")
    .leftJoin("event_deliveries as d", "d.event_id", "e.id")
    .select(["e.id", "e.type", "e.payload", "e.created_at", "d.status", "d.not_sent_reason", "d.target_url", "d.next_attempt_at"])
    .where("e.id", "=", eventId)
    .where("e.integration_client_id", "=", integrationClientId)
    .executeTakeFirst();
  if (!row) return undefined;
  const attempts = await attemptsOf(db, [row.id]);
  return viewOf(row, attempts.get(row.id) ?? []);
}

async function attemptsOf(db: Kysely<Database>, eventIds: string[]): Promise<Map<string, DeliveryAttemptRow[]>> {
  const byEvent = new Map<string, DeliveryAttemptRow[]>();
  if (eventIds.length === 0) return byEvent;
  const rows = await db.selectFrom("delivery_attempts").selectAll().where("event_id", "in", eventIds).orderBy("event_id").orderBy("attempt").execute();
  for (const row of rows) {
    const list = byEvent.get(row.event_id) ?? [];
    list.push(row);
    byEvent.set(row.event_id, list);
  }
  return byEvent;
}

interface EventRow {
  id: string;
  type: string;
  payload: Record<string, unknown>;
  created_at: Date;
  status: DeliveryStatus | null;
  not_sent_reason: NotSentReason | null;
  target_url: string | null;
  next_attempt_at: Date | null;
}

function viewOf(row: EventRow, attempts: DeliveryAttemptRow[]): EventView {
  const status = row.status ?? "pending";
  return {
    eventId: row.id,
    event: row.type,
    webhookId: row.id,
    livemode: row.payload.livemode === true,
    createdAt: row.created_at.toISOString(),
    deliveryStatus: status,
    ...(status === "not_sent" && row.not_sent_reason ? { notSentReason: row.not_sent_reason } : {}),
    ...(row.target_url && status !== "not_sent" ? { targetUrl: row.target_url } : {}),
    ...(status === "pending" && row.next_attempt_at ? { nextAttemptAt: row.next_attempt_at.toISOString() } : {}),
    // An attempt still in flight has no outcome yet: it is listed once it has one.
    attempts: attempts.filter((attempt) => attempt.finished_at !== null).map(attemptView),
    payload: row.payload,
  };
}

function attemptView(row: DeliveryAttemptRow): EventAttemptView {
  return {
    attempt: row.attempt,
    attemptedAt: row.attempted_at.toISOString(),
    targetUrl: row.target_url,
    ...(row.response_status !== null ? { responseStatus: row.response_status } : {}),
    durationMs: row.duration_ms ?? 0,
    // The contract's kinds: an attempt cut short by a worker that stopped lost its connection.
    ...(row.error !== null ? { error: row.error === "interrupted" ? "connection_error" : row.error } : {}),
  };
}
