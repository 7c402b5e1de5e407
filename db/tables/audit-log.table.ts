import type { ColumnType, Generated } from "kysely";
import type { Json, Timestamp } from "./column-types.ts";

// The audit log of admin actions (migration 2026_11_27_0033_audit_log): rows are inserted, never
// updated or deleted (a trigger refuses both, and TRUNCATE).

export type AuditActorKind = "platform_admin" | "integration_admin" | "platform_api_key" | "anonymous";

export interface AuditLogTable {
  id: Generated<string>;
  seq: ColumnType<number, never, never>;
  occurred_at: Timestamp;
  api: "admin" | "auth";
  /** The contract's operationId. */
  operation: string;
  method: string;
  /** The contract's path template (`/my-integration/urls/{clientUrlId}`). */
  route: string;
  actor_kind: AuditActorKind;
  actor_admin_user_id: string | null;
  actor_platform_api_key_id: string | null;
  /** The integration the entry belongs to (its admins' actions), when there is one. */
  integration_client_id: string | null;
  /** The path parameters (and identified targets) by name. */
  targets: Json<Record<string, string>>;
  /** The names of the body's fields. */
  fields: Json<string[]>;
  /** New values of the fields whose values are recorded (never a secret's). */
  changes: Json<Record<string, unknown>>;
  client_address: string;
  outcome: "succeeded" | "refused";
  status: number;
  error_code: string | null;
  request_id: string;
}
