// For the pages that a mailed link opens (payout link invitations, commission proposals): the service with
// a real SMTP server and a phone-sized browser, the link read from a received email, and a page's form
// posted without a browser.
import { afterAll, beforeAll, expect } from "vitest";
import { read, serviceForFile, startedHandle, type TestService } from "./service.ts";
import { startSmtpServer, type TestSmtpServer } from "./smtp-server.ts";
import type { Page } from "playwright-core";
import { launchBrowser, type TestBrowser } from "../../scripts/chromium.ts";

export interface MailedLinkSetup {
  t: TestService;
  smtp: TestSmtpServer;
  /** 375 px wide, like a phone. */
  browser: TestBrowser;
}

/**
 * For this file (or describe block): the SMTP server, the service that mails through it
 * (`serviceForFile()`) and the browser, started in that order before the tests and closed in the reverse
 * order after them. All three are handles, as `serviceForFile()`'s.
 */
export function mailedLinkSetupForFile(): MailedLinkSetup {
  let smtp: TestSmtpServer | undefined;
  beforeAll(async () => {
    smtp = await startSmtpServer();
  });
  afterAll(async () => {
    await smtp?.close();
    smtp = undefined;
  });
  const t = serviceForFile(() => ({ env: { COBRO_SMTP_URL: smtp!.url, COBRO_MAIL_FROM: "Cobro <cuentas@cobro.test>" } }));
  let browser: TestBrowser | undefined;
  beforeAll(async () => {
    browser = await launchBrowser({ viewport: { width: 375, height: 740 } });
  });
  afterAll(async () => {
    await browser?.close();
    browser = undefined;
  });
  return {
    t,
    smtp: startedHandle("the SMTP server", "mailedLinkSetupForFile()", () => smtp),
    browser: startedHandle("the browser", "mailedLinkSetupForFile()", () => browser),
  };
}

/**
 * The link in the `count`th email to `email`: its subject must match, the link is on the line that
 * starts with `linkLabel`, and it must point at `path` of the Auth API's public URL (checked) and carry a
 * token (also in the HTML part). `localUrl` is the same page on the test's Auth API.
 */
export async function mailedLink(
  setup: Pick<MailedLinkSetup, "t" | "smtp">,
  input: { email: string; count?: number; subject: RegExp; linkLabel: string; path: string },
): Promise<{ token: string; localUrl: string; text: string }> {
  const count = input.count ?? 1;
  const mail = (await setup.smtp.waitFor(input.email, count))[count - 1]!;
  expect(mail.subject).toMatch(input.subject);
  const line = mail.text.split("\n").find((candidate) => candidate.startsWith(input.linkLabel));
  if (!line) throw new Error(`no line starting with "${input.linkLabel}" in:\n${mail.text}`);
  const link = new URL(line.slice(input.linkLabel.length).trim());
  expect(`${link.origin}${link.pathname}`).toBe(`${setup.t.service.publicUrls.auth}${input.path}`);
  const token = link.searchParams.get("token")!;
  expect(mail.html).toContain(token);
  return { token, localUrl: `${setup.t.authUrl}${link.pathname}${link.search}`, text: mail.text };
}

/** Posts a page's form (`application/x-www-form-urlencoded`), as its button would. */
export async function postForm(url: string, form: Record<string, string>) {
  return read(
    await fetch(url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(form).toString() }),
  );
}

/**
 * Opens a mailed link's page in the browser and checks what every such page does: 200, no caching or
 * referrer, nothing from elsewhere (CSP), the token gone from the address bar and kept in the form, and
 * no sideways scrolling at a phone's width. The caller closes the page.
 */
export async function openMailedLinkPage(setup: Pick<MailedLinkSetup, "t" | "browser">, link: { token: string; localUrl: string }): Promise<Page> {
  const page = await setup.browser.context.newPage();
  const response = await page.goto(link.localUrl);
  expect(response!.status()).toBe(200);
  const headers = response!.headers();
  expect(headers["referrer-policy"]).toBe("no-referrer");
  expect(headers["cache-control"]).toBe("no-store");
  expect(headers["content-security-policy"]).toContain("default-src 'none'");
  const withoutToken = new URL(link.localUrl);
  await expect.poll(() => page.url()).toBe(`${withoutToken.origin}${withoutToken.pathname}`);
  expect(await page.locator('input[type=hidden][name="token"]').inputValue()).toBe(link.token);
  expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
  return page;
}
