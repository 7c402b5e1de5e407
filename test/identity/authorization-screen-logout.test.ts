// Signing a browser out of the authorization screen: the sign-in form's cookie is cleared, and the
// browser goes only to a logout URL registered for the client (no open redirect).
import { beforeAll, describe, expect, it } from "vitest";
import { read, serviceForFile } from "../helpers/service.ts";
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
