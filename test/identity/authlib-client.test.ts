// Authlib (PyPI, in .venv-test), a standard OAuth 2.0 client no one here wrote, at its defaults against the
// RFC 6749/7009 side of the Auth API, as the discovery document promises it: OAuth2Session with PKCE S256
// and HTTP Basic (client_secret_basic) exchanges the code, refreshes sending its `scope` (RFC 6749 §6), and
// revokes (RFC 7009), with and without `token_type_hint`; a refused refresh must reach it as an error
// (RFC 6749 §5.2's `error`), not be stored as its token. Authlib builds the authorization URL; the
// merchant's sign-in goes over plain HTTP here (test/helpers/oauth.ts), and the callback is handed back.
import { beforeAll, describe, expect, it } from "vitest";
import { read, serviceForFile } from "../helpers/service.ts";
import { linkedSandboxMerchant, openSignInForm, submitSignIn } from "../helpers/oauth.ts";
import { pythonWith, runPythonJson } from "../helpers/python-venv.ts";
import type { SandboxCredentials } from "../../domain/sandbox/sandbox-bootstrap.ts";

const t = serviceForFile();
let sandbox: SandboxCredentials;

beforeAll(async () => {
  sandbox = await t.sandbox();
});

/**
 * One step of Authlib's OAuth2Session, built as its documentation shows (scope, redirect_uri, PKCE S256,
 * nothing else): `authorize` answers the URL, state and verifier; `tokens` exchanges the callback, then
 * runs each of the given steps in turn, answering what each returned or the error it raised.
 */
const AUTHLIB = `
import json, sys
from authlib.common.security import generate_token
from authlib.integrations.requests_client import OAuth2Session
given = json.load(sys.stdin)

def session(**extra):
    return OAuth2Session(given["clientId"], given["clientSecret"], scope="openid email profile",
                         redirect_uri=given["redirectUri"], code_challenge_method="S256", **extra)

def outcome(step):
    try:
        result = step()
        if hasattr(result, "status_code"):
            return {"status": result.status_code, "body": result.text}
        return {"token": dict(result)}
    except Exception as error:
        return {"raised": type(error).__name__, "error": getattr(error, "error", None),
                "description": getattr(error, "description", None)}

if given["step"] == "authorize":
    verifier = generate_token(48)
    url, state = session().create_authorization_url(given["authorizeEndpoint"], code_verifier=verifier)
    print(json.dumps({"url": url, "state": state, "codeVerifier": verifier}))
else:
    client = session(state=given["state"])
    token = outcome(lambda: client.fetch_token(given["tokenEndpoint"], authorization_response=given["callback"],
                                               code_verifier=given["codeVerifier"]))
    steps = []
    for step in given["then"]:
        if step == "refresh":
            steps.append(outcome(lambda: client.refresh_token(given["tokenEndpoint"])))
        elif step == "revoke":
            steps.append(outcome(lambda: client.revoke_token(given["revokeEndpoint"])))
        elif step == "revoke-access-token":
            steps.append(outcome(lambda: client.revoke_token(given["revokeEndpoint"], token=client.token["access_token"],
                                                             token_type_hint="access_token")))
    print(json.dumps({"token": token, "steps": steps, "sessionToken": dict(client.token or {})}))
`;

type Outcome = { token?: Record<string, unknown>; status?: number; body?: string; raised?: string; error?: string | null; description?: string | null };

const me = async (accessToken: string) => read(await fetch(`${t.integrationUrl}/me`, { headers: { authorization: `Bearer ${accessToken}` } }));

/** Authlib's authorization URL, the merchant's sign-in on it, then Authlib's exchange of the callback and the steps after it. */
async function authlibFlow(python: string, then: string[]): Promise<{ token: Outcome; steps: Outcome[]; sessionToken: Record<string, unknown> }> {
  const given = {
    clientId: sandbox.integration.clientId,
    clientSecret: sandbox.integration.clientSecret,
    redirectUri: sandbox.integration.redirectUri,
    authorizeEndpoint: `${t.authUrl}/integration/oauth2/authorize`,
    tokenEndpoint: `${t.authUrl}/integration/oauth2/token`,
    revokeEndpoint: `${t.authUrl}/integration/oauth2/revoke`,
  };
  const start = await runPythonJson(python, AUTHLIB, { ...given, step: "authorize" });
  const url = new URL(start.url);
  expect(url.searchParams.get("code_challenge_method")).toBe("S256");
  expect(url.searchParams.get("scope")).toBe("openid email profile");
  const attempt = await submitSignIn(t.authUrl, await openSignInForm(start.url), sandbox.merchant.email, sandbox.merchant.password);
  expect(attempt.status, attempt.page).toBe(303);
  return runPythonJson(python, AUTHLIB, { ...given, step: "tokens", state: start.state, codeVerifier: start.codeVerifier, callback: attempt.location, then });
}

describe("Authlib's OAuth2Session at its defaults (PKCE S256, client_secret_basic)", () => {
  it("exchanges the code; refreshes sending its scope, and the new access token works", async (context) => {
    const python = await pythonWith("authlib, requests", (reason) => context.skip(reason));
    if (python === undefined) return;
    const flow = await authlibFlow(python, ["refresh"]);

    expect(flow.token.raised, JSON.stringify(flow.token)).toBeUndefined();
    const token = flow.token.token!;
    expect(token).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "openid email profile", refresh_token: expect.any(String) });
    const identity = await me(String(token.access_token));
    expect(identity.json, identity.text).toEqual(linkedSandboxMerchant(sandbox));

    const [refreshed] = flow.steps as [Outcome];
    expect(refreshed.raised, JSON.stringify(refreshed)).toBeUndefined();
    expect(refreshed.token).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "openid email profile", access_token: expect.any(String) });
    // Refresh tokens do not rotate: Authlib keeps the one it had.
    expect(refreshed.token!.refresh_token).toBe(token.refresh_token);
    expect((await me(String(refreshed.token!.access_token))).status).toBe(200);
  });

  it("revokes its refresh token (no hint); the refused refresh after it raises invalid_grant, and the session keeps its tokens", async (context) => {
    const python = await pythonWith("authlib, requests", (reason) => context.skip(reason));
    if (python === undefined) return;
    const flow = await authlibFlow(python, ["revoke", "refresh"]);
    const token = flow.token.token!;
    const [revoked, refusedRefresh] = flow.steps as [Outcome, Outcome];
    expect(revoked).toEqual({ status: 200, body: "" });
    expect((await me(String(token.access_token))).status).toBe(401);

    expect(refusedRefresh).toEqual({ raised: "OAuthError", error: "invalid_grant", description: expect.any(String) });
    // The session still holds the tokens it had, not an error body.
    expect(flow.sessionToken).toMatchObject({ access_token: token.access_token, refresh_token: token.refresh_token });
  });

  it("revokes an access token with token_type_hint=access_token (RFC 7009): the grant it belongs to ends", async (context) => {
    const python = await pythonWith("authlib, requests", (reason) => context.skip(reason));
    if (python === undefined) return;
    const flow = await authlibFlow(python, ["revoke-access-token", "refresh"]);
    const [revoked, refusedRefresh] = flow.steps as [Outcome, Outcome];
    expect(revoked).toEqual({ status: 200, body: "" });
    expect((await me(String(flow.token.token!.access_token))).status).toBe(401);
    expect(refusedRefresh).toMatchObject({ raised: "OAuthError", error: "invalid_grant" });
  });
});
