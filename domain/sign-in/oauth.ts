// OAuth 2.0 authorization code for merchant accounts (RFC 6749 with the RFC 9700 practices: exact
// redirect_uri match, single-use codes whose reuse revokes what they produced, PKCE S256, CSRF on the
// sign-in form, no open redirect). The portal admins' session is domain/sign-in/admin-session.ts.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Executor } from "../../db/transactions.ts";
import type { IntegrationClient } from "../../db/tables/integration-clients.table.ts";
import type { Clock } from "../clock.ts";
import { DomainError } from "../errors.ts";
import { isUuid } from "../ids.ts";
import { linkMerchant } from "../merchants/merchant-accounts.ts";
import type { Sealed } from "../../db/tables/sealed.ts";
import { burnVerification, constantTimeEqual, randomToken, sha256, sha256Base64Url } from "../secrets/hashing.ts";
import { storedText } from "../secrets/keyring.ts";
import { secretKeyring } from "../secrets/process-keyring.ts";
import { signInMerchantAccount } from "./merchant-credentials.ts";
import { clientSecretMatches } from "../integration-clients/client-secrets.ts";
import { ID_TOKEN_SECONDS, type TokenService } from "./tokens.ts";
import { throttledCheck, type CredentialThrottle } from "./credential-throttle.ts";

export const DEFAULT_SCOPE = "openid email profile";
const KNOWN_SCOPES = new Set(["openid", "email", "profile"]);
const CODE_SECONDS = 10 * 60;
const SIGN_IN_FORM_SECONDS = 30 * 60;
const REFRESH_TOKEN_DAYS = 180;
const DAY_MS = 24 * 3600 * 1000;

export interface TokenSet {
  idToken: string;
  refreshToken: string;
  tokenType: "Bearer";
  expiresIn: number;
  scope: string;
}

export interface AuthorizationParams {
  responseType?: string;
  clientId?: string;
  redirectUri?: string;
  state?: string;
  scope?: string;
  codeChallenge?: string;
  codeChallengeMethod?: string;
}

const invalidRequest = (message: string) => new DomainError("InvalidRequestError", message);
const invalidGrant = (message: string) => new DomainError("InvalidGrantError", message);
const invalidClient = () => new DomainError("InvalidClientError", "Unknown clientId or wrong clientSecret for this environment");

/**
 * A validated authorization request, as the sign-in form carries it: sealed (AES-256-GCM under the
 * deployment's key, bound to this use), so that nothing is stored before the merchant signs in and no
 * caller can alter it. Only a completed sign-in writes a row, which makes the request single-use.
 */
interface AuthorizationRequest {
  /** Random: the key of the completion row. */
  id: string;
  integrationClientId: string;
  redirectUri: string;
  state: string | null;
  scope: string;
  codeChallenge: string | null;
  /** SHA-256 of the form's CSRF token (the token itself is in the form and in its cookie). */
  csrfHash: string;
  expiresAt: string;
}

const AUTHORIZATION_REQUEST_PLACE = { table: "oauth_authorization_requests", column: "sealed_form", rowId: "authorization-request" };

function sealAuthorizationRequest(request: AuthorizationRequest): string {
  return storedText(secretKeyring().seal(JSON.stringify(request), AUTHORIZATION_REQUEST_PLACE));
}

/** The request a form carries; undefined for anything this deployment did not seal (altered, truncated, another deployment's). */
function openAuthorizationRequest(transaction: string): AuthorizationRequest | undefined {
  try {
    const request = JSON.parse(secretKeyring().open(transaction as unknown as Sealed, AUTHORIZATION_REQUEST_PLACE)) as AuthorizationRequest;
    return typeof request.id === "string" && typeof request.integrationClientId === "string" && typeof request.expiresAt === "string" ? request : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Validates an authorization request and opens a sign-in transaction (the sealed request). Nothing here
 * redirects: an error before the client and its redirect_uri are verified must never send the browser
 * anywhere; and nothing is written.
 */
export async function startAuthorization(
  db: Kysely<Database>,
  clock: Clock,
  params: AuthorizationParams,
): Promise<{ transaction: string; csrf: string; client: IntegrationClient }> {
  const missing = (["responseType", "clientId", "redirectUri"] as const).filter((name) => !params[name]);
  if (missing.length > 0) {
    const names = { responseType: "response_type", clientId: "client_id", redirectUri: "redirect_uri" };
    throw invalidRequest(`Missing ${missing.map((name) => names[name]).join(", ")}`);
  }
  const client = await db.selectFrom("integration_clients").selectAll().where("provider_client_id", "=", params.clientId!).executeTakeFirst();
  if (!client) throw new DomainError("InvalidClientError", "Unknown client_id in this environment");
  if (!client.redirect_uris.includes(params.redirectUri!)) {
    throw invalidRequest("redirect_uri is not identical to a URI registered for this client (protocol, domain, path and trailing slash must match)");
  }
  if (params.responseType !== "code") throw invalidRequest("response_type must be code");
  const scope = params.scope?.trim() || DEFAULT_SCOPE;
  const unknownScopes = scope.split(/\s+/).filter((s) => !KNOWN_SCOPES.has(s) && !client.scopes.includes(s));
  if (unknownScopes.length > 0) throw invalidRequest(`Unknown scope: ${unknownScopes.join(" ")}`);
  if (params.codeChallengeMethod !== undefined && params.codeChallengeMethod !== "S256") throw invalidRequest("code_challenge_method must be S256");
  if (params.codeChallenge !== undefined && !/^[A-Za-z0-9_-]{43,128}$/.test(params.codeChallenge))
    throw invalidRequest("code_challenge must be a base64url SHA-256 (43 to 128 characters)");
  if (params.codeChallengeMethod !== undefined && params.codeChallenge === undefined) throw invalidRequest("code_challenge_method without code_challenge");
  // RFC 7636 defaults a missing method to `plain`, which is not accepted: the method must be said.
  if (params.codeChallenge !== undefined && params.codeChallengeMethod === undefined)
    throw invalidRequest("code_challenge requires code_challenge_method=S256");

  const csrf = randomToken("", 24);
  const transaction = sealAuthorizationRequest({
    id: randomToken("tx_", 18),
    integrationClientId: client.id,
    redirectUri: params.redirectUri!,
    state: params.state ?? null,
    scope,
    codeChallenge: params.codeChallenge ?? null,
    csrfHash: sha256(csrf),
    expiresAt: new Date(clock.now().getTime() + SIGN_IN_FORM_SECONDS * 1000).toISOString(),
  });
  return { transaction, csrf, client };
}

/**
 * Where the authorization screen's sign-out sends the browser: the client's name to show, and the
 * `logoutUri` only when it is identical to one of the client's registered logout URLs (no open redirect).
 */
export async function signOutDestination(
  db: Kysely<Database>,
  input: { clientId: string; logoutUri?: string },
): Promise<{ integrationName: string; redirectTo: string | null }> {
  const client = await db.selectFrom("integration_clients").select(["name", "logout_urls"]).where("provider_client_id", "=", input.clientId).executeTakeFirst();
  if (!client) throw new DomainError("InvalidClientError", "Unknown client_id in this environment");
  if (input.logoutUri === undefined) return { integrationName: client.name, redirectTo: null };
  if (!client.logout_urls.includes(input.logoutUri)) {
    throw invalidRequest("logout_uri is not identical to a logout URL registered for this client (protocol, domain, path and trailing slash must match)");
  }
  return { integrationName: client.name, redirectTo: input.logoutUri };
}

export async function authorizationClient(db: Kysely<Database>, transaction: string): Promise<IntegrationClient | undefined> {
  const request = openAuthorizationRequest(transaction);
  if (!request) return undefined;
  return db.selectFrom("integration_clients").selectAll().where("id", "=", request.integrationClientId).executeTakeFirst();
}

/**
 * The merchant signs in on the authorization screen. The CSRF token must match both the transaction and
 * the cookie set with the form (double submit). Returns where to send the browser: the registered
 * redirect_uri with `code` and the unchanged `state`.
 */
export async function completeSignIn(
  db: Kysely<Database>,
  clock: Clock,
  throttle: CredentialThrottle,
  input: { transaction: string; csrf: string; csrfCookie: string | undefined; email: string; password: string; clientAddress: string },
): Promise<{ redirectTo: string }> {
  const now = clock.now();
  const request = openAuthorizationRequest(input.transaction);
  if (
    !request ||
    new Date(request.expiresAt) <= now ||
    !input.csrfCookie ||
    !constantTimeEqual(input.csrfCookie, input.csrf) ||
    !constantTimeEqual(sha256(input.csrf), request.csrfHash)
  ) {
    throw new DomainError("SignInFormExpiredError", "The sign-in form expired or was not sent by this browser. Start the authorization again.");
  }
  const merchant = await signInMerchantAccount(db, throttle, input);
  const code = randomToken("ac_");
  await db.transaction().execute(async (trx) => {
    // Completions outlive their request's expiry for nothing: one indexed delete keeps the table to the
    // sign-ins of the last 30 minutes.
    await trx.deleteFrom("oauth_authorization_requests").where("expires_at", "<=", now).execute();
    const completed = await trx
      .insertInto("oauth_authorization_requests")
      .values({
        id: request.id,
        integration_client_id: request.integrationClientId,
        redirect_uri: request.redirectUri,
        state: request.state,
        scope: request.scope,
        code_challenge: request.codeChallenge,
        csrf_hash: request.csrfHash,
        expires_at: new Date(request.expiresAt),
        completed_at: now,
      })
      .onConflict((conflict) => conflict.column("id").doNothing())
      .executeTakeFirst();
    if (Number(completed.numInsertedOrUpdatedRows ?? 0n) === 0)
      throw new DomainError("SignInFormExpiredError", "This sign-in was already completed. Start the authorization again.");
    await trx
      .insertInto("oauth_codes")
      .values({
        code_hash: sha256(code),
        integration_client_id: request.integrationClientId,
        merchant_account_id: merchant.id,
        redirect_uri: request.redirectUri,
        scope: request.scope,
        code_challenge: request.codeChallenge,
        expires_at: new Date(now.getTime() + CODE_SECONDS * 1000),
      })
      .execute();
  });
  const target = new URL(request.redirectUri);
  target.searchParams.set("code", code);
  if (request.state !== null) target.searchParams.set("state", request.state);
  return { redirectTo: target.toString() };
}

/** The client's credentials, checked in constant time whether or not the client exists; guessing is throttled per client_id and per address. */
export async function authenticateClient(
  db: Kysely<Database>,
  clock: Clock,
  throttle: CredentialThrottle,
  input: { clientId: string; clientSecret: string; clientAddress: string },
): Promise<IntegrationClient> {
  const { clientId, clientSecret, clientAddress } = input;
  return throttledCheck(throttle, { account: { scope: "client-id", id: clientId }, clientAddress }, () => checkClientSecret(db, clock, clientId, clientSecret));
}

async function checkClientSecret(db: Kysely<Database>, clock: Clock, clientId: string, clientSecret: string): Promise<IntegrationClient> {
  const client = await db.selectFrom("integration_clients").selectAll().where("provider_client_id", "=", clientId).executeTakeFirst();
  if (!client) {
    await burnVerification(clientSecret);
    throw invalidClient();
  }
  if (!(await clientSecretMatches(client, clientSecret, clock.now()))) throw invalidClient();
  return client;
}

export async function exchangeCode(
  db: Kysely<Database>,
  clock: Clock,
  throttle: CredentialThrottle,
  tokens: TokenService,
  input: { clientId: string; clientSecret: string; clientAddress: string; code: string; redirectUri: string; codeVerifier?: string },
): Promise<TokenSet> {
  const client = await authenticateClient(db, clock, throttle, input);
  const now = clock.now();
  const outcome = await db.transaction().execute(async (trx) => {
    const code = await trx.selectFrom("oauth_codes").selectAll().where("code_hash", "=", sha256(input.code)).forUpdate().executeTakeFirst();
    if (!code) return { error: invalidGrant("The code is invalid") };
    if (code.consumed_at !== null) {
      // A code presented twice was stolen or replayed: what it produced is revoked (RFC 9700 §4.2.1).
      if (code.grant_id)
        await trx.updateTable("oauth_grants").set({ revoked_at: now }).where("id", "=", code.grant_id).where("revoked_at", "is", null).execute();
      return { error: invalidGrant("The code was already used; the tokens it produced are revoked") };
    }
    if (code.integration_client_id !== client.id) return { error: invalidGrant("The code was issued to another clientId") };
    if (code.expires_at <= now) return { error: invalidGrant("The code expired (codes live 10 minutes)") };
    if (code.redirect_uri !== input.redirectUri) return { error: invalidGrant("redirectUri differs from the one sent to authorize") };
    if (code.code_challenge !== null) {
      if (!input.codeVerifier || !constantTimeEqual(sha256Base64Url(input.codeVerifier), code.code_challenge))
        return { error: invalidGrant("The PKCE code_verifier does not match the code_challenge") };
    } else if (input.codeVerifier) {
      return { error: invalidGrant("A code_verifier was sent but the authorization had no code_challenge") };
    }
    await trx.updateTable("oauth_codes").set({ consumed_at: now }).where("code_hash", "=", code.code_hash).execute();

    const merchant = await trx.selectFrom("merchant_accounts").selectAll().where("id", "=", code.merchant_account_id).executeTakeFirstOrThrow();
    if (merchant.test_for_integration_client_id !== null && merchant.test_for_integration_client_id !== client.id) {
      return {
        error: new DomainError(
          "IntegrationSetupError",
          "The link could not be completed: this Sandbox test account belongs to another integration. The code is consumed; authorize again with another account.",
        ),
      };
    }
    await linkMerchant(trx, client.id, merchant.id, now);
    const granted = await createGrant(trx, tokens, { client, merchant, scope: code.scope, now });
    await trx.updateTable("oauth_codes").set({ grant_id: granted.grantId }).where("code_hash", "=", code.code_hash).execute();
    return { tokens: granted.tokens };
  });
  // Refusals are returned, not thrown, so that what the transaction recorded (a consumed code, a revoked
  // grant) is committed before the error is answered.
  if ("error" in outcome && outcome.error) throw outcome.error;
  return (outcome as { tokens: TokenSet }).tokens;
}

/** A grant (its refresh token, 180 days) and the first idToken issued from it. */
async function createGrant(
  db: Executor,
  tokens: TokenService,
  input: { client: IntegrationClient; merchant: { id: string; email: string }; scope: string; now: Date },
): Promise<{ grantId: string; tokens: TokenSet }> {
  const { client, merchant, scope, now } = input;
  const refreshToken = randomToken("rt_");
  const grant = await db
    .insertInto("oauth_grants")
    .values({
      integration_client_id: client.id,
      merchant_account_id: merchant.id,
      refresh_token_hash: sha256(refreshToken),
      scope,
      created_at: now,
      expires_at: new Date(now.getTime() + REFRESH_TOKEN_DAYS * DAY_MS),
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  const idToken = await tokens.issueMerchantToken({
    merchantAccountId: merchant.id,
    providerClientId: client.provider_client_id,
    grantId: grant.id,
    scope,
    email: merchant.email,
  });
  return { grantId: grant.id, tokens: { idToken, refreshToken, tokenType: "Bearer", expiresIn: ID_TOKEN_SECONDS, scope } };
}

/** Mints merchant tokens for an account linked in the same transaction (Sandbox test tokens). */
export async function issueGrant(
  trx: Transaction<Database>,
  tokens: TokenService,
  client: IntegrationClient,
  merchant: { id: string; email: string },
  now: Date,
): Promise<TokenSet> {
  return (await createGrant(trx, tokens, { client, merchant, scope: DEFAULT_SCOPE, now })).tokens;
}

/** A new idToken for a refresh token (which does not rotate). */
export async function refreshIdToken(
  db: Kysely<Database>,
  clock: Clock,
  throttle: CredentialThrottle,
  tokens: TokenService,
  input: { clientId: string; clientSecret: string; clientAddress: string; refreshToken: string; scope?: string },
): Promise<{ idToken: string; tokenType: "Bearer"; expiresIn: number; scope: string }> {
  const client = await authenticateClient(db, clock, throttle, input);
  const grant = await db
    .selectFrom("oauth_grants as g")
    .innerJoin("merchant_accounts as m", "m.id", "g.merchant_account_id")
    .select(["g.id", "g.integration_client_id", "g.expires_at", "g.revoked_at", "g.scope", "m.id as merchant_id", "m.email", "m.status"])
    .where("g.refresh_token_hash", "=", sha256(input.refreshToken))
    .executeTakeFirst();
  if (!grant || grant.integration_client_id !== client.id || grant.revoked_at !== null || grant.expires_at <= clock.now()) {
    throw invalidGrant("The refresh token is revoked, expired or invalid: the merchant must authorize again");
  }
  if (grant.status !== "active") throw invalidGrant(`The merchant account is ${grant.status}: no new idToken while it is not active`);
  const scope = refreshedScope(grant.scope, input.scope);
  const idToken = await tokens.issueMerchantToken({
    merchantAccountId: grant.merchant_id,
    providerClientId: client.provider_client_id,
    grantId: grant.id,
    scope,
    email: grant.email,
  });
  return { idToken, tokenType: "Bearer", expiresIn: ID_TOKEN_SECONDS, scope };
}

/**
 * RFC 6749 §6: a refresh may ask for the scope granted or less (a client resends the scope it asked for),
 * never more; without one, the scope granted.
 */
function refreshedScope(granted: string, requested: string | undefined): string {
  const asked = requested?.trim().split(/\s+/).filter(Boolean) ?? [];
  if (asked.length === 0) return granted;
  const grantedScopes = granted.split(/\s+/);
  const beyond = asked.filter((scope) => !grantedScopes.includes(scope));
  if (beyond.length > 0) throw new DomainError("InvalidScopeError", `Scope not granted to this refresh token: ${beyond.join(" ")}`);
  return grantedScopes.filter((scope) => asked.includes(scope)).join(" ");
}

/**
 * Revokes a refresh token, or the grant behind an idToken, of this client. Unknown tokens are ignored
 * (RFC 7009): the answer does not tell whether a token existed. Revoking does not unlink the merchant.
 */
export async function revokeToken(
  db: Kysely<Database>,
  clock: Clock,
  throttle: CredentialThrottle,
  tokens: TokenService,
  input: { clientId: string; clientSecret: string; clientAddress: string; token: string },
): Promise<void> {
  const client = await authenticateClient(db, clock, throttle, input);
  const now = clock.now();
  const byRefresh = await db
    .updateTable("oauth_grants")
    .set({ revoked_at: now })
    .where("refresh_token_hash", "=", sha256(input.token))
    .where("integration_client_id", "=", client.id)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  if (byRefresh.numUpdatedRows > 0n) return;
  const claims = await tokens.verify(input.token);
  if (claims?.token_use === "merchant" && claims.aud === client.provider_client_id && typeof claims.sid === "string" && isUuid(claims.sid)) {
    await db
      .updateTable("oauth_grants")
      .set({ revoked_at: now })
      .where("id", "=", claims.sid)
      .where("integration_client_id", "=", client.id)
      .where("revoked_at", "is", null)
      .execute();
  }
}
