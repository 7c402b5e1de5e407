// A JSON operation reads its body only as JSON: a form-encoded body is refused with 400 ValidationError
// even when its fields would pass validation, so that a cross-site HTML form (which can post a form without
// a preflight) cannot stand in for a JSON call. The token endpoint, which declares the RFC 6749 form,
// still takes it.
import { describe, expect, it } from "vitest";
import { read, serviceForFile } from "../helpers/service.ts";

const t = serviceForFile();

const form = (url: string, fields: Record<string, string>) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString() });

describe("request media types", () => {
  it("an admin sign-in posted as a form is 400 ValidationError naming the media type, and signs nobody in", async () => {
    const { integrationAdmin } = await t.sandbox();
    const answer = await read(await form(`${t.authUrl}/integration/admin/login`, { email: integrationAdmin.email, password: integrationAdmin.password }));
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({
      code: "ValidationError",
      message: "body must be sent as application/json, not application/x-www-form-urlencoded",
      id: expect.any(String),
      validationDetails: [{ field: "body", rule: "malformed", message: "body must be sent as application/json, not application/x-www-form-urlencoded" }],
    });
    expect(answer.json.idToken).toBeUndefined();
  });

  it("the same sign-in as JSON works, and the token endpoint still takes its declared form", async () => {
    const { integrationAdmin, integration } = await t.sandbox();
    const json = await fetch(`${t.authUrl}/integration/admin/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: integrationAdmin.email, password: integrationAdmin.password }),
    });
    expect(json.status).toBe(200);
    const token = await read(
      await form(`${t.authUrl}/integration/oauth2/token`, {
        grant_type: "authorization_code",
        code: "not-a-code",
        client_id: integration.clientId,
        client_secret: integration.clientSecret,
        redirect_uri: integration.redirectUri,
      }),
    );
    expect(token.status).toBe(400);
    expect(token.json.code).toBe("InvalidGrantError");
  });
});
