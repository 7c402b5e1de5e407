// Go-live requests in the Sandbox: the integration admin asks, the automatic check approves at once or
// sends the request to the platform's review, a platform admin approves or rejects it. An approval (either
// way) queues the integration's creation in Production in the same transaction, so a crash between the
// two cannot lose it; without a Production deployment configured it is marked for creation by hand.
import { sql, type Kysely, type Transaction } from "kysely";
import { addJob, provisionProductionJobKey } from "../../db/job-queue.ts";
import type { Database } from "../../db/schema.ts";
import type { Executor } from "../../db/transactions.ts";
import type { GoLiveRequestStatus, ProvisioningStatus } from "../../db/tables/going-live.table.ts";
import { DomainError } from "../errors.ts";
import type { OutboundHttpClient } from "../outbound/http-client.ts";
import { runAutomaticCheck, type GoLiveReason } from "./automatic-check.ts";

export interface GoLiveProvisioningView {
  status: ProvisioningStatus;
  productionIntegrationClientId?: string;
  productionClientId?: string;
  provisionedAt?: Date;
  lastError?: string;
  instructions?: string;
}

export interface GoLiveRequestView {
  id: string;
  integrationClientId: string;
  integrationName: string;
  requestedByEmail: string;
  requestedByName: string | null;
  status: GoLiveRequestStatus;
  reasons: GoLiveReason[];
  requestedAt: Date;
  decidedAt?: Date;
  decidedBy?: string;
  rejectionReason?: string;
  provisioning: GoLiveProvisioningView;
}

/** What an approval does about Production: queue the creation there, or leave it to a platform admin. */
export interface GoLiveSettings {
  /** A Production deployment is configured (COBRO_PRODUCTION_ADMIN_URL and COBRO_PRODUCTION_API_KEY). */
  productionConfigured: boolean;
}

export const MANUAL_PROVISIONING_INSTRUCTIONS =
  "This Sandbox has no Production deployment configured (COBRO_PRODUCTION_ADMIN_URL, COBRO_PRODUCTION_API_KEY). " +
  "Create the integration in Production with PUT /integration-admin/production-clients/{integrationClientId} on Production's Admin API " +
  "(the profile, its https redirect URIs, and the requesting admin as firstAdminEmail), or configure both settings so that approvals do it.";

function requestsQuery(db: Executor) {
  return db
    .selectFrom("go_live_requests as r")
    .innerJoin("integration_clients as c", "c.id", "r.integration_client_id")
    .innerJoin("admin_users as requester", "requester.id", "r.requested_by_admin_id")
    .leftJoin("admin_users as decider", "decider.id", "r.decided_by_admin_id")
    .selectAll("r")
    .select([
      "c.name as integration_name",
      "requester.email as requested_by_email",
      "requester.name as requested_by_name",
      "decider.email as decided_by_email",
    ]);
}

type RequestRow = Awaited<ReturnType<ReturnType<typeof requestsQuery>["executeTakeFirstOrThrow"]>>;

function viewOf(row: RequestRow): GoLiveRequestView {
  const decided = row.decided_at !== null;
  return {
    id: row.id,
    integrationClientId: row.integration_client_id,
    integrationName: row.integration_name,
    requestedByEmail: row.requested_by_email,
    requestedByName: row.requested_by_name,
    status: row.status,
    reasons: row.reasons as GoLiveReason[],
    requestedAt: row.requested_at,
    ...(decided ? { decidedAt: row.decided_at!, decidedBy: row.decided_by_email ?? "automatic" } : {}),
    ...(row.rejection_reason !== null ? { rejectionReason: row.rejection_reason } : {}),
    provisioning: {
      status: row.provisioning_status,
      ...(row.production_integration_client_id !== null ? { productionIntegrationClientId: row.production_integration_client_id } : {}),
      ...(row.production_client_id !== null ? { productionClientId: row.production_client_id } : {}),
      ...(row.provisioned_at !== null ? { provisionedAt: row.provisioned_at } : {}),
      ...(row.provisioning_error !== null ? { lastError: row.provisioning_error } : {}),
      ...(row.provisioning_status === "manual" ? { instructions: MANUAL_PROVISIONING_INSTRUCTIONS } : {}),
    },
  };
}

async function requestById(db: Executor, id: string): Promise<GoLiveRequestView> {
  return viewOf(await requestsQuery(db).where("r.id", "=", id).executeTakeFirstOrThrow());
}

/** The approval's columns and, with Production configured, its creation there queued in the same transaction. */
async function approve(trx: Transaction<Database>, requestId: string, decidedByAdminId: string | null, now: Date, settings: GoLiveSettings): Promise<void> {
  await trx
    .updateTable("go_live_requests")
    .set({
      status: "approved",
      decided_at: now,
      decided_by_admin_id: decidedByAdminId,
      provisioning_status: settings.productionConfigured ? "in_progress" : "manual",
    })
    .where("id", "=", requestId)
    .execute();
  if (settings.productionConfigured) {
    await addJob(trx, "provision-production", { goLiveRequestId: requestId }, { jobKey: provisionProductionJobKey(requestId) });
  }
}

export interface GoLiveAnswer {
  request: GoLiveRequestView;
  /** Approved by this call: the requesting admin is to be told. */
  newlyApproved: boolean;
}

/**
 * The integration admin asks to go live. Once approved, the approved request is answered again and
 * nothing is repeated. Otherwise the automatic check runs (it pings the webhook URLs, so it runs before
 * the transaction) and its result goes on the request in review, a new one if none is.
 */
export async function requestGoLive(
  db: Kysely<Database>,
  http: OutboundHttpClient,
  input: { integrationClientId: string; adminUserId: string; now: Date },
  settings: GoLiveSettings,
): Promise<GoLiveAnswer> {
  const approved = await latestRequest(db, input.integrationClientId, "approved");
  if (approved) return { request: approved, newlyApproved: false };
  const reasons = await runAutomaticCheck(db, http, input.integrationClientId, input.now);
  const requestId = await db.transaction().execute(async (trx) => {
    // One request at a time per integration: concurrent asks queue behind this lock.
    await trx.selectFrom("integration_clients").select("id").where("id", "=", input.integrationClientId).forUpdate().executeTakeFirstOrThrow();
    const settled = await trx
      .selectFrom("go_live_requests")
      .select("id")
      .where("integration_client_id", "=", input.integrationClientId)
      .where("status", "=", "approved")
      .executeTakeFirst();
    if (settled) return { id: settled.id, approvedNow: false };
    const inReview = await trx
      .selectFrom("go_live_requests")
      .select("id")
      .where("integration_client_id", "=", input.integrationClientId)
      .where("status", "=", "in_review")
      .executeTakeFirst();
    const id = inReview
      ? (
          await trx
            .updateTable("go_live_requests")
            .set({ reasons: JSON.stringify(reasons), requested_by_admin_id: input.adminUserId })
            .where("id", "=", inReview.id)
            .returning("id")
            .executeTakeFirstOrThrow()
        ).id
      : (
          await trx
            .insertInto("go_live_requests")
            .values({
              integration_client_id: input.integrationClientId,
              requested_by_admin_id: input.adminUserId,
              status: "in_review",
              reasons: JSON.stringify(reasons),
              requested_at: input.now,
            })
            .returning("id")
            .executeTakeFirstOrThrow()
        ).id;
    if (reasons.length > 0) return { id, approvedNow: false };
    await approve(trx, id, null, input.now, settings);
    return { id, approvedNow: true };
  });
  return { request: await requestById(db, requestId.id), newlyApproved: requestId.approvedNow };
}

async function latestRequest(db: Executor, integrationClientId: string, status?: GoLiveRequestStatus): Promise<GoLiveRequestView | undefined> {
  let query = requestsQuery(db).where("r.integration_client_id", "=", integrationClientId);
  if (status) query = query.where("r.status", "=", status);
  // A new request is made only when every earlier one was rejected, so the one not rejected is the latest
  // (requests made at the same instant, as a Sandbox clock allows, are told apart this way).
  const row = await query.orderBy(sql`r.status = 'rejected'`).orderBy("r.requested_at", "desc").orderBy("r.id", "desc").limit(1).executeTakeFirst();
  return row ? viewOf(row) : undefined;
}

/** The integration's latest request. */
export async function latestGoLiveRequest(db: Kysely<Database>, integrationClientId: string): Promise<GoLiveRequestView> {
  const request = await latestRequest(db, integrationClientId);
  if (!request) throw new DomainError("GoLiveRequestNotFoundError", "The integration has not requested to go live yet: POST /my-integration/go-live");
  return request;
}

/** The platform's queue, or one integration's own requests: newest first, optionally only one status. */
export async function listGoLiveRequests(
  db: Kysely<Database>,
  filter: { status?: GoLiveRequestStatus; integrationClientId?: string },
  page: { limit: number; offset: number },
): Promise<{ items: GoLiveRequestView[]; total: number }> {
  let query = requestsQuery(db);
  let count = db.selectFrom("go_live_requests").select((eb) => eb.fn.countAll<string>().as("total"));
  if (filter.status) {
    query = query.where("r.status", "=", filter.status);
    count = count.where("status", "=", filter.status);
  }
  if (filter.integrationClientId) {
    query = query.where("r.integration_client_id", "=", filter.integrationClientId);
    count = count.where("integration_client_id", "=", filter.integrationClientId);
  }
  const [rows, total] = await Promise.all([
    query.orderBy("r.requested_at", "desc").orderBy("r.id").limit(page.limit).offset(page.offset).execute(),
    count.executeTakeFirstOrThrow(),
  ]);
  return { items: rows.map(viewOf), total: Number(total.total) };
}

export type GoLiveDecision = { kind: "approve" } | { kind: "reject"; reason: string };

/** A platform admin decides a request in review. */
export async function decideGoLiveRequest(
  db: Kysely<Database>,
  input: { requestId: string; platformAdminId: string; now: Date; decision: GoLiveDecision },
  settings: GoLiveSettings,
): Promise<GoLiveRequestView> {
  await db.transaction().execute(async (trx) => {
    const row = await trx.selectFrom("go_live_requests").select(["id", "status"]).where("id", "=", input.requestId).forUpdate().executeTakeFirst();
    if (!row) throw new DomainError("GoLiveRequestNotFoundError", "No go-live request with this id");
    if (row.status !== "in_review")
      throw new DomainError("GoLiveRequestDecidedError", `The go-live request was already ${row.status}; only a request in review is decided`);
    if (input.decision.kind === "approve") {
      await approve(trx, row.id, input.platformAdminId, input.now, settings);
    } else {
      await trx
        .updateTable("go_live_requests")
        .set({ status: "rejected", decided_at: input.now, decided_by_admin_id: input.platformAdminId, rejection_reason: input.decision.reason })
        .where("id", "=", row.id)
        .execute();
    }
  });
  return requestById(db, input.requestId);
}
