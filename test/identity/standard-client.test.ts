// A standard OAuth 2.0 client, unchanged: arctic's OAuth2Client against the RFC 6749 side of the token
// endpoint (form-encoded, snake_case, client authentication by HTTP Basic, PKCE S256), then refresh and
// revocation through the same client. The merchant signs in over plain HTTP (test/helpers/oauth.ts); the
// browser test drives the real page, and authorization-code.test.ts covers the seed's JSON flow.
import { beforeAll, describe, expect, it } from "vitest";
import { CodeChallengeMethod, decodeIdToken, generateCodeVerifier, generateState, OAuth2Client, UnexpectedErrorResponseBodyError } from "arctic";
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

const generalError = (code: string) => ({ code, message: expect.any(String), id: expect.any(String) });

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

/** What arctic throws for a refusal: the seed's error body is not RFC 6749's `{error}`, so arctic hands it over as is. */
async function refusal(promise: Promise<unknown>): Promise<{ status: number; data: unknown }> {
  const error = await promise.then(
    () => expect.unreachable("the request was accepted"),
    (error: unknown) => error,
  );
  expect(error).toBeInstanceOf(UnexpectedErrorResponseBodyError);
  const { status, data } = error as UnexpectedErrorResponseBodyError;
  return { status, data };
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
    const { status, data } = await refusal(client.refreshAccessToken(endpoints.token, refreshToken, []));
    expect(status).toBe(400);
    expect(data).toEqual(generalError("InvalidGrantError"));
    expect((await me(refreshed.accessToken())).status).toBe(401); // what the refresh token gave is revoked with it
  });

  it("400 InvalidGrantError for a wrong code_verifier", async () => {
    const { code } = await authorize();
    const { status, data } = await refusal(client.validateAuthorizationCode(endpoints.token, code, generateCodeVerifier()));
    expect(status).toBe(400);
    expect(data).toEqual(generalError("InvalidGrantError"));
  });

  it("400 InvalidGrantError without the code_verifier when the authorization sent a challenge", async () => {
    const { code } = await authorize();
    const { status, data } = await refusal(client.validateAuthorizationCode(endpoints.token, code, null));
    expect(status).toBe(400);
    expect(data).toEqual(generalError("InvalidGrantError"));
  });

  it("401 InvalidClientError for a wrong client secret in HTTP Basic", async () => {
    const { code, codeVerifier } = await authorize();
    const wrong = new OAuth2Client(sandbox.integration.clientId, "cs_wrong", sandbox.integration.redirectUri);
    const { status, data } = await refusal(wrong.validateAuthorizationCode(endpoints.token, code, codeVerifier));
    expect(status).toBe(401);
    expect(data).toEqual(generalError("InvalidClientError"));
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

  it("401 InvalidClientError when HTTP Basic and the form both carry credentials", async () => {
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
    expect(result.json).toEqual(generalError("InvalidClientError"));
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
