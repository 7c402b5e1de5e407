// The portal admin session.
import type { operations } from "../../generated/types/auth.ts";
import type { AuthCaller } from "../../domain/identity/callers.ts";
import { DomainError } from "../../domain/errors.ts";
import { adminSignIn, changeAdminPassword, endAdminSession, refreshAdminSession } from "../../domain/identity/admin-session.ts";
import type { OperationHandler } from "../../server/handler-types.ts";

type Handler<Id extends keyof operations> = OperationHandler<operations[Id], AuthCaller>;

export const adminLogin: Handler<"adminLogin"> = async ({ body, services, clientAddress }) => ({
  status: 200,
  body: await adminSignIn(services.db, services.clock, services.tokens, { ...body, clientAddress }),
  headers: { "Cache-Control": "no-store" },
});

export const adminChangePassword: Handler<"adminChangePassword"> = async ({ body, caller, services }) => {
  if (caller.kind !== "admin") throw new DomainError("UnauthorizedError", "An admin idToken is required");
  await changeAdminPassword(services.db, services.clock, { adminUserId: caller.adminUserId, sessionId: caller.sessionId, ...body });
  return { status: 204 };
};

export const adminRefresh: Handler<"adminRefresh"> = async ({ body, services }) => ({
  status: 200,
  body: await refreshAdminSession(services.db, services.clock, services.tokens, body.refreshToken),
  headers: { "Cache-Control": "no-store" },
});

export const adminLogout: Handler<"adminLogout"> = async ({ body, services }) => {
  await endAdminSession(services.db, services.clock, body.refreshToken);
  return { status: 204 };
};
