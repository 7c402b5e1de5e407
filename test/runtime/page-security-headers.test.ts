// Every page Cobro serves to people, and the APIs' JSON answers too, refuse to be framed by another site,
// to be sniffed into another media type, and to send their address as a referrer.
import { beforeAll, describe, expect, it } from "vitest";
import { linkedMerchant, postJson, read, serviceForFile } from "../helpers/service.ts";
import { authorizeUrl } from "../helpers/oauth.ts";
import { chargeBody, payerPageToken } from "../helpers/charges.ts";
import type { SandboxCredentials } from "../../domain/sandbox/sandbox-bootstrap.ts";

const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") });
let sandbox: SandboxCredentials;

beforeAll(async () => {
  sandbox = await t.sandbox();
});

function expectNotFrameable(what: string, response: { status: number; headers: Headers }, contentType: RegExp) {
  const headers = response.headers;
  expect({
    what,
    contentType: headers.get("content-type"),
    frameAncestors: (headers.get("content-security-policy") ?? "")
      .split(";")
      .map((directive) => directive.trim())
      .filter((directive) => directive.startsWith("frame-ancestors")),
    xFrameOptions: headers.get("x-frame-options"),
    contentTypeOptions: headers.get("x-content-type-options"),
    referrerPolicy: headers.get("referrer-policy"),
  }).toEqual({
    what,
    contentType: expect.stringMatching(contentType),
    frameAncestors: ["frame-ancestors 'none'"],
    xFrameOptions: "DENY",
    contentTypeOptions: "nosniff",
    referrerPolicy: "no-referrer",
  });
}

const page = async (url: string, init?: RequestInit) => read(await fetch(url, { redirect: "manual", ...init }));
const form = (fields: Record<string, string>): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
});
const HTML = /^text\/html/;

describe("pages' security headers", () => {
  it("the sign-in page, its refusal and its re-rendering after a wrong password", async () => {
    const signIn = await page(
      authorizeUrl(t.authUrl, { response_type: "code", client_id: sandbox.integration.clientId, redirect_uri: sandbox.integration.redirectUri, state: "s" }),
    );
    expect(signIn.status).toBe(200);
    expectNotFrameable("sign-in", signIn, HTML);
    expectNotFrameable(
      "sign-in refusal",
      await page(authorizeUrl(t.authUrl, { response_type: "code", client_id: "cli_nobody", redirect_uri: "https://nowhere.test/cb" })),
      /./,
    );
    const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0]!;
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(signIn.text)?.[1] ?? "";
    const wrong = await page(`${t.authUrl}/integration/oauth2/complete-login`, {
      ...form({ transaction: field("transaction"), csrf: field("csrf"), email: sandbox.merchant.email, password: "not-the-password" }),
      headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    });
    expect(wrong.text).toMatch(/<html/);
    expectNotFrameable("sign-in after a wrong password", wrong, HTML);
  });

  it("the payer page, and its page for an unknown link", async () => {
    const merchant = await linkedMerchant(t);
    const created = await merchant.call("POST", "/payment-request", chargeBody());
    expect(created.status, created.text).toBe(201);
    const payer_page_token = await payerPageToken(t, created.json.paymentRequestId);
    const payer = await page(`${t.integrationUrl}/p/${payer_page_token}`);
    expect(payer.status).toBe(200);
    expectNotFrameable("payer page", payer, HTML);
    const unknown = await page(`${t.integrationUrl}/p/unknown-token-0000000000000000`);
    expect(unknown.status).toBe(404);
    expectNotFrameable("payer page of an unknown link", unknown, HTML);
  });

  it("the password reset pages and the merchants' consent pages (payout link, commission proposals), also for a spent or unknown link", async () => {
    for (const path of [
      "/integration/admin/password-reset/page",
      "/integration/merchant/password-reset/page",
      "/integration/payout-link/accept",
      "/integration/commission-proposals/answer",
    ]) {
      const shown = await page(`${t.authUrl}${path}?token=unknown-token`);
      expect(shown.text, path).toMatch(/<html/);
      expectNotFrameable(`GET ${path}`, shown, HTML);
      const submitted = await page(`${t.authUrl}${path}`, form({ token: "unknown-token", password: "Another-password-1234", decision: "accept" }));
      expectNotFrameable(`POST ${path} (${submitted.status})`, submitted, /./);
    }
    const forgot = await page(`${t.authUrl}/integration/merchant/password-reset`);
    expectNotFrameable("the merchant's forgot-password page", forgot, HTML);
    const asked = await page(`${t.authUrl}/integration/merchant/password-reset`, form({ email: "nadie@example.com" }));
    expectNotFrameable("the merchant's forgot-password answer", asked, HTML);
  });

  it("the portal and its assets, the widget demo and the API reference pages", async () => {
    const portal = await page(`${t.adminUrl}/portal/`);
    expect(portal.status).toBe(200);
    expectNotFrameable("portal", portal, HTML);
    const demo = await page(`${t.integrationUrl}/v1/widget-demo?publishableKey=pk_test&paymentId=x`);
    expect(demo.status).toBe(200);
    expectNotFrameable("widget demo", demo, HTML);
    for (const url of [t.integrationUrl, t.authUrl, t.adminUrl]) {
      const docs = await page(`${url}/docs`);
      expect(docs.status).toBe(200);
      expectNotFrameable(`${url}/docs`, docs, HTML);
    }
  });

  it("the APIs' JSON and plain-text answers carry them too", async () => {
    expectNotFrameable("Integration API 401", await page(`${t.integrationUrl}/me`), /^text\/plain/);
    expectNotFrameable("Admin API 401", await page(`${t.adminUrl}/my-integration/events`), /^application\/json/);
    expectNotFrameable("Auth API JWKS", await page(`${t.authUrl}/.well-known/jwks.json`), /^application\/json/);
    expectNotFrameable(
      "Auth API login 401",
      await read(await postJson(`${t.authUrl}/integration/admin/login`, { email: "nobody@cobro.test", password: "wrong-password-123" })),
      /^application\/json/,
    );
  });
});
