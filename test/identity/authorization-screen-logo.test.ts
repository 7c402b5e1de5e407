// The uploaded logo on the authorization screen, in a real browser (Debian's chromium through
// playwright-core): the screen and the logo are both at the public Auth URL (requests to it are served by
// the test's Auth API), so the page's Content-Security-Policy must let Cobro's stored logos load.
import { afterAll, beforeAll, expect, it } from "vitest";
import sharp from "sharp";
import { serviceForFile } from "../helpers/service.ts";
import { authorizeUrl } from "../helpers/oauth.ts";
import { launchBrowser, type TestBrowser } from "../../scripts/chromium.ts";
import { signedInAdmin } from "../helpers/sandbox-admin.ts";

const t = serviceForFile();
let browser: TestBrowser;

beforeAll(async () => {
  browser = await launchBrowser();
  // The public Auth URL (http://auth.cobro.test) is answered by the test's Auth API.
  await browser.context.route(`${t.config.publicUrls.auth}/**`, async (route) => {
    const url = new URL(route.request().url());
    await route.fulfill({ response: await route.fetch({ url: `${t.authUrl}${url.pathname}${url.search}` }) });
  });
});
afterAll(async () => {
  await browser?.close();
});

it("shows the uploaded logo, scaled, on the authorization screen", async () => {
  const sandbox = await t.sandbox();
  const { token } = await signedInAdmin(t, sandbox.integrationAdmin);
  const logo = await sharp({ create: { width: 900, height: 300, channels: 4, background: { r: 10, g: 120, b: 200, alpha: 1 } } })
    .png()
    .toBuffer();
  const uploaded = await fetch(`${t.adminUrl}/my-integration/logo`, {
    method: "PUT",
    headers: { authorization: `Bearer ${token}`, "content-type": "image/png" },
    body: logo,
  });
  expect(uploaded.status).toBe(200);

  const page = await browser.context.newPage();
  const violations: string[] = [];
  page.on("console", (message) => {
    if (message.text().includes("Content Security Policy")) violations.push(message.text());
  });
  const screen = await page.goto(
    authorizeUrl(t.config.publicUrls.auth, { response_type: "code", client_id: sandbox.integration.clientId, redirect_uri: sandbox.integration.redirectUri }),
  );
  expect(screen?.status()).toBe(200);
  type LoadedImage = { complete: boolean; naturalWidth: number; naturalHeight: number };
  const logoImage = page.locator("img.logo");
  await expect.poll(() => logoImage.evaluate((image: LoadedImage) => image.complete && image.naturalWidth)).toBe(512);
  expect(await logoImage.evaluate((image: LoadedImage) => image.naturalHeight)).toBe(171);
  expect(violations).toEqual([]);
  await page.close();
});
