// Redirect and logout URLs are written into the sign-in screen's Content-Security-Policy: a host that is
// not a host name or an IP literal (`*`, `;`, `,`, quotes, spaces) is refused when registered, and the
// policy is built only from origins of a host's shape, so a stored URL can never add a directive.
import { describe, expect, it } from "vitest";
import { browserUrlProblem, cspOrigin } from "../../domain/browser-urls.ts";
import { authorizeUrl } from "../helpers/oauth.ts";
import { signedInAdmin, sandboxAdmin } from "../helpers/sandbox-admin.ts";
import { serviceForFile } from "../helpers/service.ts";

const t = serviceForFile();

const INJECTING = ["https://x;frame-ancestors/cb", "https://*/cb", "https://a,b.example/cb", "https://x'y.example/cb", "https://*.example.com/cb"];

describe("redirect and logout URL hosts", () => {
  it("a redirect_uri whose host is not a host is 400 ValidationError on the client URL", async () => {
    const admin = await sandboxAdmin(t, await t.sandbox());
    for (const url of INJECTING) {
      const answer = await admin.call("POST", "/my-integration/urls", { url, urlType: "redirect_uri" });
      expect({ url, status: answer.status, code: answer.json.code, field: answer.json.validationDetails?.[0]?.field }).toEqual({
        url,
        status: 400,
        code: "ValidationError",
        field: "url",
      });
    }
    const fine = await admin.call("POST", "/my-integration/urls", { url: "https://app.example.com/oauth/callback", urlType: "redirect_uri" });
    expect(fine.status).toBe(201);
  });

  it("redirectUrls and logoutUrls of a new integration are held to the same shape", async () => {
    const { call } = await signedInAdmin(t, (await t.sandbox()).platformAdmin);
    const base = { name: "Hosts", companyName: "Hosts S.A.", contactEmail: "hosts@example.com" };
    const redirect = await call("POST", "/integration-admin/setup/clients", {
      ...base,
      redirectUrls: ["https://ok.example/cb", "https://x;frame-ancestors/cb"],
    });
    expect(redirect).toMatchObject({ status: 400, json: { code: "ValidationError", validationDetails: [{ field: "redirectUrls[1]" }] } });
    const logout = await call("POST", "/integration-admin/setup/clients", { ...base, logoutUrls: ["https://*/bye"] });
    expect(logout).toMatchObject({ status: 400, json: { code: "ValidationError", validationDetails: [{ field: "logoutUrls[0]" }] } });
  });

  it("the sign-in screen's form-action lists only origins of a host's shape, even for a URL stored before the rule", async () => {
    const { integration } = await t.sandbox();
    await t.database.db
      .updateTable("integration_clients")
      .set({ redirect_uris: [integration.redirectUri, "https://x;frame-ancestors https://*/cb"] })
      .where("provider_client_id", "=", integration.clientId)
      .execute();
    const screen = await fetch(authorizeUrl(t.authUrl, { response_type: "code", client_id: integration.clientId, redirect_uri: integration.redirectUri }));
    expect(screen.status).toBe(200);
    const csp = screen.headers.get("content-security-policy") ?? "";
    const directives = csp.split(";").map((directive) => directive.trim().split(" ")[0]);
    expect(directives.filter((name) => name === "frame-ancestors")).toHaveLength(1);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain(`form-action 'self' ${new URL(integration.redirectUri).origin};`);
  });

  it("the shape rule itself", () => {
    for (const url of INJECTING) expect(browserUrlProblem(url), url).toBeDefined();
    for (const url of [
      "https://app.example.com/cb",
      "http://localhost:8080/callback",
      "https://127.0.0.1:8443/cb",
      "https://[2001:db8::1]/cb",
      "https://xn--and-6ma.example/cb",
    ]) {
      expect(browserUrlProblem(url), url).toBeUndefined();
    }
    expect(cspOrigin("https://app.example.com:8443/cb?x=1")).toBe("https://app.example.com:8443");
    expect(cspOrigin("https://x;frame-ancestors/cb")).toBeUndefined();
  });
});
