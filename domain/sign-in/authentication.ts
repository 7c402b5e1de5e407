// The token checks of the APIs. Each returns the caller, or the documented refusal as a DomainError.
// Signature and expiry are checked in memory (cached keys); then one query answers every remaining
// question (integration exists, merchant linked, grant not revoked), its answer remembered by the
// TokenCheckCache (at most a second, forgotten at once on any change).
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { DomainError } from "../errors.ts";
import type { AdminCaller, MerchantCaller, MerchantTokenHolder } from "./callers.ts";
import { isUuid } from "../ids.ts";
import { ADMIN_AUDIENCE, type TokenService } from "./tokens.ts";
import type { TokenCheckCache } from "./token-check-cache.ts";
import { CompiledStatement } from "../../db/compiled-statement.ts";

// What each token check reads, compiled once (db/compiled-statement.ts); exported for the test that holds
// each compiled text and its parameters to the builder's.

/** The Integration API's: the integration by the token's audience, the merchant's link and the grant. */
export function merchantCheckQuery(db: Kysely<Database>, input: { aud: string; sub: string; sid: string }) {
  return db
    .selectFrom("integration_clients as c")
    .leftJoin("merchant_links as l", (join) => join.onRef("l.integration_client_id", "=", "c.id").on("l.merchant_account_id", "=", input.sub))
    .leftJoin("oauth_grants as g", (join) =>
      join.onRef("g.integration_client_id", "=", "c.id").on("g.id", "=", input.sid).on("g.merchant_account_id", "=", input.sub),
    )
    .leftJoin("merchant_accounts as m", "m.id", "l.merchant_account_id")
    .select(["c.id as clientId", "c.name", "c.clock_offset_ms", "l.id as linkId", "l.unlinked_at", "g.id as grantId", "g.revoked_at", "m.status"])
    .where("c.provider_client_id", "=", input.aud);
}
export const merchantCheck = new CompiledStatement(["aud", "sub", "sid"], merchantCheckQuery);

/** The Auth API's: the grant and its merchant's status. */
export function grantCheckQuery(db: Kysely<Database>, input: { sid: string; sub: string }) {
  return db
    .selectFrom("oauth_grants as g")
    .innerJoin("merchant_accounts as m", "m.id", "g.merchant_account_id")
    .select(["g.revoked_at", "m.status"])
    .where("g.id", "=", input.sid)
    .where("g.merchant_account_id", "=", input.sub);
}
export const grantCheck = new CompiledStatement(["sid", "sub"], grantCheckQuery);

/** The Admin API's: the session, its admin and the admin's integration. */
export function adminCheckQuery(db: Kysely<Database>, input: { sid: string; sub: string }) {
  return db
    .selectFrom("admin_sessions as s")
    .innerJoin("admin_users as a", "a.id", "s.admin_user_id")
    .leftJoin("integration_clients as c", "c.id", "a.integration_client_id")
    .select(["s.revoked_at", "s.expires_at", "a.role", "a.integration_client_id", "a.email", "a.password_change_required", "c.clock_offset_ms"])
    .where("s.id", "=", input.sid)
    .where("a.id", "=", input.sub);
}
export const adminCheck = new CompiledStatement(["sid", "sub"], adminCheckQuery);

export type Authentication<Caller> = { caller: Caller } | { refused: DomainError };

export function bearerToken(authorization: string | string[] | undefined): string | undefined {
  if (typeof authorization !== "string") return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1];
}

const refusedAsMerchant = {
  unauthorized: () => ({ refused: new DomainError("InvalidMerchantToken", "Unauthorized") }),
  missingData: () => ({ refused: new DomainError("MissingAuthenticationData", "Bad request: Missing required authentication data") }),
  clientNotFound: () => ({ refused: new DomainError("IntegrationClientNotFound", "Integration client not found") }),
  notLinked: () => ({ refused: new DomainError("NotAuthorizedAsUserOfIntegrationClient", "Not authorized as user of integration client") }),
};

/** The Integration API's token check, with its documented plain-text refusals. */
export async function authenticateMerchant(
  db: Kysely<Database>,
  tokens: TokenService,
  cache: TokenCheckCache,
  authorization: string | string[] | undefined,
): Promise<Authentication<MerchantCaller>> {
  const token = bearerToken(authorization);
  if (!token) return refusedAsMerchant.unauthorized();
  const claims = await tokens.verify(token);
  if (!claims || claims.aud === ADMIN_AUDIENCE || (claims.token_use !== undefined && claims.token_use !== "merchant")) return refusedAsMerchant.unauthorized();
  const { sub, aud, sid } = claims;
  if (typeof sub !== "string" || !isUuid(sub) || typeof aud !== "string" || typeof sid !== "string" || !isUuid(sid) || claims.role !== "MERCHANT") {
    return refusedAsMerchant.missingData();
  }
  const row = await cache.read(`merchant ${aud} ${sub} ${sid}`, () => merchantCheck.executeTakeFirst(db, { aud, sub, sid }));
  if (!row) return refusedAsMerchant.clientNotFound();
  if (!row.grantId || row.revoked_at !== null) return refusedAsMerchant.unauthorized();
  // A suspended or closed account gets the answer of an account its integration may no longer use.
  if (!row.linkId || row.unlinked_at !== null || row.status !== "active") return refusedAsMerchant.notLinked();
  return {
    caller: {
      kind: "merchant",
      merchantAccountId: sub,
      integrationClientId: row.clientId,
      providerClientId: aud,
      integrationName: row.name,
      linkId: row.linkId,
      grantId: sid,
      clockOffsetMs: Number(row.clock_offset_ms),
    },
  };
}

/** A merchant idToken that is genuine, unexpired and not revoked, whatever its link (the Auth API). */
export async function authenticateMerchantToken(
  db: Kysely<Database>,
  tokens: TokenService,
  cache: TokenCheckCache,
  authorization: string | string[] | undefined,
): Promise<Authentication<MerchantTokenHolder>> {
  // Made only for a refusal: an error's stack costs every accepted request otherwise.
  const unauthorized = () => ({ refused: new DomainError("UnauthorizedError", "A valid merchant idToken is required (Authorization: Bearer <idToken>)") });
  const token = bearerToken(authorization);
  const claims = token ? await tokens.verify(token) : undefined;
  if (claims?.token_use !== "merchant" || typeof claims.sub !== "string" || !isUuid(claims.sub) || typeof claims.sid !== "string" || !isUuid(claims.sid))
    return unauthorized();
  const { sid, sub } = claims;
  const grant = await cache.read(`grant ${sid} ${sub}`, () => grantCheck.executeTakeFirst(db, { sid, sub }));
  if (!grant || grant.revoked_at !== null || grant.status !== "active") return unauthorized();
  return { caller: { kind: "merchant-token", merchantAccountId: claims.sub, grantId: claims.sid } };
}

/**
 * The Admin API's token check: an admin token of a live session, with the role the operation needs. An
 * admin still on a temporary password may only change it (the Auth API's change-password passes
 * `forPasswordChange`); anything else answers 403 PasswordChangeRequiredError.
 */
export async function authenticateAdmin(
  db: Kysely<Database>,
  tokens: TokenService,
  cache: TokenCheckCache,
  authorization: string | string[] | undefined,
  requiredRole: AdminCaller["role"] | undefined,
  options: { forPasswordChange?: boolean } = {},
): Promise<Authentication<AdminCaller>> {
  // Made only for a refusal: an error's stack costs every accepted request otherwise.
  const unauthorized = () => ({
    refused: new DomainError("UnauthorizedError", "A valid admin idToken is required (Authorization: Bearer <idToken> from POST /integration/admin/login)"),
  });
  const token = bearerToken(authorization);
  const claims = token ? await tokens.verify(token) : undefined;
  if (
    claims?.token_use !== "admin" ||
    claims.aud !== ADMIN_AUDIENCE ||
    typeof claims.sub !== "string" ||
    !isUuid(claims.sub) ||
    typeof claims.sid !== "string" ||
    !isUuid(claims.sid)
  ) {
    return unauthorized();
  }
  const { sid, sub } = claims;
  const session = await cache.read(`admin ${sid} ${sub}`, () => adminCheck.executeTakeFirst(db, { sid, sub }));
  if (!session || session.revoked_at !== null) return unauthorized();
  if (session.password_change_required && !options.forPasswordChange) {
    return {
      refused: new DomainError("PasswordChangeRequiredError", "Signed in with a temporary password: change it first (POST /integration/admin/change-password)"),
    };
  }
  if (requiredRole && session.role !== requiredRole) {
    return { refused: new DomainError("ForbiddenError", `This operation needs the ${requiredRole} role`) };
  }
  return {
    caller: {
      kind: "admin",
      adminUserId: claims.sub,
      sessionId: claims.sid,
      role: session.role,
      integrationClientId: session.integration_client_id,
      email: session.email,
      clockOffsetMs: Number(session.clock_offset_ms ?? 0),
    },
  };
}
