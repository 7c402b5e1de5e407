// Raising an integration's daily chat-message cap: integration admins ask (/my-integration/message-cap-requests),
// platform admins decide (/integration-admin/message-cap-requests). The outcome mail goes out after the
// decision has committed; a mail that is not sent is logged and leaves the decision as it is.
import type { components } from "../../generated/types/admin.ts";
import type { MessageCapRequestRow } from "../../db/tables/limits.table.ts";
import {
  approveMessageCapRequest as approve,
  listIntegrationMessageCapRequests,
  listMessageCapRequestQueue,
  messageCapDecisionEmail,
  rejectMessageCapRequest as reject,
  requestMessageCapRaise,
  type QueuedMessageCapRequest,
} from "../../domain/limits/message-cap-requests.ts";
import { dailyMessageCapOf } from "../../domain/limits/message-caps.ts";
import type { Services } from "../handler-types.ts";
import { requireIntegrationAdmin, requirePlatformAdmin } from "./caller.ts";
import { pageOf } from "./page-query.ts";
import type { Handler } from "./handler.ts";

type Schemas = components["schemas"];
type Log = Parameters<Handler<"approveMessageCapRequest">>[0]["log"];

function messageCapRequestView(request: MessageCapRequestRow): Schemas["MessageCapRequest"] {
  return {
    id: request.id,
    status: request.status,
    requestedPerDay: request.requested_per_day,
    currentPerDay: request.current_per_day,
    reason: request.reason,
    createdAt: request.created_at.toISOString(),
    approvedPerDay: request.approved_per_day,
    rejectionReason: request.rejection_reason,
    decidedAt: request.decided_at?.toISOString() ?? null,
  };
}

function platformMessageCapRequestView(request: QueuedMessageCapRequest): Schemas["PlatformMessageCapRequest"] {
  return {
    ...messageCapRequestView(request),
    integrationClientId: request.integration_client_id,
    integrationClientName: request.integrationClientName,
    requestedBy: request.requestedByEmail,
    decidedBy: request.decidedByEmail,
  };
}

/** Mails the outcome to the admin who asked; any failure is logged, never thrown. */
async function mailDecision(services: Services, log: Log, request: QueuedMessageCapRequest): Promise<void> {
  const email = messageCapDecisionEmail(request);
  if (email === null) return;
  if (!services.accountMail) {
    log.warn({ messageCapRequestId: request.id }, "the message cap decision was not mailed: this deployment has no mail server configured");
    return;
  }
  try {
    const result = await services.accountMail.send(email);
    if (result.outcome === "rejected" || result.outcome === "temporary_failure") {
      log.warn({ messageCapRequestId: request.id, reason: result.reason }, "the message cap decision mail was not accepted by the mail server");
    }
  } catch (error) {
    log.error({ messageCapRequestId: request.id, err: error }, "the message cap decision mail could not be sent");
  }
}

export const createMessageCapRequest: Handler<"createMessageCapRequest"> = async ({ caller, body, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const request = await requestMessageCapRaise(
    services.db,
    { integrationClientId: admin.integrationClientId, adminUserId: admin.adminUserId, serviceEnv: services.config.serviceEnv },
    body,
    services.clock.now(),
  );
  return { status: 201, body: messageCapRequestView(request) };
};

export const listMyMessageCapRequests: Handler<"listMyMessageCapRequests"> = async ({ caller, query, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const page = pageOf(query);
  const [{ items, total }, currentPerDay] = await Promise.all([
    listIntegrationMessageCapRequests(services.db, admin.integrationClientId, page),
    dailyMessageCapOf(services.db, admin.integrationClientId, services.config.serviceEnv),
  ]);
  return { status: 200, body: { items: items.map(messageCapRequestView), total, ...page, currentPerDay } };
};

export const listMessageCapRequests: Handler<"listMessageCapRequests"> = async ({ caller, query, services }) => {
  requirePlatformAdmin(caller);
  const page = pageOf(query);
  const { items, total } = await listMessageCapRequestQueue(services.db, { status: query.status }, page);
  return { status: 200, body: { items: items.map(platformMessageCapRequestView), total, ...page } };
};

export const approveMessageCapRequest: Handler<"approveMessageCapRequest"> = async ({ caller, params, body, services, log }) => {
  const admin = requirePlatformAdmin(caller);
  const decided = await approve(
    services.db,
    params.id,
    { adminUserId: admin.adminUserId, serviceEnv: services.config.serviceEnv, approvedPerDay: body?.approvedPerDay },
    services.clock.now(),
  );
  await mailDecision(services, log, decided);
  return { status: 200, body: platformMessageCapRequestView(decided) };
};

export const rejectMessageCapRequest: Handler<"rejectMessageCapRequest"> = async ({ caller, params, body, services, log }) => {
  const admin = requirePlatformAdmin(caller);
  const decided = await reject(services.db, params.id, { adminUserId: admin.adminUserId, reason: body.reason }, services.clock.now());
  await mailDecision(services, log, decided);
  return { status: 200, body: platformMessageCapRequestView(decided) };
};
