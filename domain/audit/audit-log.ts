// The audit log: one entry per state-changing admin action (Admin API operations, and the admins' sign-in,
// sign-out, refresh and password operations of the Auth API), success or refusal. Entries are only ever
// inserted: no code here updates or deletes one, and the database refuses both (migration
// 2026_11_27_0033_audit_log). What an entry holds is decided in recorded-fields.ts: field names, and
// values only for fields that can never carry a secret.
import { sql, type Expression, type ExpressionBuilder, type Kysely, type RawBuilder, type SqlBool } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Executor } from "../../db/transactions.ts";
import type { AuditActorKind } from "../../db/tables/audit-log.table.ts";

/** Who acted: an admin (by id and role), a platform API key (by id, never its secret), or nobody known. */
export type AuditActor =
  | { kind: "platform_admin"; adminUserId: string }
  | { kind: "integration_admin"; adminUserId: string; integrationClientId: string }
  | { kind: "platform_api_key"; platformApiKeyId: string }
  | { kind: "anonymous" };

export interface AuditEntryInput {
  occurredAt: Date;
  api: "admin" | "auth";
  operation: string;
  method: string;
  route: string;
  actor: AuditActor;
  targets: Record<string, string>;
  fields: string[];
  changes: Record<string, unknown>;
  clientAddress: string;
  outcome: "succeeded" | "refused";
  status: number;
  errorCode?: string;
  requestId: string;
}

/** Appends one entry (in the caller's transaction when given one). */
export async function appendAuditEntry(db: Executor, entry: AuditEntryInput): Promise<void> {
  await appendAuditEntries(db, [entry]);
}

/**
 * Appends entries in one statement, in their order (a batch of simulated transfers writes its requests'
 * entries in its transaction at once).
 */
export async function appendAuditEntries(db: Executor, entries: readonly AuditEntryInput[]): Promise<void> {
  if (entries.length === 0) return;
  await auditEntriesInsert(entries).execute(db);
}

/** The insert of entries, in their order, as a statement or a part of one: one text whatever their number (each column is an array). */
export function auditEntriesInsert(entries: readonly AuditEntryInput[]): RawBuilder<unknown> {
  const column = <T>(pick: (entry: AuditEntryInput) => T) => entries.map(pick);
  const adminOf = (actor: AuditActor) => (actor.kind === "platform_admin" || actor.kind === "integration_admin" ? actor.adminUserId : null);
  return sql`
    insert into audit_log (occurred_at, api, operation, method, route, actor_kind, actor_admin_user_id, actor_platform_api_key_id, integration_client_id,
                           targets, fields, changes, client_address, outcome, status, error_code, request_id)
    select occurred_at, api, operation, method, route, actor_kind, actor_admin_user_id, actor_platform_api_key_id, integration_client_id,
           targets, fields, changes, client_address, outcome, status, error_code, request_id
      from unnest(${column((e) => e.occurredAt)}::timestamptz[], ${column((e) => e.api)}::text[], ${column((e) => e.operation)}::text[],
                  ${column((e) => e.method)}::text[], ${column((e) => e.route)}::text[], ${column((e) => e.actor.kind)}::text[],
                  ${column((e) => adminOf(e.actor))}::uuid[], ${column((e) => (e.actor.kind === "platform_api_key" ? e.actor.platformApiKeyId : null))}::uuid[],
                  ${column((e) => (e.actor.kind === "integration_admin" ? e.actor.integrationClientId : null))}::uuid[],
                  ${column((e) => JSON.stringify(e.targets))}::jsonb[], ${column((e) => JSON.stringify(e.fields))}::jsonb[],
                  ${column((e) => JSON.stringify(e.changes))}::jsonb[], ${column((e) => e.clientAddress)}::text[], ${column((e) => e.outcome)}::text[],
                  ${column((e) => e.status)}::int[], ${column((e) => e.errorCode ?? null)}::text[], ${column((e) => e.requestId)}::text[])
           with ordinality as e(occurred_at, api, operation, method, route, actor_kind, actor_admin_user_id, actor_platform_api_key_id, integration_client_id,
                                targets, fields, changes, client_address, outcome, status, error_code, request_id, position)
     order by position`;
}

/** An entry as read back: its actor with what its ids name now, and the integration it belongs to. */
export type AuditEntryView = Omit<AuditEntryInput, "actor"> & {
  id: string;
  actor: { kind: AuditActorKind; adminUserId?: string; adminEmail?: string; platformApiKeyId?: string; platformApiKeyName?: string };
  integrationClientId?: string;
};

export interface AuditLogFilter {
  /** Entries at or after this instant. */
  from?: Date;
  /** Entries before this instant. */
  to?: Date;
  /** An admin's id or a platform API key's id. */
  actorId?: string;
  operation?: string;
  /** An id among the entry's targets. */
  targetId?: string;
  outcome?: "succeeded" | "refused";
  /** Only this integration's entries. */
  integrationClientId?: string;
}

/** Entries matching the filter, newest first. */
export async function listAuditEntries(
  db: Kysely<Database>,
  filter: AuditLogFilter,
  page: { limit: number; offset: number },
): Promise<{ items: AuditEntryView[]; total: number }> {
  const matching = (eb: ExpressionBuilder<Database, "audit_log">) => {
    const conditions: Expression<SqlBool>[] = [];
    if (filter.from) conditions.push(eb("occurred_at", ">=", filter.from));
    if (filter.to) conditions.push(eb("occurred_at", "<", filter.to));
    if (filter.actorId) conditions.push(eb.or([eb("actor_admin_user_id", "=", filter.actorId), eb("actor_platform_api_key_id", "=", filter.actorId)]));
    if (filter.operation) conditions.push(eb("operation", "=", filter.operation));
    if (filter.targetId) conditions.push(sql<SqlBool>`exists (select 1 from jsonb_each_text(audit_log.targets) t where t.value = ${filter.targetId})`);
    if (filter.outcome) conditions.push(eb("outcome", "=", filter.outcome));
    if (filter.integrationClientId) conditions.push(eb("integration_client_id", "=", filter.integrationClientId));
    return eb.and(conditions);
  };
  const [found, total] = await Promise.all([
    db
      .selectFrom("audit_log")
      .selectAll()
      .where(matching)
      .orderBy("occurred_at", "desc")
      .orderBy("seq", "desc")
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom("audit_log")
      .select((eb) => eb.fn.countAll<string>().as("total"))
      .where(matching)
      .executeTakeFirstOrThrow(),
  ]);
  // Who the ids are now, for people reading the log (the entry keeps the id only).
  const adminIds = [...new Set(found.flatMap((row) => (row.actor_admin_user_id === null ? [] : [row.actor_admin_user_id])))];
  const keyIds = [...new Set(found.flatMap((row) => (row.actor_platform_api_key_id === null ? [] : [row.actor_platform_api_key_id])))];
  const [admins, keys] = await Promise.all([
    adminIds.length === 0 ? [] : db.selectFrom("admin_users").select(["id", "email"]).where("id", "in", adminIds).execute(),
    keyIds.length === 0 ? [] : db.selectFrom("platform_api_keys").select(["id", "name"]).where("id", "in", keyIds).execute(),
  ]);
  const emailOf = new Map(admins.map((admin) => [admin.id, admin.email]));
  const keyNameOf = new Map(keys.map((key) => [key.id, key.name]));
  return {
    items: found.map((row) => ({
      id: row.id,
      occurredAt: row.occurred_at,
      api: row.api,
      operation: row.operation,
      method: row.method,
      route: row.route,
      actor: {
        kind: row.actor_kind,
        ...(row.actor_admin_user_id !== null ? { adminUserId: row.actor_admin_user_id } : {}),
        ...(row.actor_admin_user_id !== null && emailOf.has(row.actor_admin_user_id) ? { adminEmail: emailOf.get(row.actor_admin_user_id) } : {}),
        ...(row.actor_platform_api_key_id !== null ? { platformApiKeyId: row.actor_platform_api_key_id } : {}),
        ...(row.actor_platform_api_key_id !== null && keyNameOf.has(row.actor_platform_api_key_id)
          ? { platformApiKeyName: keyNameOf.get(row.actor_platform_api_key_id) }
          : {}),
      },
      ...(row.integration_client_id !== null ? { integrationClientId: row.integration_client_id } : {}),
      targets: row.targets,
      fields: row.fields,
      changes: row.changes,
      clientAddress: row.client_address,
      outcome: row.outcome,
      status: row.status,
      ...(row.error_code !== null ? { errorCode: row.error_code } : {}),
      requestId: row.request_id,
    })),
    total: Number(total.total),
  };
}
