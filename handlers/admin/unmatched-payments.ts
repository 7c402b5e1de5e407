// Unmatched payments on the Admin API: the integration's (/my-integration/unmatched-payments) and the
// platform's view across integrations (/integration-admin/unmatched-payments); assigning the integration's
// to one of its charges; returning it to its sender (the integration's, and the platform's money of no integration).
import { integrationNow } from "../../domain/clock.ts";
import { assignmentView, assignUnmatchedPayment as assign } from "../../domain/reconciliation/assign-unmatched.ts";
import { requestReturn, returnResultView } from "../../domain/reconciliation/return-unmatched.ts";
import { getUnmatchedPayment as getOne, listUnmatchedPayments as listSome } from "../../domain/reconciliation/unmatched-payments.ts";
import { idempotencyKeyOf } from "../handler-types.ts";
import { requireIntegrationAdmin, requirePlatformAdmin } from "./caller.ts";
import { pageOf } from "./page-query.ts";
import type { Handler } from "./handler.ts";

export const listUnmatchedPayments: Handler<"listUnmatchedPayments"> = async ({ caller, query, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const page = pageOf(query);
  const { items, total } = await listSome(
    services.db,
    { kind: "integration", integrationClientId: admin.integrationClientId },
    { state: query.state, reason: query.reason, merchantAccountId: query.merchantUserId, from: query.from, to: query.to },
    page,
  );
  return { status: 200, body: { items, total, ...page } };
};

export const getUnmatchedPayment: Handler<"getUnmatchedPayment"> = async ({ caller, params, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const body = await getOne(services.db, { kind: "integration", integrationClientId: admin.integrationClientId }, params.unmatchedPaymentId);
  return { status: 200, body };
};

export const listPlatformUnmatchedPayments: Handler<"listPlatformUnmatchedPayments"> = async ({ caller, query, services }) => {
  requirePlatformAdmin(caller);
  const page = pageOf(query);
  const { items, total } = await listSome(
    services.db,
    { kind: "platform" },
    {
      state: query.state,
      reason: query.reason,
      merchantAccountId: query.merchantUserId,
      integrationClientId: query.integrationClientId,
      withoutIntegration: query.withoutIntegration,
      from: query.from,
      to: query.to,
    },
    page,
  );
  return { status: 200, body: { items, total, ...page } };
};

export const getPlatformUnmatchedPayment: Handler<"getPlatformUnmatchedPayment"> = async ({ caller, params, services }) => {
  requirePlatformAdmin(caller);
  return { status: 200, body: await getOne(services.db, { kind: "platform" }, params.unmatchedPaymentId) };
};

export const assignUnmatchedPayment: Handler<"assignUnmatchedPayment"> = async ({ caller, params, body, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const result = await assign(services.db, { kind: "integration", integrationClientId: admin.integrationClientId }, params.unmatchedPaymentId, body, {
    now: integrationNow(services.clock, admin.clockOffsetMs),
    livemode: services.config.serviceEnv === "production",
    actor: { kind: "integration_admin", adminUserId: admin.adminUserId },
  });
  return { status: 200, body: assignmentView(result) };
};

export const returnUnmatchedPayment: Handler<"returnUnmatchedPayment"> = async ({ caller, params, headers, body, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const result = await requestReturn(
    services.db,
    { kind: "integration", integrationClientId: admin.integrationClientId },
    params.unmatchedPaymentId,
    { idempotencyKey: idempotencyKeyOf(headers), simulateFailure: body.simulateFailure },
    {
      now: integrationNow(services.clock, admin.clockOffsetMs),
      serviceEnv: services.config.serviceEnv,
      actor: { kind: "integration_admin", adminUserId: admin.adminUserId },
    },
  );
  return { status: 202, body: returnResultView(result) };
};

export const returnPlatformUnmatchedPayment: Handler<"returnPlatformUnmatchedPayment"> = async ({ caller, params, headers, body, services }) => {
  const admin = requirePlatformAdmin(caller);
  const result = await requestReturn(
    services.db,
    { kind: "platform" },
    params.unmatchedPaymentId,
    { idempotencyKey: idempotencyKeyOf(headers), simulateFailure: body.simulateFailure },
    { now: services.clock.now(), serviceEnv: services.config.serviceEnv, actor: { kind: "platform_admin", adminUserId: admin.adminUserId } },
  );
  return { status: 202, body: returnResultView(result) };
};
