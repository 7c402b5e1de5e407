// The Integration API's token check (every common error of the seed, in plain text), the Admin API's
// (roles, merchant tokens refused), unlinking, and the Sandbox test tokens.
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { beforeAll, describe, expect, it } from "vitest";
import { importJWK, SignJWT, type JWK } from "jose";
import { postJson, read, serviceForFile, startTestService, TEST_SECRET_KEY } from "../helpers/service.ts";
import { SecretKeyring } from "../../domain/secrets/keyring.ts";
import { placeOf, SIGNING_KEY_PRIVATE_JWK } from "../../domain/secrets/sealed-columns.ts";
import type { SandboxCredentials } from "../../domain/sandbox/sandbox-bootstrap.ts";

const t = serviceForFile();
let sandbox: SandboxCredentials;

beforeAll(async () => {
  sandbox = await t.sandbox();
});

async function adminToken(credentials: { email: string; password: string }): Promise<string> {
  const login = await read(await postJson(`${t.authUrl}/integration/admin/login`, credentials));
  expect(login.status).toBe(200);
  return login.json.idToken;
}

async function testTokens(adminIdToken: string) {
  return read(await fetch(`${t.adminUrl}/my-integration/test-tokens`, { method: "POST", headers: { authorization: `Bearer ${adminIdToken}` } }));
}

const me = async (token: string | undefined) =>
  read(await fetch(`${t.integrationUrl}/me`, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } }));

/** A token signed with the service's own key, with the claims a test chooses. */
async function forgeToken(claims: Record<string, unknown>, audience: string): Promise<string> {
  const key = await t.database.db.selectFrom("signing_keys").selectAll().executeTakeFirstOrThrow();
  const now = Math.floor(t.clock.now().getTime() / 1000);
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "ES256", kid: key.kid })
    .setIssuer("http://auth.cobro.test")
    .setAudience(audience)
    .setIssuedAt(now)
    .setExpirationTime(now + 600)
    .sign(await importJWK(JSON.parse(SecretKeyring.parse(TEST_SECRET_KEY).open(key.private_jwk, placeOf(SIGNING_KEY_PRIVATE_JWK, key.kid))) as JWK, "ES256"));
}

function expectText(result: { status: number; headers: Headers; text: string }, status: number, text: string) {
  expect(result.status).toBe(status);
  expect(result.headers.get("content-type")).toMatch(/^text\/plain/);
  expect(result.text).toBe(text);
}

describe("the Integration API's token check", () => {
  it("401 without a token, with a malformed one, or with one signed by someone else", async () => {
    expectText(await me(undefined), 401, "Unauthorized");
    expectText(await me("not-a-jwt"), 401, "Unauthorized");
    const foreign = await new SignJWT({ token_use: "merchant" })
      .setProtectedHeader({ alg: "HS256" })
      .setIssuer("http://auth.cobro.test")
      .setAudience(sandbox.integration.clientId)
      .setExpirationTime("10m")
      .sign(new TextEncoder().encode("a-secret-of-nobody-here-at-all-000"));
    expectText(await me(foreign), 401, "Unauthorized");
  });

  it("401 for an expired idToken (1 hour)", async () => {
    const { json } = await testTokens(await adminToken(sandbox.integrationAdmin));
    expect((await me(json.idToken)).status).toBe(200);
    t.clock.advance(3600 * 1000 + 1000);
    expectText(await me(json.idToken), 401, "Unauthorized");
  });

  it("401 for an integration admin's token", async () => {
    expectText(await me(await adminToken(sandbox.integrationAdmin)), 401, "Unauthorized");
  });

  it("400 Bad request: Missing required authentication data, for a token without account, role or application", async () => {
    const grant = await t.database.db.selectFrom("oauth_grants").select(["id", "merchant_account_id"]).executeTakeFirstOrThrow();
    const withoutRole = await forgeToken({ token_use: "merchant", sub: grant.merchant_account_id, sid: grant.id }, sandbox.integration.clientId);
    expectText(await me(withoutRole), 400, "Bad request: Missing required authentication data");
    const withoutAccount = await forgeToken({ token_use: "merchant", role: "MERCHANT", sid: grant.id }, sandbox.integration.clientId);
    expectText(await me(withoutAccount), 400, "Bad request: Missing required authentication data");
  });

  it("404 Integration client not found, for a token of an application this service does not have", async () => {
    const grant = await t.database.db.selectFrom("oauth_grants").select(["id", "merchant_account_id"]).executeTakeFirstOrThrow();
    const token = await forgeToken({ token_use: "merchant", role: "MERCHANT", sub: grant.merchant_account_id, sid: grant.id }, "cli_of_another_application");
    expectText(await me(token), 404, "Integration client not found");
  });

  it("403 Not authorized as user of integration client after the merchant is unlinked; authorizing again restores it with the same linkedAt", async () => {
    const own = await t.sandbox();
    const admin = await adminToken(own.integrationAdmin);
    const { json: tokens } = await testTokens(admin);
    const before = await me(tokens.idToken);
    expect(before.status).toBe(200);
    const link = await t.database.db
      .selectFrom("merchant_links")
      .select("id")
      .where("merchant_account_id", "=", before.json.merchantUserId)
      .executeTakeFirstOrThrow();

    const unlinked = await fetch(`${t.adminUrl}/my-integration/users/${link.id}`, { method: "DELETE", headers: { authorization: `Bearer ${admin}` } });
    expect(unlinked.status).toBe(204);
    expectText(await me(tokens.idToken), 403, "Not authorized as user of integration client");

    const again = await testTokens(admin);
    expect(again.json.autoLinkAction).toBe("linked");
    const after = await me(again.json.idToken);
    expect(after.status).toBe(200);
    expect(after.json.linkedAt).toBe(before.json.linkedAt);
  });

  it("ignores any query parameter on GET /me, while an operation that does not still refuses an unknown one", async () => {
    const { json } = await testTokens(await adminToken(sandbox.integrationAdmin));
    const headers = { authorization: `Bearer ${json.idToken}` };
    const identity = await read(await fetch(`${t.integrationUrl}/me?x=1&expand=everything`, { headers }));
    expect(identity.status).toBe(200);
    expect(identity.json).toEqual((await me(json.idToken)).json);
    const list = await read(await fetch(`${t.integrationUrl}/payment-request?x=1`, { headers }));
    expect(list.status).toBe(400);
    expect(list.json).toMatchObject({ code: "ValidationError", validationDetails: [{ field: "x", message: expect.stringMatching(/not accepted/) }] });
  });

  it("answers the same under the /integration prefix", async () => {
    const { json } = await testTokens(await adminToken(sandbox.integrationAdmin));
    expect((await read(await fetch(`${t.integrationUrl}/integration/me`, { headers: { authorization: `Bearer ${json.idToken}` } }))).status).toBe(200);
  });
});

describe("a token check that fails on the service's side", () => {
  it("answers 500 InternalError with the id of its log line, never 401: the token was not found wrong", async () => {
    // A genuine token of a grant no check has read yet (nothing remembered), whose check cannot run: its
    // table is away for the moment.
    const token = await forgeToken({ token_use: "merchant", role: "MERCHANT", sub: randomUUID(), sid: randomUUID() }, sandbox.integration.clientId);
    await sql`alter table oauth_grants rename to oauth_grants_away`.execute(t.database.db);
    try {
      const result = await me(token);
      expect(result.status, result.text).toBe(500);
      expect(result.json).toEqual({ code: "InternalError", message: expect.any(String), id: expect.any(String) });
    } finally {
      await sql`alter table oauth_grants_away rename to oauth_grants`.execute(t.database.db);
    }
  });
});

describe("the Admin API's token check", () => {
  it("401 UnauthorizedError for a merchant token and for no token", async () => {
    const { json } = await testTokens(await adminToken(sandbox.integrationAdmin));
    for (const headers of [{ authorization: `Bearer ${json.idToken}` }, {}]) {
      const result = await read(await fetch(`${t.adminUrl}/my-integration/test-tokens`, { method: "POST", headers }));
      expect(result.status).toBe(401);
      expect(result.json).toEqual({ code: "UnauthorizedError", message: expect.any(String), id: expect.any(String) });
    }
  });

  it("403 ForbiddenError for the wrong role", async () => {
    const platform = await adminToken(sandbox.platformAdmin);
    const result = await testTokens(platform);
    expect(result.status).toBe(403);
    expect(result.json).toEqual({ code: "ForbiddenError", message: expect.any(String), id: expect.any(String) });
    const integrationAdmin = await adminToken(sandbox.integrationAdmin);
    const list = await read(await fetch(`${t.adminUrl}/integration-admin/setup/clients`, { headers: { authorization: `Bearer ${integrationAdmin}` } }));
    expect(list.status).toBe(403);
  });

  it("404 for unlinking a merchant that is not the integration's", async () => {
    const result = await read(
      await fetch(`${t.adminUrl}/my-integration/users/00000000-0000-4000-8000-000000000000`, {
        method: "DELETE",
        headers: { authorization: `Bearer ${await adminToken(sandbox.integrationAdmin)}` },
      }),
    );
    expect(result.status).toBe(404);
    expect(result.json).toMatchObject({ code: "IntegrationClientUserNotFoundError" });
  });
});

describe("Sandbox test tokens", () => {
  it("link the integration's test merchant on first use, then report it already linked; 1 hour", async () => {
    const own = await t.sandbox();
    const admin = await adminToken(own.integrationAdmin);
    const first = await testTokens(admin);
    expect(first.status).toBe(200);
    expect(first.json).toEqual({ idToken: expect.any(String), refreshToken: expect.any(String), expiresIn: 3600, autoLinkAction: "linked" });
    const second = await testTokens(admin);
    expect(second.json.autoLinkAction).toBe("already-linked");
    const identity = await me(second.json.idToken);
    expect(identity.status).toBe(200);
    expect(identity.json.integration).toEqual({ name: own.integration.name });
  });
});

describe("the admin session", () => {
  it("401 InvalidCredentialsError for a wrong password or an unknown email", async () => {
    for (const credentials of [
      { ...sandbox.integrationAdmin, password: "wrong-password" },
      { email: "nobody@example.com", password: "whatever" },
    ]) {
      const result = await read(await postJson(`${t.authUrl}/integration/admin/login`, credentials));
      expect(result.status).toBe(401);
      expect(result.json).toEqual({ code: "InvalidCredentialsError", message: expect.any(String), id: expect.any(String) });
    }
  });

  it("changes the password, ends the admin's other sessions, and refuses a wrong current password", async () => {
    const own = await t.sandbox();
    const other = await adminToken(own.integrationAdmin);
    const current = await adminToken(own.integrationAdmin);
    const change = (body: object) => postJson(`${t.authUrl}/integration/admin/change-password`, body, { authorization: `Bearer ${current}` }).then(read);

    const wrong = await change({ currentPassword: "not-the-password", newPassword: "a-brand-new-password" });
    expect(wrong.status).toBe(401);
    expect(wrong.json.code).toBe("InvalidCredentialsError");

    expect((await change({ currentPassword: own.integrationAdmin.password, newPassword: "a-brand-new-password" })).status).toBe(204);
    expect((await testTokens(other)).status).toBe(401);
    expect((await testTokens(current)).status).toBe(200);
    expect((await read(await postJson(`${t.authUrl}/integration/admin/login`, own.integrationAdmin))).status).toBe(401);
    expect(
      (await read(await postJson(`${t.authUrl}/integration/admin/login`, { email: own.integrationAdmin.email, password: "a-brand-new-password" }))).status,
    ).toBe(200);
  });
});

describe("in Production", () => {
  it("test tokens, test charges and the Sandbox clock's reset answer 403 SandboxOnlyError", async () => {
    const production = await startTestService({ env: { SERVICE_ENV: "production" } });
    try {
      const own = await production.sandbox();
      const login = await read(await postJson(`${production.authUrl}/integration/admin/login`, own.integrationAdmin));
      const result = await read(
        await fetch(`${production.adminUrl}/my-integration/test-tokens`, { method: "POST", headers: { authorization: `Bearer ${login.json.idToken}` } }),
      );
      expect(result.status).toBe(403);
      expect(result.json).toEqual({ code: "SandboxOnlyError", message: expect.any(String), id: expect.any(String) });
      // So do test charges: Production has no test merchant.
      const testCharge = await read(
        await fetch(`${production.adminUrl}/my-integration/test-charges`, {
          method: "POST",
          headers: { authorization: `Bearer ${login.json.idToken}`, "content-type": "application/json" },
          body: JSON.stringify({ amount: 1500 }),
        }),
      );
      expect(testCharge.status).toBe(403);
      expect(testCharge.json).toEqual({ code: "SandboxOnlyError", message: expect.any(String), id: expect.any(String) });
      // And the Sandbox clock's reset: Production runs on real time only.
      const reset = await read(
        await fetch(`${production.adminUrl}/my-integration/sandbox-clock/reset`, {
          method: "POST",
          headers: { authorization: `Bearer ${login.json.idToken}` },
        }),
      );
      expect(reset.status).toBe(403);
      expect(reset.json).toEqual({ code: "SandboxOnlyError", message: expect.any(String), id: expect.any(String) });
    } finally {
      await production.close();
    }
  });
});
