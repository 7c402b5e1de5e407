// The admin session over real HTTP: refreshing (each refresh token once), signing out, and a session's end
// (30 days, sign-out, a password change) refusing both its refresh token and its idToken.
import { describe, expect, it } from "vitest";
import { bearerCaller, postJson, read, serviceForFile } from "../helpers/service.ts";

const t = serviceForFile();

const DAY_MS = 24 * 3600 * 1000;
const post = async (path: string, body: unknown, headers: Record<string, string> = {}) =>
  read(await postJson(`${t.authUrl}/integration/admin${path}`, body, headers));

async function signIn(credentials: { email: string; password: string }) {
  const session = await post("/login", credentials);
  expect(session.status).toBe(200);
  return session.json as { idToken: string; refreshToken: string };
}

const adminApiStatus = async (idToken: string) => (await bearerCaller(t.adminUrl, () => idToken)("GET", "/my-integration/me")).status;

describe("refreshing the admin session", () => {
  it("gives a new idToken and refresh token; the refresh token used is refused afterwards and ends the session", async () => {
    const { integrationAdmin } = await t.sandbox();
    const first = await signIn(integrationAdmin);
    const refreshed = await post("/refresh", { refreshToken: first.refreshToken });
    expect(refreshed.status).toBe(200);
    expect(refreshed.headers.get("cache-control")).toBe("no-store");
    expect(refreshed.json).toEqual({
      idToken: expect.any(String),
      refreshToken: expect.stringMatching(/^rt_/),
      tokenType: "Bearer",
      expiresIn: 3600,
      passwordChangeRequired: false,
    });
    expect(refreshed.json.refreshToken).not.toBe(first.refreshToken);
    expect(await adminApiStatus(refreshed.json.idToken)).toBe(200);

    const reused = await post("/refresh", { refreshToken: first.refreshToken });
    expect(reused.status).toBe(401);
    expect(reused.json).toEqual({ code: "AdminSessionEndedError", message: expect.stringContaining("already used"), id: expect.any(String) });
    // Two parties held the token: the session ends for both, its newer refresh token and its idTokens too.
    expect((await post("/refresh", { refreshToken: refreshed.json.refreshToken })).status).toBe(401);
    expect(await adminApiStatus(refreshed.json.idToken)).toBe(401);
  });

  it("a token reused several rotations later still ends the session (a thief who kept refreshing)", async () => {
    const { integrationAdmin } = await t.sandbox();
    const stolen = await signIn(integrationAdmin);
    let latest = stolen.refreshToken;
    for (let rotation = 0; rotation < 3; rotation++) latest = (await post("/refresh", { refreshToken: latest })).json.refreshToken;
    expect((await post("/refresh", { refreshToken: stolen.refreshToken })).status).toBe(401);
    expect((await post("/refresh", { refreshToken: latest })).status).toBe(401);
  });

  it("an unknown refresh token ends no session", async () => {
    const { integrationAdmin } = await t.sandbox();
    const session = await signIn(integrationAdmin);
    expect((await post("/refresh", { refreshToken: "rt_unknown" })).status).toBe(401);
    expect((await post("/refresh", { refreshToken: session.refreshToken })).status).toBe(200);
  });

  it("ends 30 days after the sign-in", async () => {
    const { integrationAdmin } = await t.sandbox();
    const session = await signIn(integrationAdmin);
    t.clock.advance(30 * DAY_MS + 1000);
    try {
      const refused = await post("/refresh", { refreshToken: session.refreshToken });
      expect(refused.status).toBe(401);
      expect(refused.json.code).toBe("AdminSessionEndedError");
    } finally {
      t.clock.advance(-(30 * DAY_MS + 1000));
    }
  });

  it("refuses a missing or empty refresh token with 400", async () => {
    for (const body of [{}, { refreshToken: "" }]) {
      const refused = await post("/refresh", body);
      expect(refused.status).toBe(400);
      expect(refused.json).toMatchObject({ code: "ValidationError", validationDetails: [expect.objectContaining({ field: "refreshToken" })] });
    }
  });
});

describe("signing out", () => {
  it("ends the session: its idToken and refresh token stop working; signing out again is fine", async () => {
    const { integrationAdmin } = await t.sandbox();
    const session = await signIn(integrationAdmin);
    const other = await signIn(integrationAdmin);
    expect(await adminApiStatus(session.idToken)).toBe(200);
    const out = await post("/logout", { refreshToken: session.refreshToken });
    expect(out.status).toBe(204);
    expect(await adminApiStatus(session.idToken)).toBe(401);
    expect((await post("/refresh", { refreshToken: session.refreshToken })).json.code).toBe("AdminSessionEndedError");
    expect((await post("/logout", { refreshToken: session.refreshToken })).status).toBe(204);
    expect((await post("/logout", { refreshToken: "rt_unknown" })).status).toBe(204);
    // Another session of the same admin goes on.
    expect(await adminApiStatus(other.idToken)).toBe(200);
  });

  it("a password change ends the admin's other sessions, their refresh tokens included", async () => {
    const { integrationAdmin } = await t.sandbox();
    const kept = await signIn(integrationAdmin);
    const ended = await signIn(integrationAdmin);
    const changed = await post(
      "/change-password",
      { currentPassword: integrationAdmin.password, newPassword: "una-clave-nueva-y-larga" },
      { authorization: `Bearer ${kept.idToken}` },
    );
    expect(changed.status).toBe(204);
    expect((await post("/refresh", { refreshToken: ended.refreshToken })).json.code).toBe("AdminSessionEndedError");
    expect((await post("/refresh", { refreshToken: kept.refreshToken })).status).toBe(200);
  });
});
