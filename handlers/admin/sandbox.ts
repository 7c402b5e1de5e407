// Sandbox tools of the Admin API: test charges, simulated transfers and the integration's clock.
import { integrationNow } from "../../domain/clock.ts";
import { argentinaDate, argentinaDateTime } from "../../domain/argentina-time.ts";
import { accountNumberOf } from "../../domain/cvu.ts";
import { fromCents, requireCents } from "../../domain/money.ts";
import { advanceSandboxClock as advanceClock, resetSandboxClock as resetClock } from "../../domain/sandbox/sandbox-clock.ts";
import { requireSandbox } from "../../domain/sandbox/sandbox-only.ts";
import { simulatePayment as simulate } from "../../domain/sandbox/simulate-payment.ts";
import { createTestCharge as createCharge } from "../../domain/sandbox/test-charges.ts";
import { countTransfer } from "../../runtime/metrics.ts";
import { integrationChargeDetailView } from "./integration-payment-requests.ts";
import { requireIntegrationAdmin } from "./caller.ts";
import type { Handler } from "./handler.ts";

export const createTestCharge: Handler<"createTestCharge"> = async ({ body, caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  requireSandbox(services.config.serviceEnv);
  const context = {
    integrationClientId: admin.integrationClientId,
    now: integrationNow(services.clock, admin.clockOffsetMs),
    serviceEnv: services.config.serviceEnv,
    globalMessageCap: services.config.globalDailyMessageCap,
    destinationPolicy: services.outboundHttp.policy,
  };
  const { charge, cvu } = await createCharge(services.db, context, body);
  services.metrics.money.chargesCreated.inc({ kind: charge.kind, channel: "test" });
  // Just created: no payment yet, so nothing to read back.
  return { status: 201, body: integrationChargeDetailView({ charge, cvu, payments: [] }) };
};

export const simulatePayment: Handler<"simulatePayment"> = async ({ body, caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  requireSandbox(services.config.serviceEnv);
  const amountCents = requireCents("amount", body.amount);
  const now = integrationNow(services.clock, admin.clockOffsetMs);
  const operatedAt = body.fechaOperacion ? new Date(body.fechaOperacion) : now;
  const outcome = await simulate(
    services.db,
    services,
    {
      integrationClientId: admin.integrationClientId,
      cvu: body.cvu,
      amountCents,
      operatedAt,
      senderCuil: body.externalAccountCuil,
      senderCvu: body.externalAccountCvu,
      senderName: body.externalAccountName,
      forcePspFailure: body.forcePspFailure ?? false,
    },
    admin.clockOffsetMs,
  );
  // A forced provider failure receives nothing: no transfer to count.
  if (!(body.forcePspFailure ?? false)) {
    countTransfer(services.metrics, {
      source: "simulation",
      amountCents,
      duplicate: false,
      matched: outcome.conciliated,
      unmatchedReason: outcome.unmatchedReason,
    });
  }
  const { transactionId, ...result } = outcome;
  return {
    status: 200,
    body: {
      simulated: body.simulated ?? true,
      forcePspFailure: body.forcePspFailure ?? false,
      idTransaccion: transactionId,
      cvu: body.cvu,
      numeroCuenta: accountNumberOf(body.cvu),
      amount: fromCents(amountCents),
      fechaOperacion: argentinaDateTime(operatedAt),
      ...result,
    },
  };
};

function clockView(now: Date, offsetMs: number) {
  return { now: now.toISOString(), offsetSeconds: Math.floor(offsetMs / 1000), today: argentinaDate(now) };
}

export const getSandboxClock: Handler<"getSandboxClock"> = async ({ caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  requireSandbox(services.config.serviceEnv);
  return { status: 200, body: clockView(integrationNow(services.clock, admin.clockOffsetMs), admin.clockOffsetMs) };
};

/** Moves the integration's clock forward and runs, before answering, every transition that came due. */
export const advanceSandboxClock: Handler<"advanceSandboxClock"> = async ({ body, caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  requireSandbox(services.config.serviceEnv);
  const offset = await advanceClock(services.db, services.clock, {
    integrationClientId: admin.integrationClientId,
    clockOffsetMs: admin.clockOffsetMs,
    advance: body,
    draftLifetimeHours: services.config.draftLifetimeHours,
    notificationSendsPerSecond: services.config.notifications.sendsPerSecond,
  });
  return { status: 200, body: clockView(integrationNow(services.clock, offset), offset) };
};

/** Starts the integration's clock over at real time; what the advanced clock did stays. */
export const resetSandboxClock: Handler<"resetSandboxClock"> = async ({ caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  requireSandbox(services.config.serviceEnv);
  await resetClock(services.db, services.clock, { integrationClientId: admin.integrationClientId });
  return { status: 200, body: clockView(services.clock.now(), 0) };
};
