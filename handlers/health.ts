// Liveness and readiness, the same on every API (each contract declares them identically).
import type { operations } from "../generated/types/integration.ts";
import { checkDatabaseAnswers } from "../domain/readiness.ts";
import type { OperationHandler } from "./handler-types.ts";

export const getHealth: OperationHandler<operations["getHealth"], unknown> = async () => ({ status: 200, body: { status: "ok" } });

export const getReadiness: OperationHandler<operations["getReadiness"], unknown, 503> = async ({ services, log }) => {
  // A stopping process takes itself out of its load balancer's rotation while it still serves.
  if (services.isStopping()) return { status: 503, body: { status: "unavailable" } };
  try {
    await checkDatabaseAnswers(services.db);
  } catch (error) {
    log.warn({ err: error }, "readiness check failed: the database does not answer");
    return { status: 503, body: { status: "unavailable" } };
  }
  return { status: 200, body: { status: "ready" } };
};
