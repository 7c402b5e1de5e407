// The OAuth authorization code flow of the seed, over real HTTP: the screen, the sign-in, the code
// exchange, GET /me, and every documented error of /authorize, the screen, /token, /refresh and /revoke.
import { beforeAll, describe, expect, it } from "vitest";
import { postJson, read, serviceForFile } from "../helpers/service.ts";
import { authorizeUrl, exchangeCode, linkedSandboxMerchant, obtainCode, openSignInForm, submitSignIn } from "../helpers/oauth.ts";
import type { SandboxCredentials } from "../../domain/sandbox/sandbox-bootstrap.ts";

const t = serviceForFile();
let sandbox: SandboxCredentials;

beforeAll(async () => {
  sandbox = await t.sandbox();
});

const generalError = (code: string) => ({ code, message: expect.any(String), id: expect.any(String) });

const exchange = (code: string, overrides: Record<string, string> = {}) => exchangeCode(t.authUrl, sandbox.integration, code, overrides);

const me = async (idToken: string) => read(await fetch(`${t.integrationUrl}/me`, { headers: { authorization: `Bearer ${idToken}` } }));

describe("the authorization code flow", () => {
  it("links the merchant and gives tokens that GET /me accepts", async () => {
    const form = await openSignInForm(
      authorizeUrl(t.authUrl, {
        response_type: "code",
        client_id: sandbox.integration.clientId,
        redirect_uri: sandbox.integration.redirectUri,
        state: "xyz 1/2",
      }),
    );
    expect(form.page).toContain(sandbox.integration.name);
    expect(form.page).toContain('lang="es"');
    const attempt = await submitSignIn(t.authUrl, form, sandbox.merchant.email, sandbox.merchant.password);
    expect(attempt.status).toBe(303);
    const location = new URL(attempt.location!);
    expect(`${location.origin}${location.pathname}`).toBe(sandbox.integration.redirectUri);
    expect(location.searchParams.get("state")).toBe("xyz 1/2");

    const tokens = await exchange(location.searchParams.get("code")!);
    expect(tokens.status).toBe(200);
    expect(tokens.json).toEqual({ idToken: expect.any(String), refreshToken: expect.any(String), tokenType: "Bearer", expiresIn: 3600 });
    expect(tokens.headers.get("cache-control")).toBe("no-store");

    const identity = await me(tokens.json.idToken);
    expect(identity.status).toBe(200);
    expect(identity.json).toEqual(linkedSandboxMerchant(sandbox));

    const info = await read(await fetch(`${t.authUrl}/integration/oauth2/client-info`, { headers: { authorization: `Bearer ${tokens.json.idToken}` } }));
    expect(info.json).toEqual({ name: "Almacén de Prueba", email: sandbox.merchant.email });
  });

  it("accepts the camelCase aliases on /authorize", async () => {
    const form = await openSignInForm(
      authorizeUrl(t.authUrl, { responseType: "code", clientId: sandbox.integration.clientId, redirectUri: sandbox.integration.redirectUri }),
    );
    // The form carries the request, and signing in with it sends the browser to the registered redirect_uri.
    const signedIn = await submitSignIn(t.authUrl, form, sandbox.merchant.email, sandbox.merchant.password);
    expect(signedIn.status).toBe(303);
    expect(new URL(signedIn.location!).searchParams.get("code")).toMatch(/^ac_/);
  });

  it("publishes the signing keys and the OpenID metadata", async () => {
    const jwks = await read(await fetch(`${t.authUrl}/.well-known/jwks.json`));
    expect(jwks.json.keys[0]).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig", kid: expect.any(String) });
    expect(jwks.json.keys[0]).not.toHaveProperty("d");
    const discovery = await read(await fetch(`${t.authUrl}/.well-known/openid-configuration`));
    expect(discovery.json).toMatchObject({ issuer: "http://auth.cobro.test", code_challenge_methods_supported: ["S256"] });
  });
});

describe("/authorize errors", () => {
  const base = () => ({ response_type: "code", client_id: sandbox.integration.clientId, redirect_uri: sandbox.integration.redirectUri });

  it.each([["client_id"], ["redirect_uri"], ["response_type"]])("400 InvalidRequestError without %s", async (missing) => {
    const params: Record<string, string | undefined> = { ...base(), [missing]: undefined };
    const result = await read(await fetch(authorizeUrl(t.authUrl, params), { redirect: "manual" }));
    expect(result.status).toBe(400);
    expect(result.json).toEqual(generalError("InvalidRequestError"));
  });

  it.each([
    ["a trailing slash", `${"http://localhost:8080/callback"}/`],
    ["another protocol", "https://localhost:8080/callback"],
    ["another path", "http://localhost:8080/callback2"],
  ])("400 InvalidRequestError for a redirect_uri with %s, never redirecting", async (_what, redirectUri) => {
    const result = await read(await fetch(authorizeUrl(t.authUrl, { ...base(), redirect_uri: redirectUri }), { redirect: "manual" }));
    expect(result.status).toBe(400);
    expect(result.headers.get("location")).toBeNull();
    expect(result.json).toEqual(generalError("InvalidRequestError"));
  });

  it("400 InvalidRequestError for a PKCE challenge without its method (plain is not accepted)", async () => {
    const challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
    const result = await read(await fetch(authorizeUrl(t.authUrl, { ...base(), code_challenge: challenge })));
    expect(result.status).toBe(400);
    expect(result.json).toEqual(generalError("InvalidRequestError"));
    const plain = await read(await fetch(authorizeUrl(t.authUrl, { ...base(), code_challenge: challenge, code_challenge_method: "plain" })));
    expect(plain.status).toBe(400);
  });

  it("401 InvalidClientError for a client_id this environment does not know", async () => {
    const result = await read(await fetch(authorizeUrl(t.authUrl, { ...base(), client_id: "cli_from_production" })));
    expect(result.status).toBe(401);
    expect(result.json).toEqual(generalError("InvalidClientError"));
  });
});

describe("the authorization screen's errors", () => {
  const open = () =>
    openSignInForm(authorizeUrl(t.authUrl, { response_type: "code", client_id: sandbox.integration.clientId, redirect_uri: sandbox.integration.redirectUri }));

  it("400 InvalidGrantError, shown on the page, for an email with no merchant account", async () => {
    const attempt = await submitSignIn(t.authUrl, await open(), "nobody@example.com", "whatever-password");
    expect(attempt.status).toBe(400);
    expect(attempt.page).toContain('data-code="InvalidGrantError"');
    expect(attempt.page).toContain("No encontramos una cuenta de comercio con ese email.");
  });

  it("400 InvalidGrantError for an admin's email (admins do not sign in here)", async () => {
    const attempt = await submitSignIn(t.authUrl, await open(), sandbox.integrationAdmin.email, sandbox.integrationAdmin.password);
    expect(attempt.status).toBe(400);
    expect(attempt.page).toContain('data-code="InvalidGrantError"');
  });

  it("401 InvalidCredentialsError, shown on the page, for a wrong password; the same form can be retried", async () => {
    const form = await open();
    const wrong = await submitSignIn(t.authUrl, form, sandbox.merchant.email, "wrong-password");
    expect(wrong.status).toBe(401);
    expect(wrong.page).toContain('data-code="InvalidCredentialsError"');
    const right = await submitSignIn(t.authUrl, form, sandbox.merchant.email, sandbox.merchant.password);
    expect(right.status).toBe(303);
  });

  it("403 when the CSRF cookie is missing (a form posted from elsewhere)", async () => {
    const form = await open();
    const attempt = await submitSignIn(t.authUrl, { transaction: form.transaction, csrf: form.csrf }, sandbox.merchant.email, sandbox.merchant.password);
    expect(attempt.status).toBe(403);
    expect(attempt.page).toContain('data-code="SignInFormExpiredError"');
  });
});

describe("/token errors", () => {
  const client = () => ({ clientId: sandbox.integration.clientId, redirectUri: sandbox.integration.redirectUri });

  it("401 InvalidClientError for a wrong clientSecret", async () => {
    const code = await obtainCode(t.authUrl, client(), sandbox.merchant);
    const result = await exchange(code, { clientSecret: "cs_wrong" });
    expect(result.status).toBe(401);
    expect(result.json).toEqual(generalError("InvalidClientError"));
  });

  it("400 InvalidGrantError for a used code, and the tokens it produced are revoked", async () => {
    const code = await obtainCode(t.authUrl, client(), sandbox.merchant);
    const first = await exchange(code);
    expect((await me(first.json.idToken)).status).toBe(200);
    const again = await exchange(code);
    expect(again.status).toBe(400);
    expect(again.json).toEqual(generalError("InvalidGrantError"));
    const after = await me(first.json.idToken);
    expect(after.status).toBe(401);
    const refresh = await read(
      await postJson(`${t.authUrl}/integration/oauth2/refresh`, {
        grantType: "refresh_token",
        refreshToken: first.json.refreshToken,
        clientId: sandbox.integration.clientId,
        clientSecret: sandbox.integration.clientSecret,
      }),
    );
    expect(refresh.status).toBe(400);
  });

  it("400 InvalidGrantError for a code older than 10 minutes", async () => {
    const code = await obtainCode(t.authUrl, client(), sandbox.merchant);
    t.clock.advance(10 * 60 * 1000 + 1000);
    const result = await exchange(code);
    expect(result.status).toBe(400);
    expect(result.json).toEqual(generalError("InvalidGrantError"));
  });

  it("400 InvalidGrantError for a different redirectUri", async () => {
    const code = await obtainCode(t.authUrl, client(), sandbox.merchant);
    const result = await exchange(code, { redirectUri: "http://localhost:8080/other" });
    expect(result.status).toBe(400);
    expect(result.json).toEqual(generalError("InvalidGrantError"));
  });

  it("400 InvalidGrantError for a code of another clientId", async () => {
    const other = await t.sandbox();
    const code = await obtainCode(t.authUrl, other.integration, other.merchant);
    const result = await exchange(code);
    expect(result.status).toBe(400);
    expect(result.json).toEqual(generalError("InvalidGrantError"));
  });

  it("500 IntegrationSetupError when the link cannot be completed, and the code stays consumed", async () => {
    // A Sandbox test account belongs to one integration: signing it in to another cannot complete the link.
    const other = await t.sandbox();
    const adminLogin = await read(await postJson(`${t.authUrl}/integration/admin/login`, other.integrationAdmin));
    await fetch(`${t.adminUrl}/my-integration/test-tokens`, { method: "POST", headers: { authorization: `Bearer ${adminLogin.json.idToken}` } });
    const testMerchant = await t.database.db
      .selectFrom("merchant_accounts")
      .select("email")
      .where("test_for_integration_client_id", "is not", null)
      .executeTakeFirstOrThrow();
    await t.database.db
      .updateTable("merchant_accounts")
      .set({ password_hash: await import("../../domain/secrets/hashing.ts").then((m) => m.hashSecret("test-merchant-pw")) })
      .where("email", "=", testMerchant.email)
      .execute();
    const code = await obtainCode(t.authUrl, client(), { email: testMerchant.email, password: "test-merchant-pw" });
    const result = await exchange(code);
    expect(result.status).toBe(500);
    expect(result.json).toEqual(generalError("IntegrationSetupError"));
    expect((await exchange(code)).status).toBe(400);
  });
});

describe("/refresh and /revoke", () => {
  async function tokens() {
    const code = await obtainCode(t.authUrl, sandbox.integration, sandbox.merchant);
    return (await exchange(code)).json as { idToken: string; refreshToken: string };
  }
  const refresh = (refreshToken: string, clientSecret = sandbox.integration.clientSecret) =>
    postJson(`${t.authUrl}/integration/oauth2/refresh`, {
      grantType: "refresh_token",
      refreshToken,
      clientId: sandbox.integration.clientId,
      clientSecret,
    }).then(read);
  const revoke = (token: string, clientSecret = sandbox.integration.clientSecret) =>
    postJson(`${t.authUrl}/integration/oauth2/revoke`, { token, tokenTypeHint: "refresh_token", clientId: sandbox.integration.clientId, clientSecret }).then(
      read,
    );

  it("gives a new idToken without a new refreshToken", async () => {
    const { refreshToken } = await tokens();
    t.clock.advance(2 * 3600 * 1000); // the first idToken has expired
    const result = await refresh(refreshToken);
    expect(result.status).toBe(200);
    expect(result.json).toEqual({ idToken: expect.any(String), tokenType: "Bearer", expiresIn: 3600 });
    expect((await me(result.json.idToken)).status).toBe(200);
  });

  it("401 InvalidClientError with a wrong clientSecret on /refresh and /revoke", async () => {
    const { refreshToken } = await tokens();
    for (const result of [await refresh(refreshToken, "cs_wrong"), await revoke(refreshToken, "cs_wrong")]) {
      expect(result.status).toBe(401);
      expect(result.json).toEqual(generalError("InvalidClientError"));
    }
  });

  it("revokes: 200 with no body, then /refresh is 400 InvalidGrantError and the idToken 401; the merchant stays linked", async () => {
    const { idToken, refreshToken } = await tokens();
    const revoked = await revoke(refreshToken);
    expect(revoked.status).toBe(200);
    expect(revoked.text).toBe("");
    const result = await refresh(refreshToken);
    expect(result.status).toBe(400);
    expect(result.json).toEqual(generalError("InvalidGrantError"));
    expect((await me(idToken)).status).toBe(401);
    const fresh = await tokens();
    expect((await me(fresh.idToken)).status).toBe(200);
  });

  it("400 InvalidGrantError for a refresh token that never existed", async () => {
    const result = await refresh("rt_made_up");
    expect(result.status).toBe(400);
    expect(result.json).toEqual(generalError("InvalidGrantError"));
  });

  // Last in the file: it moves the clock half a year.
  it("a refresh token refreshes for 180 days, then is 400 InvalidGrantError", async () => {
    const { refreshToken } = await tokens();
    t.clock.advance(180 * 24 * 3600 * 1000 - 1000);
    const lastSecond = await refresh(refreshToken);
    expect(lastSecond.status).toBe(200);
    expect((await me(lastSecond.json.idToken)).status).toBe(200);
    t.clock.advance(1000);
    const expired = await refresh(refreshToken);
    expect(expired.status).toBe(400);
    expect(expired.json).toEqual(generalError("InvalidGrantError"));
  });
});
