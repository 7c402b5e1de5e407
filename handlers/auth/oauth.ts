// The Auth API's OAuth operations: the authorization screen, the code exchange, refresh, revocation, and
// the merchant's client-info.
import type { operations } from "../../generated/types/auth.ts";
import { DomainError, type ErrorCode } from "../../domain/errors.ts";
import {
  authorizationClient,
  completeSignIn,
  exchangeCode,
  refreshIdToken,
  revokeToken as revoke,
  signOutDestination,
  startAuthorization,
  type TokenSet,
} from "../../domain/sign-in/oauth.ts";
import type { HandlerContext, Services } from "../handler-types.ts";
import { integrationLogosBaseUrl } from "./logos.ts";
import { renderSignInPage, renderSignedOutPage } from "../pages/sign-in-page.ts";
import { retryAfterHeader, tooManyAttemptsText, tooManyAttemptsWait } from "../pages/too-many-attempts.ts";
import { describeOffer, offerOf } from "../../domain/commissions/offer.ts";
import { merchantNameAndEmail } from "../../domain/merchants/merchant-users.ts";
import { cspOrigin } from "../../domain/browser-urls.ts";
import type { Handler } from "./handler.ts";

const CSRF_COOKIE = "cobro_csrf";
const CLEAR_CSRF_COOKIE = { "Set-Cookie": `${CSRF_COOKIE}=; Path=/integration/oauth2; HttpOnly; SameSite=Strict; Max-Age=0` };
const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" };

/**
 * The screen's headers: its forms post only to Cobro and the client's redirect origins (those whose host
 * has a host's shape, so that none adds a directive); images come from https, data: or Cobro's stored logos.
 */
function pageHeaders(services: Services, redirectUris: string[]): Record<string, string> {
  const formTargets = redirectUris.flatMap((uri) => cspOrigin(uri) ?? []);
  return {
    ...NO_STORE,
    "Content-Security-Policy": `default-src 'none'; style-src 'unsafe-inline'; img-src ${integrationLogosBaseUrl(services.config.publicUrls.auth)}/ https: data:; form-action 'self' ${formTargets.join(" ")}; frame-ancestors 'none'; base-uri 'none'`,
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
  };
}

export const authorize: Handler<"authorize"> = async ({ query, services }) => {
  const { transaction, csrf, client } = await startAuthorization(services.db, services.clock, {
    responseType: query.response_type ?? query.responseType,
    clientId: query.client_id ?? query.clientId,
    redirectUri: query.redirect_uri ?? query.redirectUri,
    state: query.state,
    scope: query.scope,
    codeChallenge: query.code_challenge,
    codeChallengeMethod: query.code_challenge_method,
  });
  const secure = services.config.publicUrls.auth.startsWith("https:") ? "; Secure" : "";
  return {
    status: 200,
    body: renderSignInPage({ integrationName: client.name, logoUrl: client.logo_url, fee: describeOffer(offerOf(client)), transaction, csrf }),
    headers: {
      ...pageHeaders(services, client.redirect_uris),
      "Set-Cookie": `${CSRF_COOKIE}=${csrf}; Path=/integration/oauth2; HttpOnly; SameSite=Strict; Max-Age=1800${secure}`,
    },
  };
};

/** The refusals the sign-in screen shows on the page again, with their documented statuses. */
const SIGN_IN_REFUSALS: Partial<Record<ErrorCode, 400 | 401 | 403 | 429>> = {
  InvalidGrantError: 400,
  InvalidCredentialsError: 401,
  SignInFormExpiredError: 403,
  MerchantAccountNotActiveError: 403,
  TooManyAttemptsError: 429,
};

export const completeLogin: Handler<"completeLogin", 400 | 401 | 403 | 429> = async ({ body, headers, services, clientAddress }) => {
  const csrfCookie = cookie(headers.cookie, CSRF_COOKIE);
  try {
    const { redirectTo } = await completeSignIn(services.db, services.clock, services.credentialThrottle, { ...body, csrfCookie, clientAddress });
    return { status: 303, headers: { ...NO_STORE, Location: redirectTo, ...CLEAR_CSRF_COOKIE } };
  } catch (error) {
    const status = error instanceof DomainError ? SIGN_IN_REFUSALS[error.code] : undefined;
    if (!status || !(error instanceof DomainError)) throw error;
    // The screen again, with the refusal on it; the same transaction lets the merchant try again.
    const wait = tooManyAttemptsWait(error);
    const client = await authorizationClient(services.db, body.transaction);
    const page = renderSignInPage({
      integrationName: client?.name ?? "la aplicación",
      logoUrl: client?.logo_url ?? null,
      fee: client ? describeOffer(offerOf(client)) : undefined,
      transaction: body.transaction,
      csrf: body.csrf,
      email: body.email,
      error: { code: error.code, message: wait !== undefined ? tooManyAttemptsText(wait) : error.message },
    });
    return { status, body: page, headers: { ...pageHeaders(services, client?.redirect_uris ?? []), ...(wait !== undefined ? retryAfterHeader(wait) : {}) } };
  }
};

/**
 * The screen keeps no signed-in state between authorizations; signing out clears what it keeps in the
 * browser (the sign-in form's CSRF cookie), then goes to a registered logout URL or says it is done.
 */
export const logout: Handler<"logout", 302> = async ({ query, services }) => {
  const { integrationName, redirectTo } = await signOutDestination(services.db, { clientId: query.client_id, logoutUri: query.logout_uri });
  if (redirectTo !== null) return { status: 302, headers: { ...NO_STORE, ...CLEAR_CSRF_COOKIE, Location: redirectTo } };
  return { status: 200, body: renderSignedOutPage(integrationName), headers: { ...pageHeaders(services, []), ...CLEAR_CSRF_COOKIE } };
};

function cookie(header: string | string[] | undefined, name: string): string | undefined {
  const text = Array.isArray(header) ? header.join("; ") : (header ?? "");
  for (const part of text.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return rest.join("=");
  }
  return undefined;
}

function isForm(headers: HandlerContext<unknown, unknown>["headers"]): boolean {
  return String(headers["content-type"] ?? "")
    .toLowerCase()
    .startsWith("application/x-www-form-urlencoded");
}

/** RFC 6749 §2.3.1: client credentials in HTTP Basic (form-urlencoded inside) or in the form, not both. */
function formClientCredentials(
  headers: HandlerContext<unknown, unknown>["headers"],
  body: { client_id?: string; client_secret?: string },
): { clientId: string; clientSecret: string } {
  const authorization = typeof headers.authorization === "string" ? headers.authorization : "";
  const basic = /^Basic\s+(\S+)$/i.exec(authorization);
  if (basic) {
    if (body.client_secret !== undefined) throw new DomainError("InvalidClientError", "Send the client credentials in HTTP Basic or in the form, not both");
    const decoded = Buffer.from(basic[1]!, "base64").toString("utf8");
    const separator = decoded.indexOf(":");
    if (separator < 0) throw new DomainError("InvalidClientError", "Malformed HTTP Basic credentials");
    return { clientId: decodeURIComponent(decoded.slice(0, separator)), clientSecret: decodeURIComponent(decoded.slice(separator + 1)) };
  }
  if (!body.client_id || !body.client_secret)
    throw new DomainError("InvalidClientError", "Client authentication is required (HTTP Basic or client_id and client_secret)");
  return { clientId: body.client_id, clientSecret: body.client_secret };
}

function documentedTokens(tokens: TokenSet) {
  return { idToken: tokens.idToken, refreshToken: tokens.refreshToken, tokenType: tokens.tokenType, expiresIn: tokens.expiresIn };
}

export const exchangeToken: Handler<"exchangeToken"> = async ({ body, headers, services, clientAddress }) => {
  const { db, clock, credentialThrottle, tokens } = services;
  if (!isForm(headers)) {
    const request = body as operations["exchangeToken"]["requestBody"]["content"]["application/json"];
    const set = await exchangeCode(db, clock, credentialThrottle, tokens, { ...request, clientAddress });
    return { status: 200, body: documentedTokens(set), headers: NO_STORE };
  }
  const form = body as operations["exchangeToken"]["requestBody"]["content"]["application/x-www-form-urlencoded"];
  const client = { ...formClientCredentials(headers, form), clientAddress };
  if (form.grant_type === "refresh_token") {
    if (!form.refresh_token) throw new DomainError("InvalidRequestError", "refresh_token is required");
    const refreshed = await refreshIdToken(db, clock, credentialThrottle, tokens, { ...client, refreshToken: form.refresh_token, scope: form.scope });
    return {
      status: 200,
      body: { access_token: refreshed.idToken, id_token: refreshed.idToken, token_type: "Bearer", expires_in: refreshed.expiresIn, scope: refreshed.scope },
      headers: NO_STORE,
    };
  }
  if (!form.code || !form.redirect_uri) throw new DomainError("InvalidRequestError", "code and redirect_uri are required");
  const set = await exchangeCode(db, clock, credentialThrottle, tokens, {
    ...client,
    code: form.code,
    redirectUri: form.redirect_uri,
    codeVerifier: form.code_verifier,
  });
  return {
    status: 200,
    body: {
      access_token: set.idToken,
      id_token: set.idToken,
      token_type: "Bearer",
      expires_in: set.expiresIn,
      refresh_token: set.refreshToken,
      scope: set.scope,
    },
    headers: NO_STORE,
  };
};

export const refreshToken: Handler<"refreshToken"> = async ({ body, services, clientAddress }) => {
  const refreshed = await refreshIdToken(services.db, services.clock, services.credentialThrottle, services.tokens, { ...body, clientAddress });
  return { status: 200, body: { idToken: refreshed.idToken, tokenType: refreshed.tokenType, expiresIn: refreshed.expiresIn }, headers: NO_STORE };
};

export const revokeToken: Handler<"revokeToken"> = async ({ body, headers, services, clientAddress }) => {
  if (isForm(headers)) {
    const form = body as operations["revokeToken"]["requestBody"]["content"]["application/x-www-form-urlencoded"];
    await revoke(services.db, services.clock, services.credentialThrottle, services.tokens, {
      ...formClientCredentials(headers, form),
      clientAddress,
      token: form.token,
    });
  } else {
    const request = body as operations["revokeToken"]["requestBody"]["content"]["application/json"];
    await revoke(services.db, services.clock, services.credentialThrottle, services.tokens, { ...request, clientAddress });
  }
  return { status: 200 };
};

export const getClientInfo: Handler<"getClientInfo"> = async ({ caller, services }) => {
  if (caller.kind !== "merchant-token") throw new DomainError("UnauthorizedError", "A merchant idToken is required");
  return { status: 200, body: await merchantNameAndEmail(services.db, caller.merchantAccountId) };
};
