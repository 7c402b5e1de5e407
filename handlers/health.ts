// Liveness and readiness, the same on every API (each contract declares them identically).
import type { operations } from "../generated/types/integration.ts";
import { checkDatabaseAnswers } from "../db/readiness.ts";
import { DomainError } from "../domain/errors.ts";
import type { OperationHandler } from "../server/handler-types.ts";

export const getHealth: OperationHandler<operations["getHealth"], unknown> = async () => ({ status: 200, body: { status: "ok" } });

export const getReadiness: OperationHandler<operations["getReadiness"], unknown> = async ({ services, log }) => {
  try {
    await checkDatabaseAnswers(services.db);
  } catch (error) {
    log.warn({ err: error }, "readiness check failed");
    throw new DomainError("ServiceNotReady", "The database does not answer");
  }
  return { status: 200, body: { status: "ready" } };
};
