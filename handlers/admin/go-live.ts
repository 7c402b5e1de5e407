// Going live: the integration admin's request and the platform's review in the Sandbox, and Production's
// creation of the integration that a Sandbox approved.
import type { components } from "../../generated/types/admin.ts";
import type { AdminApiCaller } from "../../domain/sign-in/callers.ts";
import {
  decideGoLiveRequest,
  latestGoLiveRequest,
  listGoLiveRequests as listRequests,
  requestGoLive as askToGoLive,
  type GoLiveDecision,
  type GoLiveRequestView,
  type GoLiveSettings,
} from "../../domain/going-live/go-live-requests.ts";
import { sendGoLiveOutcome } from "../../domain/going-live/outcome-email.ts";
import { provisionProductionClient as provisionClient } from "../../domain/going-live/production-clients.ts";
import { requireAccountMail, sendWelcomeEmail } from "../../domain/integration-clients/admin-welcome.ts";
import { requireSandbox } from "../../domain/sandbox/sandbox-only.ts";
import type { Logger } from "../../runtime/logger.ts";
import type { Services } from "../handler-types.ts";
import { requireIntegrationAdmin, requirePlatformAdmin } from "./caller.ts";
import { pageOf } from "./page-query.ts";
import type { Handler } from "./handler.ts";

const SANDBOX_ONLY = "Going live is requested and reviewed in the Sandbox";

function settingsOf(services: Services): GoLiveSettings {
  return { productionConfigured: services.config.productionDeployment !== undefined };
}

function provisioningView(view: GoLiveRequestView): components["schemas"]["GoLiveProvisioning"] {
  const { provisionedAt, ...rest } = view.provisioning;
  return { ...rest, ...(provisionedAt ? { provisionedAt: provisionedAt.toISOString() } : {}) };
}

function requestView(view: GoLiveRequestView): components["schemas"]["GoLiveRequest"] {
  return {
    id: view.id,
    integrationClientId: view.integrationClientId,
    integrationName: view.integrationName,
    requestedByEmail: view.requestedByEmail,
    status: view.status,
    reasons: view.reasons,
    requestedAt: view.requestedAt.toISOString(),
    ...(view.decidedAt ? { decidedAt: view.decidedAt.toISOString(), decidedBy: view.decidedBy! } : {}),
    ...(view.rejectionReason !== undefined ? { rejectionReason: view.rejectionReason } : {}),
    provisioning: provisioningView(view),
  };
}

/** The requesting admin hears how it ended; the decision stands whatever the mail server says. */
async function tellRequester(services: Services, log: Logger, view: GoLiveRequestView): Promise<void> {
  if (!services.accountMail) return;
  const mailed = await sendGoLiveOutcome(services.accountMail, view, services.config.publicUrls.admin);
  if (!mailed.sent) log.warn({ goLiveRequestId: view.id, reason: mailed.reason }, "the go-live outcome email was not accepted by the mail server");
}

export const requestGoLive: Handler<"requestGoLive"> = async ({ caller, services, log }) => {
  const admin = requireIntegrationAdmin(caller);
  requireSandbox(services.config.serviceEnv, SANDBOX_ONLY);
  const { request, newlyApproved } = await askToGoLive(
    services.db,
    services.outboundHttp,
    { integrationClientId: admin.integrationClientId, adminUserId: admin.adminUserId, now: services.clock.now() },
    settingsOf(services),
  );
  if (newlyApproved) await tellRequester(services, log, request);
  return {
    status: 200,
    body: {
      id: request.id,
      status: request.status === "approved" ? "approved" : "in_review",
      reasons: request.reasons,
      requestedAt: request.requestedAt.toISOString(),
      provisioning: provisioningView(request),
    },
  };
};

export const getGoLiveRequest: Handler<"getGoLiveRequest"> = async ({ caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  requireSandbox(services.config.serviceEnv, SANDBOX_ONLY);
  return { status: 200, body: requestView(await latestGoLiveRequest(services.db, admin.integrationClientId)) };
};

export const listMyGoLiveRequests: Handler<"listMyGoLiveRequests"> = async ({ caller, query, services }) => {
  const admin = requireIntegrationAdmin(caller);
  requireSandbox(services.config.serviceEnv, SANDBOX_ONLY);
  const page = pageOf(query);
  const { items, total } = await listRequests(services.db, { integrationClientId: admin.integrationClientId }, page);
  return { status: 200, body: { items: items.map(requestView), total, ...page } };
};

export const listGoLiveRequests: Handler<"listGoLiveRequests"> = async ({ caller, query, services }) => {
  requirePlatformAdmin(caller);
  requireSandbox(services.config.serviceEnv, SANDBOX_ONLY);
  const page = pageOf(query);
  const { items, total } = await listRequests(services.db, { status: query.status }, page);
  return { status: 200, body: { items: items.map(requestView), total, ...page } };
};

async function decide(services: Services, log: Logger, caller: AdminApiCaller, requestId: string, decision: GoLiveDecision) {
  const platformAdmin = requirePlatformAdmin(caller);
  requireSandbox(services.config.serviceEnv, SANDBOX_ONLY);
  const view = await decideGoLiveRequest(
    services.db,
    { requestId, platformAdminId: platformAdmin.adminUserId, now: services.clock.now(), decision },
    settingsOf(services),
  );
  await tellRequester(services, log, view);
  if (view.provisioning.status === "manual")
    log.warn({ goLiveRequestId: view.id }, "go-live approved, but no Production deployment is configured: create the integration in Production by hand");
  return { status: 200 as const, body: requestView(view) };
}

export const approveGoLiveRequest: Handler<"approveGoLiveRequest"> = async ({ caller, params, services, log }) =>
  decide(services, log, caller, params.id, { kind: "approve" });

export const rejectGoLiveRequest: Handler<"rejectGoLiveRequest"> = async ({ caller, params, body, services, log }) =>
  decide(services, log, caller, params.id, { kind: "reject", reason: body.reason });

export const provisionProductionClient: Handler<"provisionProductionClient"> = async ({ caller, params, body, services, audit, log }) => {
  if (caller.kind !== "platform-key") requirePlatformAdmin(caller);
  const mail = services.config.serviceEnv === "production" ? requireAccountMail(services.accountMail) : undefined;
  // The audit entry commits with the creation, before the answer: it is told the status the answer will have.
  const result = await provisionClient(services.db, services.config.serviceEnv, params.sandboxClientId, body, services.clock.now(), (created) =>
    audit?.answersWith(created ? 201 : 200),
  );
  if (!result.created) return { status: 200, body: result.client };
  const mailed = await sendWelcomeEmail(services.db, mail!, services.clock, result.firstAdminWelcome, services.config.publicUrls.admin);
  if (!mailed.sent)
    log.warn(
      { integrationClientId: result.client.integrationClientId, reason: mailed.reason },
      "the first admin's welcome email was not accepted by the mail server",
    );
  return { status: 201, body: { ...result.client, firstAdminEmailSent: mailed.sent } };
};
