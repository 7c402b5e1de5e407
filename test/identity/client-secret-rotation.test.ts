// Rotating the OAuth client secret (POST /my-integration/client-secret/rotate), over real HTTP: the
// token endpoints accept the new secret and refuse the old one at once or when its grace ends (the
// test's clock moves), and every documented error.
import { describe, expect, it } from "vitest";
import { postJson, read, serviceForFile } from "../helpers/service.ts";
import { exchangeCode, obtainCode } from "../helpers/oauth.ts";
import { signedInAdmin } from "../helpers/sandbox-admin.ts";

const t = serviceForFile();

const generalError = (code: string) => ({ code, message: expect.any(String), id: expect.any(String) });

/** A fresh integration with a linked merchant's refresh token, and its integration admin signed in. */
async function integrationWithGrant() {
  const sandbox = await t.sandbox();
  const code = await obtainCode(t.authUrl, sandbox.integration, sandbox.merchant);
  const tokens = await exchangeCode(t.authUrl, sandbox.integration, code);
  expect(tokens.status).toBe(200);
  const admin = await signedInAdmin(t, sandbox.integrationAdmin);
  const refreshWith = (clientSecret: string) =>
    postJson(`${t.authUrl}/integration/oauth2/refresh`, {
      grantType: "refresh_token",
      refreshToken: tokens.json.refreshToken,
      clientId: sandbox.integration.clientId,
      clientSecret,
    }).then(read);
  const rotate = (body?: unknown) => admin.call("POST", "/my-integration/client-secret/rotate", body);
  return { sandbox, refreshWith, rotate };
}

async function expectAccepted(refresh: Promise<Awaited<ReturnType<typeof read>>>) {
  const result = await refresh;
  expect(result.status, result.text).toBe(200);
  expect(result.json.idToken).toEqual(expect.any(String));
}

async function expectRefused(refresh: Promise<Awaited<ReturnType<typeof read>>>) {
  const result = await refresh;
  expect(result.status).toBe(401);
  expect(result.json).toEqual(generalError("InvalidClientError"));
}

describe("rotating the client secret", () => {
  it("answers a new secret that the token endpoint accepts; the old one stops at once", async () => {
    const { sandbox, refreshWith, rotate } = await integrationWithGrant();
    const rotated = await rotate();
    expect(rotated.status).toBe(200);
    expect(rotated.json).toEqual({ clientSecret: expect.stringMatching(/^cs_/), previousSecretExpiresAt: null });
    const newSecret: string = rotated.json.clientSecret;
    expect(newSecret).not.toBe(sandbox.integration.clientSecret);

    await expectAccepted(refreshWith(newSecret));
    await expectRefused(refreshWith(sandbox.integration.clientSecret));

    const code = await obtainCode(t.authUrl, sandbox.integration, sandbox.merchant);
    const refusedExchange = await exchangeCode(t.authUrl, sandbox.integration, code);
    expect(refusedExchange.status).toBe(401);
    expect(refusedExchange.json).toEqual(generalError("InvalidClientError"));
    const exchange = await exchangeCode(t.authUrl, { ...sandbox.integration, clientSecret: newSecret }, code);
    expect(exchange.status, exchange.text).toBe(200);

    const stored = await t.database.db
      .selectFrom("integration_clients")
      .select("client_secret_hash")
      .where("provider_client_id", "=", sandbox.integration.clientId)
      .executeTakeFirstOrThrow();
    expect(stored.client_secret_hash).not.toContain(newSecret);
  });

  it("keeps the old secret working during graceSeconds, then refuses it", async () => {
    const { sandbox, refreshWith, rotate } = await integrationWithGrant();
    const rotatedAt = t.clock.now();
    const rotated = await rotate({ graceSeconds: 3600 });
    expect(rotated.status).toBe(200);
    expect(rotated.json.previousSecretExpiresAt).toBe(new Date(rotatedAt.getTime() + 3600_000).toISOString());

    await expectAccepted(refreshWith(sandbox.integration.clientSecret));
    await expectAccepted(refreshWith(rotated.json.clientSecret));
    t.clock.advance(3599_000);
    await expectAccepted(refreshWith(sandbox.integration.clientSecret));
    t.clock.advance(1_000);
    await expectRefused(refreshWith(sandbox.integration.clientSecret));
    await expectAccepted(refreshWith(rotated.json.clientSecret));
  });

  it("a rotation during a grace period replaces that grace", async () => {
    const { sandbox, refreshWith, rotate } = await integrationWithGrant();
    const second = (await rotate({ graceSeconds: 86400 })).json.clientSecret as string;
    const third = await rotate({ graceSeconds: 60 });
    expect(third.status).toBe(200);
    await expectRefused(refreshWith(sandbox.integration.clientSecret));
    await expectAccepted(refreshWith(second));
    await expectAccepted(refreshWith(third.json.clientSecret));
    t.clock.advance(60_000);
    await expectRefused(refreshWith(second));
    await expectAccepted(refreshWith(third.json.clientSecret));

    // graceSeconds 0 ends a grace at once too.
    const withGrace = (await rotate({ graceSeconds: 600 })).json.clientSecret as string;
    const immediate = await rotate({ graceSeconds: 0 });
    expect(immediate.json.previousSecretExpiresAt).toBeNull();
    await expectRefused(refreshWith(withGrace));
    await expectRefused(refreshWith(third.json.clientSecret));
    await expectAccepted(refreshWith(immediate.json.clientSecret));
  });

  it("400 ValidationError for a bad graceSeconds, and the secret is unchanged", async () => {
    const { sandbox, refreshWith, rotate } = await integrationWithGrant();
    for (const body of [{ graceSeconds: -1 }, { graceSeconds: 86401 }, { graceSeconds: 1.5 }, { graceSeconds: "60" }, { graceSeconds: null }, { grace: 60 }]) {
      const result = await rotate(body);
      expect(result.status, JSON.stringify(body)).toBe(400);
      expect(result.json).toEqual({
        code: "ValidationError",
        message: expect.any(String),
        id: expect.any(String),
        validationDetails: expect.arrayContaining([
          expect.objectContaining({ field: expect.stringMatching(/grace/), rule: expect.any(String), message: expect.any(String) }),
        ]),
      });
    }
    await expectAccepted(refreshWith(sandbox.integration.clientSecret));
  });

  it("401 without an admin token, 403 for a platform admin, and the secret is unchanged", async () => {
    const { sandbox, refreshWith } = await integrationWithGrant();
    const anonymous = await read(await postJson(`${t.adminUrl}/my-integration/client-secret/rotate`, {}));
    expect(anonymous.status).toBe(401);
    expect(anonymous.json).toEqual(generalError("UnauthorizedError"));
    const platform = await signedInAdmin(t, sandbox.platformAdmin);
    const forbidden = await platform.call("POST", "/my-integration/client-secret/rotate", {});
    expect(forbidden.status).toBe(403);
    expect(forbidden.json).toEqual(generalError("ForbiddenError"));
    await expectAccepted(refreshWith(sandbox.integration.clientSecret));
  });
});
