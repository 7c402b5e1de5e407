import type { ColumnType, Generated } from "kysely";
import type { Json, Timestamp } from "./column-types.ts";

// Go-live requests (migration 2026_11_23_0012_going_live).

export type GoLiveRequestStatus = "in_review" | "approved" | "rejected";
export type ProvisioningStatus = "not_started" | "in_progress" | "provisioned" | "failed" | "manual";

export interface GoLiveReasonRow {
  code: string;
  message: string;
}

export interface GoLiveRequestsTable {
  id: Generated<string>;
  integration_client_id: string;
  requested_by_admin_id: string;
  status: GoLiveRequestStatus;
  reasons: Json<GoLiveReasonRow[]>;
  requested_at: Timestamp;
  decided_at: Timestamp | null;
  /** null with a decision: the automatic check decided. */
  decided_by_admin_id: string | null;
  rejection_reason: string | null;
  provisioning_status: ColumnType<ProvisioningStatus, ProvisioningStatus | undefined, ProvisioningStatus>;
  production_integration_client_id: string | null;
  production_client_id: string | null;
  provisioned_at: Timestamp | null;
  provisioning_error: string | null;
}
