// Raising an integration's daily chat-message cap: an integration admin asks (one pending request per
// integration, guarded by a partial unique index), a platform admin approves or rejects. An approval sets
// the cap in the decision's own transaction, so the next creates count against it. The admin who asked is
// mailed the outcome (in Spanish) after the decision commits; the mail never undoes it.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Executor } from "../../db/transactions.ts";
import type { MessageCapRequestRow, MessageCapRequestStatus } from "../../db/tables/limits.table.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import { DomainError, ValidationError } from "../errors.ts";
import { isUuid } from "../ids.ts";
import type { EmailMessage } from "../outbound/sender.ts";
import { dailyMessageCapOf, setDailyMessageCap } from "./message-caps.ts";
import { accountEmail } from "../outbound/account-email.ts";

type ServiceEnv = "sandbox" | "production";

/** A request with the names the platform's queue shows and the outcome mail needs. */
export interface QueuedMessageCapRequest extends MessageCapRequestRow {
  integrationClientName: string;
  requestedByEmail: string | null;
  requestedByName: string | null;
  decidedByEmail: string | null;
}

const requestNotFound = () => new DomainError("MessageCapRequestNotFoundError", "No message cap request with that id");

function requireReason(field: string, reason: string): string {
  if (reason.trim() === "") throw ValidationError.of(field, "blank", `${field} must not be only spaces`);
  return reason;
}

function requireAboveCap(field: string, perDay: number, currentPerDay: number): void {
  if (perDay <= currentPerDay)
    throw ValidationError.of(field, "exclusiveMinimum", `${field} must be above the integration's current daily cap of ${currentPerDay} chat messages`, {
      limit: currentPerDay,
    });
}

/** An integration admin's request; 409 `MessageCapRequestAlreadyPendingError` while another one is pending. */
export async function requestMessageCapRaise(
  db: Kysely<Database>,
  requester: { integrationClientId: string; adminUserId: string; serviceEnv: ServiceEnv },
  input: { requestedPerDay: number; reason: string },
  now: Date,
): Promise<MessageCapRequestRow> {
  const reason = requireReason("reason", input.reason);
  try {
    return await db.transaction().execute(async (trx) => {
      const currentPerDay = await dailyMessageCapOf(trx, requester.integrationClientId, requester.serviceEnv);
      requireAboveCap("requestedPerDay", input.requestedPerDay, currentPerDay);
      return trx
        .insertInto("message_cap_requests")
        .values({
          integration_client_id: requester.integrationClientId,
          requested_by_admin_id: requester.adminUserId,
          requested_per_day: input.requestedPerDay,
          current_per_day: currentPerDay,
          reason,
          created_at: now,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    });
  } catch (error) {
    if (isUniqueViolation(error, "message_cap_requests_one_pending")) {
      throw new DomainError("MessageCapRequestAlreadyPendingError", "The integration already has a pending message cap request; wait for its outcome");
    }
    throw error;
  }
}

/** The integration's own requests, newest first. */
export async function listIntegrationMessageCapRequests(
  db: Kysely<Database>,
  integrationClientId: string,
  page: { limit: number; offset: number },
): Promise<{ items: MessageCapRequestRow[]; total: number }> {
  const [items, count] = await Promise.all([
    db
      .selectFrom("message_cap_requests")
      .selectAll()
      .where("integration_client_id", "=", integrationClientId)
      .orderBy("created_at", "desc")
      .orderBy("id")
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom("message_cap_requests")
      .select((eb) => eb.fn.countAll<string>().as("total"))
      .where("integration_client_id", "=", integrationClientId)
      .executeTakeFirstOrThrow(),
  ]);
  return { items, total: Number(count.total) };
}

function queue(db: Executor) {
  return db
    .selectFrom("message_cap_requests as r")
    .innerJoin("integration_clients as c", "c.id", "r.integration_client_id")
    .leftJoin("admin_users as asker", "asker.id", "r.requested_by_admin_id")
    .leftJoin("admin_users as decider", "decider.id", "r.decided_by_admin_id")
    .selectAll("r")
    .select(["c.name as integrationClientName", "asker.email as requestedByEmail", "asker.name as requestedByName", "decider.email as decidedByEmail"]);
}

/** Every integration's requests, newest first; `status` keeps one status. */
export async function listMessageCapRequestQueue(
  db: Kysely<Database>,
  filter: { status?: MessageCapRequestStatus },
  page: { limit: number; offset: number },
): Promise<{ items: QueuedMessageCapRequest[]; total: number }> {
  let rows = queue(db);
  let count = db.selectFrom("message_cap_requests").select((eb) => eb.fn.countAll<string>().as("total"));
  if (filter.status !== undefined) {
    rows = rows.where("r.status", "=", filter.status);
    count = count.where("status", "=", filter.status);
  }
  const [items, total] = await Promise.all([
    rows.orderBy("r.created_at", "desc").orderBy("r.id").limit(page.limit).offset(page.offset).execute(),
    count.executeTakeFirstOrThrow(),
  ]);
  return { items, total: Number(total.total) };
}

/** Locks a pending request for its decision: 404 when unknown, 409 when already decided. */
async function lockPendingRequest(trx: Transaction<Database>, id: string): Promise<MessageCapRequestRow> {
  if (!isUuid(id)) throw requestNotFound();
  const request = await trx.selectFrom("message_cap_requests").selectAll().where("id", "=", id).forUpdate().executeTakeFirst();
  if (!request) throw requestNotFound();
  if (request.status !== "pending") throw new DomainError("MessageCapRequestNotPendingError", `The message cap request was already ${request.status}`);
  return request;
}

/** Approves a pending request and sets the integration's cap in the same transaction. */
export async function approveMessageCapRequest(
  db: Kysely<Database>,
  id: string,
  decision: { adminUserId: string; serviceEnv: ServiceEnv; approvedPerDay?: number },
  now: Date,
): Promise<QueuedMessageCapRequest> {
  return db.transaction().execute(async (trx) => {
    const request = await lockPendingRequest(trx, id);
    const approvedPerDay = decision.approvedPerDay ?? request.requested_per_day;
    requireAboveCap("approvedPerDay", approvedPerDay, await dailyMessageCapOf(trx, request.integration_client_id, decision.serviceEnv));
    await trx
      .updateTable("message_cap_requests")
      .set({ status: "approved", approved_per_day: approvedPerDay, decided_by_admin_id: decision.adminUserId, decided_at: now })
      .where("id", "=", request.id)
      .execute();
    await setDailyMessageCap(trx, request.integration_client_id, approvedPerDay);
    return queue(trx).where("r.id", "=", request.id).executeTakeFirstOrThrow();
  });
}

/** Rejects a pending request; the cap does not change. */
export async function rejectMessageCapRequest(
  db: Kysely<Database>,
  id: string,
  decision: { adminUserId: string; reason: string },
  now: Date,
): Promise<QueuedMessageCapRequest> {
  const reason = requireReason("reason", decision.reason);
  return db.transaction().execute(async (trx) => {
    const request = await lockPendingRequest(trx, id);
    await trx
      .updateTable("message_cap_requests")
      .set({ status: "rejected", rejection_reason: reason, decided_by_admin_id: decision.adminUserId, decided_at: now })
      .where("id", "=", request.id)
      .execute();
    return queue(trx).where("r.id", "=", request.id).executeTakeFirstOrThrow();
  });
}

const perDay = (messages: number) => `${messages.toLocaleString("es-AR")} mensajes por día`;

/** The outcome mail to the admin who asked, or `null` when that admin no longer exists. */
export function messageCapDecisionEmail(request: QueuedMessageCapRequest): EmailMessage | null {
  if (request.requestedByEmail === null || request.status === "pending") return null;
  const greeting = request.requestedByName ? `Hola ${request.requestedByName}:` : "Hola:";
  const outcome =
    request.status === "approved"
      ? [
          `Aprobamos el pedido de ${request.integrationClientName} para aumentar el límite diario de mensajes de chat.`,
          "",
          `Límite pedido: ${perDay(request.requested_per_day)}`,
          `Límite aprobado: ${perDay(request.approved_per_day!)}`,
          "",
          "El nuevo límite ya está vigente. El día se cuenta desde las 00:00, hora de Argentina.",
        ]
      : [
          `No aprobamos el pedido de ${request.integrationClientName} para aumentar el límite diario de mensajes de chat a ${perDay(request.requested_per_day)}.`,
          "",
          `Motivo: ${request.rejection_reason}`,
          "",
          `El límite sigue en ${perDay(request.current_per_day)}. Podés hacer un pedido nuevo cuando quieras.`,
        ];
  const lines = [greeting, "", ...outcome];
  const subject =
    request.status === "approved" ? "Cobro: aprobamos tu pedido de más mensajes de chat" : "Cobro: tu pedido de más mensajes de chat no fue aprobado";
  return accountEmail(request.requestedByEmail, subject, lines);
}
