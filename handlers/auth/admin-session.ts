// The portal admin session.
import { actorNamedIn } from "../../domain/audit/audited-operation.ts";
import { DomainError } from "../../domain/errors.ts";
import { adminSignIn, changeAdminPassword, endAdminSession, refreshAdminSession } from "../../domain/sign-in/admin-session.ts";
import type { Handler } from "./handler.ts";

export const adminLogin: Handler<"adminLogin"> = async ({ body, services, clientAddress, audit }) => ({
  status: 200,
  body: await adminSignIn(services.db, services.clock, services.credentialThrottle, services.tokens, { ...body, clientAddress }, actorNamedIn(audit)),
  headers: { "Cache-Control": "no-store" },
});

export const adminChangePassword: Handler<"adminChangePassword"> = async ({ body, caller, services }) => {
  if (caller.kind !== "admin") throw new DomainError("UnauthorizedError", "An admin idToken is required");
  await changeAdminPassword(services.db, services.clock, { adminUserId: caller.adminUserId, sessionId: caller.sessionId, ...body });
  return { status: 204 };
};

export const adminRefresh: Handler<"adminRefresh"> = async ({ body, services, audit }) => ({
  status: 200,
  body: await refreshAdminSession(services.db, services.clock, services.tokens, body.refreshToken, actorNamedIn(audit)),
  headers: { "Cache-Control": "no-store" },
});

export const adminLogout: Handler<"adminLogout"> = async ({ body, services, audit }) => {
  await endAdminSession(services.db, services.clock, body.refreshToken, actorNamedIn(audit));
  return { status: 204 };
};
