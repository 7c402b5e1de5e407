// Signing a browser out of the authorization screen: the sign-in form's cookie is cleared, and the
// browser goes only to a logout URL registered for the client (no open redirect); the platform changes
// those URLs.
import { beforeAll, describe, expect, it } from "vitest";
import { read, serviceForFile } from "../helpers/service.ts";
import { signedInAdmin } from "../helpers/sandbox-admin.ts";
import type { SandboxCredentials } from "../../domain/sandbox/sandbox-bootstrap.ts";

const REGISTERED = "https://app.example.com/sesion-cerrada";
const generalError = (code: string) => ({ code, message: expect.any(String), id: expect.any(String) });

const t = serviceForFile();
let sandbox: SandboxCredentials;

beforeAll(async () => {
  sandbox = await t.sandbox();
  await t.database.db
    .updateTable("integration_clients")
    .set({ logout_urls: [REGISTERED] })
    .where("provider_client_id", "=", sandbox.integration.clientId)
    .execute();
});

function logout(params: Record<string, string>) {
  return fetch(`${t.authUrl}/integration/oauth2/logout?${new URLSearchParams(params)}`, { redirect: "manual" });
}

const clearsSignInCookie = (response: Response) => expect(response.headers.get("set-cookie")).toMatch(/^cobro_csrf=; Path=\/integration\/oauth2;.*Max-Age=0/);

describe("GET /integration/oauth2/logout", () => {
  it("sends the browser to a registered logout URL (302) and clears the sign-in cookie", async () => {
    const response = await logout({ client_id: sandbox.integration.clientId, logout_uri: REGISTERED });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe(REGISTERED);
    clearsSignInCookie(response);
  });

  it("without logout_uri, says in Spanish that the session ended", async () => {
    const response = await logout({ client_id: sandbox.integration.clientId });
    const page = await read(response);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.text).toContain("<h1>Cerraste la sesión</h1>");
    expect(page.headers.get("content-security-policy")).toContain("default-src 'none'");
    clearsSignInCookie(response);
  });

  it.each([
    ["another site", "https://evil.example.net/"],
    ["a registered URL with another path", `${REGISTERED}/otra`],
    ["a registered URL with a trailing slash", `${REGISTERED}/`],
  ])("refuses %s with 400 InvalidRequestError and redirects nowhere", async (_name, uri) => {
    const response = await logout({ client_id: sandbox.integration.clientId, logout_uri: uri });
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect((await read(response)).json).toEqual(generalError("InvalidRequestError"));
  });

  it("refuses an unknown client with 401 InvalidClientError, without redirecting", async () => {
    const response = await logout({ client_id: "cli_no_existe", logout_uri: REGISTERED });
    expect(response.status).toBe(401);
    expect(response.headers.get("location")).toBeNull();
    expect((await read(response)).json).toEqual(generalError("InvalidClientError"));
  });

  it("requires client_id (400 ValidationError)", async () => {
    const response = await logout({ logout_uri: REGISTERED });
    expect(response.status).toBe(400);
    expect(response.headers.get("location")).toBeNull();
    expect((await read(response)).json).toMatchObject({
      code: "ValidationError",
      validationDetails: [expect.objectContaining({ field: expect.stringContaining("client_id") })],
    });
  });
});

describe("the logout URLs, changed by the platform (PATCH /integration-admin/setup/clients/{id})", () => {
  const CHANGED = "https://app.example.com/hasta-luego";

  /** A fresh integration, its id in the Admin API, and its platform admin signed in. */
  async function clientOfPlatform() {
    const own = await t.sandbox();
    const platform = await signedInAdmin(t, own.platformAdmin);
    const { id } = await t.database.db
      .selectFrom("integration_clients")
      .select("id")
      .where("provider_client_id", "=", own.integration.clientId)
      .executeTakeFirstOrThrow();
    return { own, platform, id };
  }

  it("replace the whole list, shown in the client's detail; the logout follows the new list at once", async () => {
    const { own, platform, id } = await clientOfPlatform();
    const patch = (logoutUrls: unknown) => platform.call("PATCH", `/integration-admin/setup/clients/${id}`, { logoutUrls });

    const set = await patch([REGISTERED, CHANGED]);
    expect(set.status, set.text).toBe(200);
    expect(set.json.logoutUrls).toEqual([REGISTERED, CHANGED]);
    expect((await platform.call("GET", `/integration-admin/setup/clients/${id}`)).json.logoutUrls).toEqual([REGISTERED, CHANGED]);
    expect((await logout({ client_id: own.integration.clientId, logout_uri: CHANGED })).status).toBe(302);

    const narrowed = await patch([CHANGED]);
    expect(narrowed.json.logoutUrls).toEqual([CHANGED]);
    expect((await logout({ client_id: own.integration.clientId, logout_uri: REGISTERED })).status).toBe(400);
    expect((await logout({ client_id: own.integration.clientId, logout_uri: CHANGED })).headers.get("location")).toBe(CHANGED);

    // Other fields are left as they were; [] removes every URL.
    const unchanged = await platform.call("PATCH", `/integration-admin/setup/clients/${id}`, { name: "Otro nombre" });
    expect(unchanged.json).toMatchObject({ name: "Otro nombre", logoutUrls: [CHANGED] });
    expect((await patch([])).json.logoutUrls).toEqual([]);
    expect((await logout({ client_id: own.integration.clientId, logout_uri: CHANGED })).status).toBe(400);
  });

  it("400 ValidationError naming the URL that breaks the rules of creation; nothing changes", async () => {
    const { platform, id } = await clientOfPlatform();
    expect((await platform.call("PATCH", `/integration-admin/setup/clients/${id}`, { logoutUrls: [REGISTERED] })).status).toBe(200);
    for (const [logoutUrls, field] of [
      [[CHANGED, "https://*/bye"], "logoutUrls[1]"],
      [[CHANGED, CHANGED], "logoutUrls"],
      [["ftp://app.example.com/bye"], "logoutUrls[0]"],
    ] as const) {
      const refused = await platform.call("PATCH", `/integration-admin/setup/clients/${id}`, { logoutUrls });
      expect(refused.status, JSON.stringify(logoutUrls)).toBe(400);
      expect(refused.json).toMatchObject({ code: "ValidationError", validationDetails: [expect.objectContaining({ field })] });
    }
    expect((await platform.call("GET", `/integration-admin/setup/clients/${id}`)).json.logoutUrls).toEqual([REGISTERED]);
  });
});
