// Which operations of the Admin and Auth APIs write an audit entry, and who their caller is in one.
// Every state-changing Admin API operation (every method but GET and HEAD) does, but the bank feed's
// transfers (a bank's machine, not an admin: recorded as payments); of the Auth API, the admins' session
// and password operations.
import type { AuditActor } from "../../domain/audit/audit-log.ts";
import { adminActor } from "../../domain/audit/audited-operation.ts";
import type { AdminApiCaller, AuthCaller } from "../../domain/sign-in/callers.ts";

export interface AuditPolicy<Caller> {
  audits(operation: { operationId: string; method: string }): boolean;
  actorOf(caller: Caller): AuditActor;
}

/** Admin API operations that change state but are not an admin's action. */
export const ADMIN_API_UNAUDITED: ReadonlySet<string> = new Set(["ingestBankTransfer", "ingestBankTransferPage"]);

/** The Auth API's operations of the admins' session and passwords. */
export const AUDITED_ADMIN_SESSION_OPERATIONS: ReadonlySet<string> = new Set([
  "adminLogin",
  "adminRefresh",
  "adminLogout",
  "adminChangePassword",
  "requestAdminPasswordReset",
  "completeAdminPasswordReset",
  "submitAdminPasswordResetPage",
]);

function actorOf(caller: AdminApiCaller | AuthCaller): AuditActor {
  if (caller.kind === "admin") return adminActor({ id: caller.adminUserId, role: caller.role, integration_client_id: caller.integrationClientId });
  if (caller.kind === "platform-key") return { kind: "platform_api_key", platformApiKeyId: caller.platformApiKeyId };
  return { kind: "anonymous" };
}

export const adminApiAuditPolicy: AuditPolicy<AdminApiCaller> = {
  audits: ({ operationId, method }) => !["get", "head"].includes(method.toLowerCase()) && !ADMIN_API_UNAUDITED.has(operationId),
  actorOf,
};

export const authApiAuditPolicy: AuditPolicy<AuthCaller> = {
  audits: ({ operationId }) => AUDITED_ADMIN_SESSION_OPERATIONS.has(operationId),
  actorOf,
};
