// The security handlers of each API's contract schemes. Until the identity issue lands, no token is
// accepted: every authenticated operation answers its documented 401.
import { DomainError } from "../domain/errors.ts";
import type { AdminCaller, AuthCaller, IntegrationCaller } from "../domain/identity/callers.ts";
import type { SecurityHandler } from "./api-app.ts";

const refuseMerchant: SecurityHandler<IntegrationCaller> = async () => ({ refused: new DomainError("InvalidMerchantToken", "Unauthorized") });
const refuseAdmin: SecurityHandler<AdminCaller> = async () => ({ refused: new DomainError("Unauthorized", "A valid admin idToken is required (Authorization: Bearer <idToken>)") });
const refuseBearer: SecurityHandler<AuthCaller> = async () => ({ refused: new DomainError("Unauthorized", "A valid idToken is required (Authorization: Bearer <idToken>)") });

export const integrationSecurity: Record<string, SecurityHandler<IntegrationCaller>> = { MerchantBearer: refuseMerchant };
export const adminSecurity: Record<string, SecurityHandler<AdminCaller>> = { AdminBearer: refuseAdmin };
export const authSecurity: Record<string, SecurityHandler<AuthCaller>> = { BearerAuth: refuseBearer, BasicAuth: refuseBearer };
