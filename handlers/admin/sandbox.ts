// Sandbox tools of the Admin API: simulated transfers and the integration's clock.
import { randomUUID } from "node:crypto";
import type { operations } from "../../generated/types/admin.ts";
import type { AdminApiCaller } from "../../domain/identity/callers.ts";
import { integrationNow } from "../../domain/clock.ts";
import { argentinaDate, argentinaDateTime } from "../../domain/argentina-time.ts";
import { accountNumberOf } from "../../domain/cvu.ts";
import { DomainError, ValidationError } from "../../domain/errors.ts";
import { fromCents, requireCents } from "../../domain/money.ts";
import { receiveTransfer } from "../../domain/reconciliation/reconcile.ts";
import { runTimeTransitions } from "../../domain/charges/time-transitions.ts";
import type { OperationHandler, Services } from "../../server/handler-types.ts";
import { requireIntegrationAdmin } from "./caller.ts";

type Handler<Id extends keyof operations> = OperationHandler<operations[Id], AdminApiCaller>;

function requireSandbox(services: Services): void {
  if (services.config.serviceEnv !== "sandbox") throw new DomainError("SandboxOnlyError", "This operation exists only in the Sandbox");
}

export const simulatePayment: Handler<"simulatePayment"> = async ({ body, caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  requireSandbox(services);
  const amountCents = requireCents("amount", body.amount);
  const now = integrationNow(services.clock, admin.clockOffsetMs);
  const operatedAt = body.fechaOperacion ? new Date(body.fechaOperacion) : now;

  // The CVU must belong (now or before) to a charge of the caller's integration.
  const known = await services.db
    .selectFrom("charges as c")
    .innerJoin("cvu_accounts as a", "a.id", "c.cvu_account_id")
    .select("c.id")
    .where("a.cvu", "=", body.cvu)
    .where("c.integration_client_id", "=", admin.integrationClientId)
    .limit(1)
    .executeTakeFirst();
  if (!known) throw new DomainError("CvuNotInIntegrationError", "The cvu does not belong to a charge of this integration");

  const transactionId = `sim_${randomUUID()}`;
  const common = {
    simulated: body.simulated ?? true,
    forcePspFailure: body.forcePspFailure ?? false,
    idTransaccion: transactionId,
    cvu: body.cvu,
    numeroCuenta: accountNumberOf(body.cvu),
    amount: fromCents(amountCents),
    fechaOperacion: argentinaDateTime(operatedAt),
  };
  if (body.forcePspFailure) return { status: 200, body: { ...common, conciliated: false, webhookWillFire: false } };

  const outcome = await receiveTransfer(
    services.db,
    { transactionId, amountCents, receivingCvu: body.cvu, senderCuil: body.externalAccountCuil, senderCvu: body.externalAccountCvu, senderName: body.externalAccountName, operatedAt, source: "simulation" },
    { receivedAt: now, livemode: false },
  );
  const conciliated = outcome.charge !== undefined;
  const webhookEvent = conciliated ? "payment_request.payment_received" : "payment.unmatched";
  const client = await services.db.selectFrom("integration_clients").select("enabled_events").where("id", "=", admin.integrationClientId).executeTakeFirstOrThrow();
  return {
    status: 200,
    body: {
      ...common,
      conciliated,
      webhookWillFire: client.enabled_events.includes(webhookEvent),
      webhookEvent,
      ...(outcome.charge ? { paymentRequestId: outcome.charge.id } : {}),
      ...(outcome.unmatchedReason ? { unmatchedReason: outcome.unmatchedReason } : {}),
    },
  };
};

function clockView(now: Date, offsetMs: number) {
  return { now: now.toISOString(), offsetSeconds: Math.floor(offsetMs / 1000), today: argentinaDate(now) };
}

export const getSandboxClock: Handler<"getSandboxClock"> = async ({ caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  requireSandbox(services);
  return { status: 200, body: clockView(integrationNow(services.clock, admin.clockOffsetMs), admin.clockOffsetMs) };
};

/** `P1W`, `P2D`, `PT3H`, `P1DT12H`, `PT90M`, `PT30S` → milliseconds (the schema already checked the shape). */
export function isoDurationMs(duration: string): number {
  const match = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(duration);
  if (!match) throw ValidationError.of("advanceBy", "advanceBy must be an ISO 8601 duration in weeks, days, hours, minutes and seconds");
  const [, w, d, h, m, s] = match.map((part) => Number(part ?? 0));
  return ((((w! * 7 + d!) * 24 + h!) * 60 + m!) * 60 + s!) * 1000;
}

/** The latest instant an integration's clock may show. */
const LATEST_CLOCK_MS = Date.UTC(9999, 11, 31, 23, 59, 59);

/** Moves the integration's clock forward and runs, before answering, every transition that came due. */
export const advanceSandboxClock: Handler<"advanceSandboxClock"> = async ({ body, caller, services }) => {
  const admin = requireIntegrationAdmin(caller);
  requireSandbox(services);
  const current = integrationNow(services.clock, admin.clockOffsetMs);
  const target = "advanceTo" in body ? new Date(body.advanceTo) : new Date(current.getTime() + isoDurationMs(body.advanceBy));
  // Dates are written with four-digit years everywhere (the contract's date patterns, PostgreSQL's range
  // is wider): a clock past 9999 could not be answered, and a huge advanceBy is not a date at all.
  if (!(target.getTime() <= LATEST_CLOCK_MS)) {
    const field = "advanceTo" in body ? "advanceTo" : "advanceBy";
    throw ValidationError.of(field, `${field} would move the clock past ${new Date(LATEST_CLOCK_MS).toISOString()}`);
  }
  if (target.getTime() <= current.getTime()) {
    throw new DomainError("SandboxClockBackwardsError", "The sandbox clock only moves forward: advanceTo must be after its current time, advanceBy positive");
  }
  const offsetMs = target.getTime() - services.clock.now().getTime();
  // Only forward, also against a concurrent advance.
  await services.db.updateTable("integration_clients").set({ clock_offset_ms: offsetMs }).where("id", "=", admin.integrationClientId).where("clock_offset_ms", "<", offsetMs).execute();
  const stored = await services.db.selectFrom("integration_clients").select("clock_offset_ms").where("id", "=", admin.integrationClientId).executeTakeFirstOrThrow();
  await runTimeTransitions(services.db, { now: services.clock.now(), livemode: false, draftLifetimeHours: services.config.draftLifetimeHours, integrationClientId: admin.integrationClientId });
  const offset = Number(stored.clock_offset_ms);
  return { status: 200, body: clockView(integrationNow(services.clock, offset), offset) };
};
