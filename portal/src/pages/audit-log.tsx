// The integration's audit log: what its admins did.
import { adminApi } from "../api.ts";
import { AuditLog, auditQuery } from "../components/audit-log.tsx";

export function MyAuditLog({ query }: { query: URLSearchParams }) {
  return <AuditLog path="/audit-log" query={query} load={(filters, page) => adminApi.auditLog.listMyAuditLog({ ...auditQuery(filters), ...page })} />;
}
