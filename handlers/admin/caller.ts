// Admin API operations run only for an admin caller of the right role (the security handler refused the
// rest); these narrow the type, and fail loudly if that ever changes.
import type { AdminApiCaller, AdminCaller } from "../../domain/sign-in/callers.ts";

export function requireIntegrationAdmin(caller: AdminApiCaller): AdminCaller & { integrationClientId: string } {
  if (caller.kind !== "admin" || caller.role !== "INTEGRATION_ADMIN" || caller.integrationClientId === null) {
    throw new Error("a /my-integration operation ran without an integration admin caller");
  }
  return caller as AdminCaller & { integrationClientId: string };
}

export function requirePlatformAdmin(caller: AdminApiCaller): AdminCaller {
  if (caller.kind !== "admin" || caller.role !== "PLATFORM_ADMIN") throw new Error("an /integration-admin operation ran without a platform admin caller");
  return caller;
}
