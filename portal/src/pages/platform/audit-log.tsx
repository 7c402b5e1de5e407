// The platform's audit log: every admin's and platform API key's actions, or one integration's.
import { adminApi } from "../../api.ts";
import { AuditLog, auditQuery } from "../../components/audit-log.tsx";

export function PlatformAuditLog({ query }: { query: URLSearchParams }) {
  return (
    <AuditLog
      platform
      path="/audit-log"
      query={query}
      load={(filters, page) =>
        adminApi.platformAuditLog.listAuditLog({
          ...auditQuery(filters),
          ...(filters.integrationClientId ? { integrationClientId: filters.integrationClientId } : {}),
          ...page,
        })
      }
    />
  );
}
