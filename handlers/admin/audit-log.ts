// The audit logs: the platform's (every entry) and an integration's (its admins' actions).
import type { components } from "../../generated/types/admin.ts";
import { listAuditEntries, type AuditEntryView, type AuditLogFilter } from "../../domain/audit/audit-log.ts";
import { ValidationError } from "../../domain/errors.ts";
import { requireIntegrationAdmin, requirePlatformAdmin } from "./caller.ts";
import { pageOf } from "./page-query.ts";
import type { Handler } from "./handler.ts";

type Query = { from?: string; to?: string; actorId?: string; operation?: string; targetId?: string; outcome?: "succeeded" | "refused" };

function filterOf(query: Query): AuditLogFilter {
  const from = query.from === undefined ? undefined : new Date(query.from);
  const to = query.to === undefined ? undefined : new Date(query.to);
  if (from && to && from > to) throw ValidationError.of("from", "dateOrder", "from must not be after to", { fields: ["to"] });
  return { from, to, actorId: query.actorId, operation: query.operation, targetId: query.targetId, outcome: query.outcome };
}

function entryView(entry: AuditEntryView): components["schemas"]["AuditEntry"] {
  return { ...entry, occurredAt: entry.occurredAt.toISOString() };
}

export const listAuditLog: Handler<"listAuditLog"> = async ({ caller, query, services }) => {
  requirePlatformAdmin(caller);
  const page = pageOf(query);
  const { items, total } = await listAuditEntries(services.db, { ...filterOf(query), integrationClientId: query.integrationClientId }, page);
  return { status: 200, body: { items: items.map(entryView), total, ...page } };
};

export const listMyAuditLog: Handler<"listMyAuditLog"> = async ({ caller, query, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const page = pageOf(query);
  const { items, total } = await listAuditEntries(services.db, { ...filterOf(query), integrationClientId: admin.integrationClientId }, page);
  return { status: 200, body: { items: items.map(entryView), total, ...page } };
};
