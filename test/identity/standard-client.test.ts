// A standard OAuth 2.0 client, unchanged: arctic's OAuth2Client against the RFC 6749 side of the token
// endpoint (form-encoded, snake_case, client authentication by HTTP Basic, PKCE S256), then refresh and
// revocation through the same client. The merchant signs in over plain HTTP (test/helpers/oauth.ts); the
// browser test drives the real page, and authorization-code.test.ts covers the seed's JSON flow.
import { beforeAll, describe, expect, it } from "vitest";
import { CodeChallengeMethod, decodeIdToken, generateCodeVerifier, generateState, OAuth2Client, OAuth2RequestError } from "arctic";
import { read, serviceForFile } from "../helpers/service.ts";
import { linkedSandboxMerchant, openSignInForm, submitSignIn } from "../helpers/oauth.ts";
import type { SandboxCredentials } from "../../domain/sandbox/sandbox-bootstrap.ts";

const t = serviceForFile();
let sandbox: SandboxCredentials;
let client: OAuth2Client;
let endpoints: { authorize: string; token: string; revoke: string };

beforeAll(async () => {
  sandbox = await t.sandbox();
  client = new OAuth2Client(sandbox.integration.clientId, sandbox.integration.clientSecret, sandbox.integration.redirectUri);
  endpoints = {
    authorize: `${t.authUrl}/integration/oauth2/authorize`,
    token: `${t.authUrl}/integration/oauth2/token`,
    revoke: `${t.authUrl}/integration/oauth2/revoke`,
  };
});

/** RFC 6749 §5.2's error body, with Cobro's code alongside. */
const oauthError = (error: string, code: string) => ({ error, error_description: expect.any(String), code, id: expect.any(String) });

const me = async (accessToken: string) => read(await fetch(`${t.integrationUrl}/me`, { headers: { authorization: `Bearer ${accessToken}` } }));

/** The authorization URL as arctic builds it (with PKCE S256), the merchant's sign-in, the code. */
async function authorize(): Promise<{ code: string; codeVerifier: string }> {
  const state = generateState();
  const codeVerifier = generateCodeVerifier();
  const url = client.createAuthorizationURLWithPKCE(endpoints.authorize, state, CodeChallengeMethod.S256, codeVerifier, ["openid", "email", "profile"]);
  expect(url.searchParams.get("code_challenge_method")).toBe("S256");
  const attempt = await submitSignIn(t.authUrl, await openSignInForm(url.toString()), sandbox.merchant.email, sandbox.merchant.password);
  expect(attempt.status, attempt.page).toBe(303);
  const location = new URL(attempt.location!);
  expect(`${location.origin}${location.pathname}`).toBe(sandbox.integration.redirectUri);
  expect(location.searchParams.get("state")).toBe(state);
  return { code: location.searchParams.get("code")!, codeVerifier };
}

/** What arctic throws for a refusal: an OAuth2RequestError, read from RFC 6749's `error` and `error_description`. */
async function refusal(promise: Promise<unknown>): Promise<{ code: string; description: string | null }> {
  const error = await promise.then(
    () => expect.unreachable("the request was accepted"),
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(OAuth2RequestError);
  const { code, description } = error as OAuth2RequestError;
  return { code, description };
}

describe("arctic's OAuth2Client with PKCE S256 and HTTP Basic", () => {
  it("exchanges the code; the access token works as Bearer on GET /me", async () => {
    const { code, codeVerifier } = await authorize();
    const tokens = await client.validateAuthorizationCode(endpoints.token, code, codeVerifier);
    expect(tokens.tokenType()).toBe("Bearer");
    expect(tokens.accessTokenExpiresInSeconds()).toBe(3600);
    expect(tokens.hasRefreshToken()).toBe(true);
    expect(tokens.scopes()).toEqual(["openid", "email", "profile"]);
    expect(tokens.idToken()).toBe(tokens.accessToken());
    expect(decodeIdToken(tokens.idToken())).toMatchObject({ aud: sandbox.integration.clientId, sub: sandbox.merchant.merchantUserId });

    const identity = await me(tokens.accessToken());
    expect(identity.status, identity.text).toBe(200);
    expect(identity.json).toEqual(linkedSandboxMerchant(sandbox));
  });

  it("refreshes to a new access token (the refresh token is not rotated); after revocation the refresh fails", async () => {
    const { code, codeVerifier } = await authorize();
    const tokens = await client.validateAuthorizationCode(endpoints.token, code, codeVerifier);
    const refreshToken = tokens.refreshToken();

    t.clock.advance(3600 * 1000 + 1000); // the first access token has expired
    expect((await me(tokens.accessToken())).status).toBe(401);
    const refreshed = await client.refreshAccessToken(endpoints.token, refreshToken, []);
    expect(refreshed.tokenType()).toBe("Bearer");
    expect(refreshed.accessTokenExpiresInSeconds()).toBe(3600);
    expect(refreshed.hasRefreshToken()).toBe(false);
    expect(refreshed.accessToken()).not.toBe(tokens.accessToken());
    expect((await me(refreshed.accessToken())).status).toBe(200);

    await client.revokeToken(endpoints.revoke, refreshToken);
    const refused = await refusal(client.refreshAccessToken(endpoints.token, refreshToken, []));
    expect(refused).toEqual({ code: "invalid_grant", description: expect.any(String) });
    expect((await me(refreshed.accessToken())).status).toBe(401); // what the refresh token gave is revoked with it
  });

  it("invalid_grant for a wrong code_verifier", async () => {
    const { code } = await authorize();
    expect((await refusal(client.validateAuthorizationCode(endpoints.token, code, generateCodeVerifier()))).code).toBe("invalid_grant");
  });

  it("invalid_grant without the code_verifier when the authorization sent a challenge", async () => {
    const { code } = await authorize();
    expect((await refusal(client.validateAuthorizationCode(endpoints.token, code, null))).code).toBe("invalid_grant");
  });

  it("invalid_client for a wrong client secret in HTTP Basic", async () => {
    const { code, codeVerifier } = await authorize();
    const wrong = new OAuth2Client(sandbox.integration.clientId, "cs_wrong", sandbox.integration.redirectUri);
    expect((await refusal(wrong.validateAuthorizationCode(endpoints.token, code, codeVerifier))).code).toBe("invalid_client");
  });
});

describe("client authentication on the form-encoded token endpoint", () => {
  const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`;
  const postForm = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(endpoints.token, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json", ...headers },
      body: new URLSearchParams(form).toString(),
    }).then(read);

  it("401 invalid_client, with WWW-Authenticate, when HTTP Basic and the form both carry credentials", async () => {
    const { code, codeVerifier } = await authorize();
    const result = await postForm(
      {
        grant_type: "authorization_code",
        code,
        redirect_uri: sandbox.integration.redirectUri,
        code_verifier: codeVerifier,
        client_id: sandbox.integration.clientId,
        client_secret: sandbox.integration.clientSecret,
      },
      { authorization: basic(sandbox.integration.clientId, sandbox.integration.clientSecret) },
    );
    expect(result.status).toBe(401);
    expect(result.json).toEqual(oauthError("invalid_client", "InvalidClientError"));
    expect(result.headers.get("www-authenticate")).toBe('Basic realm="Cobro"');
  });

  it("accepts the credentials in the form alone (client_secret_post) with snake_case answers", async () => {
    const { code, codeVerifier } = await authorize();
    const result = await postForm({
      grant_type: "authorization_code",
      code,
      redirect_uri: sandbox.integration.redirectUri,
      code_verifier: codeVerifier,
      client_id: sandbox.integration.clientId,
      client_secret: sandbox.integration.clientSecret,
    });
    expect(result.status, result.text).toBe(200);
    expect(result.json).toEqual({
      access_token: expect.any(String),
      id_token: expect.any(String),
      token_type: "Bearer",
      expires_in: 3600,
      refresh_token: expect.any(String),
      scope: "openid email profile",
    });
    expect(result.headers.get("cache-control")).toBe("no-store");
    expect((await me(result.json.access_token)).status).toBe(200);
  });
});

describe("the RFC 6749 form's refusals and parameters", () => {
  const basicAuth = () => ({ authorization: `Basic ${Buffer.from(`${sandbox.integration.clientId}:${sandbox.integration.clientSecret}`).toString("base64")}` });
  const post = (url: string, form: Record<string, string>) =>
    fetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...basicAuth() },
      body: new URLSearchParams(form).toString(),
    }).then(read);
  const tokens = async () => {
    const { code, codeVerifier } = await authorize();
    return client.validateAuthorizationCode(endpoints.token, code, codeVerifier);
  };

  it("a refresh may narrow the scope; a scope never granted is invalid_scope", async () => {
    const refreshToken = (await tokens()).refreshToken();
    const narrowed = await post(endpoints.token, { grant_type: "refresh_token", refresh_token: refreshToken, scope: "openid email" });
    expect(narrowed.status, narrowed.text).toBe(200);
    expect(narrowed.json.scope).toBe("openid email");
    expect(decodeIdToken(narrowed.json.access_token)).toMatchObject({ scope: "openid email" });

    const wider = await post(endpoints.token, { grant_type: "refresh_token", refresh_token: refreshToken, scope: "openid payments" });
    expect(wider.status).toBe(400);
    expect(wider.json).toEqual(oauthError("invalid_scope", "InvalidScopeError"));
  });

  it("parameters it does not know are ignored (RFC 6749 §3.2); an unknown grant_type is unsupported_grant_type; a missing parameter invalid_request", async () => {
    const refreshToken = (await tokens()).refreshToken();
    const extra = await post(endpoints.token, { grant_type: "refresh_token", refresh_token: refreshToken, resource: "https://api.example", audience: "x" });
    expect(extra.status, extra.text).toBe(200);

    const password = await post(endpoints.token, { grant_type: "password", username: "a", password: "b" });
    expect(password.status).toBe(400);
    expect(password.json).toEqual(oauthError("unsupported_grant_type", "ValidationError"));

    const missing = await post(endpoints.token, { grant_type: "refresh_token" });
    expect(missing.status).toBe(400);
    expect(missing.json).toEqual(oauthError("invalid_request", "InvalidRequestError"));
  });

  it("revocation takes every token_type_hint (RFC 7009 §2.1) and unknown parameters", async () => {
    for (const hint of ["access_token", "refresh_token", "id_token", "something_else"]) {
      const revoked = await post(endpoints.revoke, { token: (await tokens()).refreshToken(), token_type_hint: hint, extra: "1" });
      expect(revoked.status, `${hint}: ${revoked.text}`).toBe(200);
    }
    const refused = await post(endpoints.revoke, { token_type_hint: "access_token" });
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual(oauthError("invalid_request", "ValidationError"));
  });

  it("the seed's JSON endpoints keep their shapes", async () => {
    const refused = await read(
      await fetch(`${t.authUrl}/integration/oauth2/refresh`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          grantType: "refresh_token",
          refreshToken: "rt_unknown",
          clientId: sandbox.integration.clientId,
          clientSecret: sandbox.integration.clientSecret,
        }),
      }),
    );
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({ code: "InvalidGrantError", message: expect.any(String), id: expect.any(String) });
    const token = await read(
      await fetch(endpoints.token, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          grantType: "authorization_code",
          code: "ac_unknown",
          clientId: sandbox.integration.clientId,
          clientSecret: sandbox.integration.clientSecret,
          redirectUri: sandbox.integration.redirectUri,
          scope: "openid",
        }),
      }),
    );
    expect(token.status).toBe(400);
    expect(token.json).toMatchObject({ code: "ValidationError", validationDetails: [{ field: "scope", rule: "notAccepted" }] });
  });
});
