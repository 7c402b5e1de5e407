// The Auth API's handler map: one entry per operation of generated/openapi/auth.yaml.
import type { operations } from "../../generated/types/auth.ts";
import type { AuthCaller } from "../../domain/identity/callers.ts";
import { notImplemented, type HandlerMap } from "../../server/handler-types.ts";
import { getHealth, getReadiness } from "../health.ts";

export const authHandlers: HandlerMap<operations, AuthCaller> = {
  getHealth,
  getReadiness,
  getJwks: notImplemented,
  getOpenIdConfiguration: notImplemented,
  adminChangePassword: notImplemented,
  adminLogin: notImplemented,
  authorize: notImplemented,
  getClientInfo: notImplemented,
  completeLogin: notImplemented,
  refreshToken: notImplemented,
  revokeToken: notImplemented,
  exchangeToken: notImplemented,
};
