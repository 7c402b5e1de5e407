// A merchant links its account to an integration in a real browser (Debian's chromium through
// playwright-core): the authorization screen, a refused and an accepted sign-in, the redirect to the
// integration's own page with `code` and the unchanged `state`, the seed's JSON code exchange and GET /me.
// The JSON flow's errors are covered over plain HTTP in authorization-code.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomBytes } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page, Request } from "playwright-core";
import { read, serviceForFile } from "../helpers/service.ts";
import { authorizeUrl, exchangeCode, linkedSandboxMerchant } from "../helpers/oauth.ts";
import { launchBrowser, type TestBrowser } from "../../scripts/chromium.ts";
import type { SandboxCredentials } from "../../domain/sandbox/sandbox-bootstrap.ts";

/** The integration's side: a page on loopback that the browser is sent back to. */
interface Callback {
  url: string;
  hits: URL[];
  close(): Promise<void>;
}

async function startCallbackServer(): Promise<Callback> {
  const hits: URL[] = [];
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    if (url.pathname !== "/callback") {
      response.writeHead(url.pathname === "/favicon.ico" ? 204 : 404).end(); // Chromium asks for the icon itself
      return;
    }
    hits.push(url);
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end("<!doctype html><title>Integración de prueba</title><p>Vinculado</p>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    // localhost, as the Sandbox's own redirect URI; Chromium resolves it to loopback itself.
    url: `http://localhost:${port}/callback`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const t = serviceForFile();
let sandbox: SandboxCredentials;
let callback: Callback;
let browser: TestBrowser;

beforeAll(async () => {
  [callback, browser] = await Promise.all([startCallbackServer(), launchBrowser()]);
  sandbox = await t.sandbox();
  await t.database.db
    .updateTable("integration_clients")
    .set({ redirect_uris: [callback.url] })
    .where("provider_client_id", "=", sandbox.integration.clientId)
    .execute();
});

afterAll(async () => {
  await Promise.allSettled([browser?.close(), callback?.close()]);
});

function openAuthorization(state: string): string {
  return authorizeUrl(t.authUrl, {
    response_type: "code",
    client_id: sandbox.integration.clientId,
    redirect_uri: callback.url,
    state,
  });
}

/** Every request the page makes, every console error and uncaught exception. */
function watch(page: Page): { requests: Request[]; problems: string[] } {
  const requests: Request[] = [];
  const problems: string[] = [];
  page.on("request", (request) => requests.push(request));
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") problems.push(`console ${message.type()}: ${message.text()} (${message.location().url})`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  return { requests, problems };
}

describe("the authorization screen in a real browser", () => {
  it("signs the merchant in, sends the browser back with code and state, and the code gives a token GET /me accepts", async () => {
    const page = await browser.context.newPage();
    const { requests, problems } = watch(page);
    // Random, with characters that must survive the round trip unchanged.
    const state = `${randomBytes(12).toString("base64url")} /+?&=ñ`;
    const authOrigin = new URL(t.authUrl).origin;

    // The screen: the integration's name, in Spanish, nothing but its own origin.
    const screen = await page.goto(openAuthorization(state));
    expect(screen?.status()).toBe(200);
    expect(await page.getAttribute("html", "lang")).toBe("es");
    expect(await page.locator("h1").innerText()).toContain(sandbox.integration.name);
    expect(await page.title()).toBe(`Autorizar ${sandbox.integration.name}`);
    expect(await page.locator("body").innerText()).toContain("Ingresá con tu cuenta de comercio");
    expect(await page.locator("img").count()).toBe(0); // the integration has no logo
    expect(await page.getByLabel("Contraseña").isVisible()).toBe(true);
    const csrfCookie = (await browser.context.cookies(`${t.authUrl}/integration/oauth2/complete-login`)).find((cookie) => cookie.name === "cobro_csrf");
    expect(csrfCookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/integration/oauth2" });

    // A wrong password: the same screen again with the refusal on it, the email kept.
    await page.getByLabel("Email").fill(sandbox.merchant.email);
    await page.getByLabel("Contraseña").fill("not-the-password");
    const [refused] = await Promise.all([
      page.waitForResponse((response) => response.url().endsWith("/integration/oauth2/complete-login")),
      page.getByRole("button", { name: "Ingresar y autorizar" }).click(),
    ]);
    expect(refused.status()).toBe(401);
    await page.waitForLoadState("domcontentloaded");
    const alert = page.getByRole("alert");
    expect(await alert.getAttribute("data-code")).toBe("InvalidCredentialsError");
    expect(await alert.innerText()).toBe("La contraseña no es correcta.");
    expect(await page.getByLabel("Email").inputValue()).toBe(sandbox.merchant.email);
    expect(await page.locator("h1").innerText()).toContain(sandbox.integration.name);
    expect(callback.hits).toHaveLength(0);

    // The right password: the browser lands on the integration's page with code and the unchanged state.
    await page.getByLabel("Contraseña").fill(sandbox.merchant.password);
    await Promise.all([page.waitForURL((url) => url.href.startsWith(callback.url)), page.getByRole("button", { name: "Ingresar y autorizar" }).click()]);
    await page.waitForLoadState("load");
    expect(await page.locator("p").innerText()).toBe("Vinculado");
    const landed = new URL(page.url());
    expect(`${landed.origin}${landed.pathname}`).toBe(callback.url);
    expect(landed.searchParams.get("state")).toBe(state);
    const code = landed.searchParams.get("code");
    expect(code).toEqual(expect.any(String));
    expect(callback.hits).toHaveLength(1);
    expect(callback.hits[0]!.searchParams.get("code")).toBe(code);
    expect(callback.hits[0]!.searchParams.get("state")).toBe(state);
    // The sign-in consumed the CSRF cookie.
    expect((await browser.context.cookies(`${t.authUrl}/integration/oauth2/complete-login`)).some((cookie) => cookie.name === "cobro_csrf")).toBe(false);

    // Nothing but the Auth API's own origin was asked for, then the one redirect to the integration.
    const elsewhere = requests.filter((request) => new URL(request.url()).origin !== authOrigin);
    expect(elsewhere.map((request) => request.url())).toEqual([landed.href]);
    expect(elsewhere[0]!.isNavigationRequest()).toBe(true);
    expect(elsewhere[0]!.redirectedFrom()?.url()).toBe(`${t.authUrl}/integration/oauth2/complete-login`);
    expect(requests.map((request) => `${request.method()} ${new URL(request.url()).pathname}`)).toEqual([
      "GET /integration/oauth2/authorize",
      "POST /integration/oauth2/complete-login",
      "POST /integration/oauth2/complete-login",
      "GET /callback",
    ]);
    // Chromium reports the refusal's 401 as a failed load; nothing else went wrong (no CSP violation).
    expect(problems.filter((problem) => !problem.includes("/integration/oauth2/complete-login"))).toEqual([]);
    await page.close();

    // The integrator exchanges the code with the seed's JSON /token and calls GET /me.
    const tokens = await exchangeCode(t.authUrl, { ...sandbox.integration, redirectUri: callback.url }, code!);
    expect(tokens.status, tokens.text).toBe(200);
    expect(tokens.json).toEqual({ idToken: expect.any(String), refreshToken: expect.any(String), tokenType: "Bearer", expiresIn: 3600 });
    const me = await read(await fetch(`${t.integrationUrl}/me`, { headers: { authorization: `Bearer ${tokens.json.idToken}` } }));
    expect(me.status, me.text).toBe(200);
    expect(me.json).toEqual(linkedSandboxMerchant(sandbox));
  });

  it("fits a phone's screen", async () => {
    const page = await browser.context.newPage();
    const { requests, problems } = watch(page);
    await page.setViewportSize({ width: 375, height: 667 });
    expect((await page.goto(openAuthorization("phone")))?.status()).toBe(200);
    for (const label of ["Email", "Contraseña"]) expect(await page.getByLabel(label).isVisible()).toBe(true);
    const button = page.getByRole("button", { name: "Ingresar y autorizar" });
    expect(await button.isVisible()).toBe(true);
    const box = await button.boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(375);
    expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375); // no sideways scrolling
    // COBRO_SCREENSHOT_DIR keeps the picture for a person to look at; otherwise it goes to a temp file.
    const keepIn = process.env.COBRO_SCREENSHOT_DIR;
    const file = join(keepIn ?? tmpdir(), `cobro-sign-in-phone-${process.pid}-${randomBytes(4).toString("hex")}.png`);
    try {
      await page.screenshot({ path: file, fullPage: true });
      expect(readFileSync(file).subarray(1, 4).toString("latin1")).toBe("PNG");
    } finally {
      if (!keepIn) rmSync(file, { force: true });
    }
    expect(requests.every((request) => new URL(request.url()).origin === new URL(t.authUrl).origin)).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });
});
