// An admin's password reset over real HTTP, a real SMTP server on loopback and a real browser: the request
// that never tells whether an account exists, the emailed link, the page at a phone's width, and what
// completing it does (new password, every session ended, the link used up).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearerCaller, postJson, read, serviceForFile, startTestService } from "../helpers/service.ts";
import { startSmtpServer, type TestSmtpServer } from "../helpers/smtp-server.ts";
import { launchBrowser, type TestBrowser } from "../../scripts/chromium.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

const HOUR_MS = 3600 * 1000;
const generalError = (code: string) => ({ code, message: expect.any(String), id: expect.any(String) });
const NEW_PASSWORD = "una-clave-nueva-y-larga";

let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(async () => {
  await smtp?.close();
});

const t = serviceForFile(() => ({ env: { COBRO_SMTP_URL: smtp.url, COBRO_MAIL_FROM: "Cobro <cuentas@cobro.test>" } }));

let browser: TestBrowser;
beforeAll(async () => {
  browser = await launchBrowser({ viewport: { width: 375, height: 740 } });
});
afterAll(async () => {
  await browser?.close();
});

async function login(email: string, password: string) {
  return read(await postJson(`${t.authUrl}/integration/admin/login`, { email, password }));
}

async function askForReset(email: string) {
  return read(await postJson(`${t.authUrl}/integration/admin/password-reset`, { email }));
}

async function complete(body: unknown) {
  return read(await postJson(`${t.authUrl}/integration/admin/password-reset/complete`, body));
}

/** The link of the `count`th reset email to `email` (asked for before), checked to point at the Auth API's public URL. */
async function resetLink(email: string, count = 1): Promise<{ token: string; localUrl: string }> {
  const mail = (await smtp.waitFor(email, count))[count - 1]!;
  expect(mail.subject).toBe("Cobro: restablecé tu contraseña");
  const match = /^Elegí una contraseña nueva en: (\S+)$/m.exec(mail.text);
  if (!match) throw new Error(`no link in:\n${mail.text}`);
  const link = new URL(match[1]!);
  expect(`${link.origin}${link.pathname}`).toBe(`${t.service.publicUrls.auth}/integration/admin/password-reset/page`);
  expect(mail.html).toContain(link.searchParams.get("token")!);
  expect(mail.text).toContain(`Después, ingresá en el portal: ${t.service.publicUrls.admin}/portal/`);
  return { token: link.searchParams.get("token")!, localUrl: `${t.authUrl}${link.pathname}${link.search}` };
}

/** A fresh integration admin (the Sandbox set's, with its password). */
async function freshAdmin() {
  return (await t.sandbox()).integrationAdmin;
}

describe("asking for a password reset", () => {
  it("answers 202 alike for a known and an unknown email, and mails only the known one", async () => {
    const admin = await freshAdmin();
    const unknown = `${uniqueRef("nadie")}@example.com`;
    const forUnknown = await askForReset(unknown);
    const forKnown = await askForReset(admin.email.toUpperCase());
    for (const answer of [forUnknown, forKnown]) {
      expect(answer.status).toBe(202);
      expect(answer.text).toBe("");
    }
    expect(forUnknown.headers.get("content-type")).toBe(forKnown.headers.get("content-type"));
    await resetLink(admin.email);
    expect(smtp.to(unknown)).toEqual([]);
    // Asking changes nothing by itself: the current password still works.
    expect((await login(admin.email, admin.password)).status).toBe(200);
  });

  it("refuses a body that is not an email with 400 ValidationError", async () => {
    const refused = await askForReset("no-es-un-email");
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      code: "ValidationError",
      message: expect.any(String),
      id: expect.any(String),
      validationDetails: [expect.objectContaining({ field: expect.stringContaining("email") })],
    });
  });
});

describe("the reset page in a browser", () => {
  it("sets a new password at a phone's width; the old password and every session end; the link works once", async () => {
    const admin = await freshAdmin();
    const first = await login(admin.email, admin.password);
    const second = await login(admin.email, admin.password);
    expect([first.status, second.status]).toEqual([200, 200]);
    const adminCall = bearerCaller(t.adminUrl, () => first.json.idToken);
    expect((await adminCall("GET", "/my-integration/admins")).status).toBe(200);

    await askForReset(admin.email);
    const { token, localUrl } = await resetLink(admin.email);
    const page = await browser.context.newPage();
    try {
      const response = await page.goto(localUrl);
      expect(response!.status()).toBe(200);
      const headers = response!.headers();
      expect(headers["referrer-policy"]).toBe("no-referrer");
      expect(headers["cache-control"]).toBe("no-store");
      expect(headers["content-security-policy"]).toContain("default-src 'none'");
      // The token leaves the address bar once the page has loaded; the form keeps it.
      await expect.poll(() => page.url()).toBe(`${t.authUrl}/integration/admin/password-reset/page`);
      expect(await page.locator('input[type=hidden][name="token"]').inputValue()).toBe(token);
      const field = page.getByLabel("Contraseña nueva");
      expect(await field.getAttribute("type")).toBe("password");
      expect(await field.getAttribute("autocomplete")).toBe("new-password");
      expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);

      await field.fill(NEW_PASSWORD);
      await page.getByRole("button", { name: "Guardar contraseña" }).click();
      await expect.poll(() => page.locator("h1").textContent()).toBe("Contraseña actualizada");
      expect(await page.getByRole("link", { name: "Ingresar al portal" }).getAttribute("href")).toBe(`${t.service.publicUrls.admin}/portal/`);
    } finally {
      await page.close();
    }

    expect((await login(admin.email, NEW_PASSWORD)).json).toMatchObject({ tokenType: "Bearer", passwordChangeRequired: false });
    const old = await login(admin.email, admin.password);
    expect(old.status).toBe(401);
    expect(old.json).toEqual(generalError("InvalidCredentialsError"));
    // Both earlier sessions ended: their idTokens and their refresh tokens.
    for (const session of [first, second]) {
      expect((await bearerCaller(t.adminUrl, () => session.json.idToken)("GET", "/my-integration/admins")).status).toBe(401);
    }
    const sessions = await t.database.db
      .selectFrom("admin_sessions")
      .innerJoin("admin_users", "admin_users.id", "admin_sessions.admin_user_id")
      .select(["admin_sessions.created_at", "admin_sessions.revoked_at"])
      .where("admin_users.email", "=", admin.email)
      .orderBy("admin_sessions.created_at")
      .execute();
    expect(sessions).toHaveLength(3);
    expect(sessions.filter((session) => session.revoked_at === null)).toHaveLength(1); // the one opened with the new password

    const again = await complete({ token, newPassword: "y-otra-clave-mas-todavia" });
    expect(again.status).toBe(410);
    expect(again.json).toEqual(generalError("PasswordResetLinkInvalidError"));
    const reopened = await read(await fetch(localUrl));
    expect(reopened.status).toBe(410);
    expect(reopened.text).toContain("Este enlace ya no sirve");
    expect((await login(admin.email, NEW_PASSWORD)).status).toBe(200);
    // The link never reaches a log line.
    expect(JSON.stringify(t.logLines)).not.toContain(token);
  });

  it("shows a too short password on the form again (400) and changes nothing", async () => {
    const admin = await freshAdmin();
    await askForReset(admin.email);
    const { token, localUrl } = await resetLink(admin.email);
    const page = await browser.context.newPage();
    try {
      await page.goto(localUrl);
      // Past the browser's own minlength check, as a request that skipped it would be.
      await page.locator("#newPassword").evaluate((input) => input.removeAttribute("minlength"));
      await page.locator("#newPassword").fill("corta");
      const [answer] = await Promise.all([page.waitForResponse((response) => response.request().method() === "POST"), page.getByRole("button").click()]);
      expect(answer.status()).toBe(400);
      await expect.poll(() => page.getByRole("alert").getAttribute("data-code")).toBe("ValidationError");
      expect(await page.locator('input[type=hidden][name="token"]').inputValue()).toBe(token);
    } finally {
      await page.close();
    }
    expect((await login(admin.email, admin.password)).status).toBe(200);
    expect((await complete({ token, newPassword: NEW_PASSWORD })).status).toBe(204);
  });
});

describe("completing a reset (JSON)", () => {
  it("refuses a weak password with 400 ValidationError and changes nothing; the link still works", async () => {
    const admin = await freshAdmin();
    await askForReset(admin.email);
    const { token } = await resetLink(admin.email);
    const session = await login(admin.email, admin.password);

    const short = await complete({ token, newPassword: "corta" });
    expect(short.status).toBe(400);
    expect(short.json).toEqual({
      code: "ValidationError",
      message: expect.any(String),
      id: expect.any(String),
      validationDetails: [expect.objectContaining({ field: expect.stringContaining("newPassword") })],
    });
    const noToken = await complete({ newPassword: NEW_PASSWORD });
    expect(noToken.status).toBe(400);
    expect(noToken.json.code).toBe("ValidationError");

    expect((await login(admin.email, admin.password)).status).toBe(200);
    expect((await bearerCaller(t.adminUrl, () => session.json.idToken)("GET", "/my-integration/admins")).status).toBe(200);
    expect((await complete({ token, newPassword: NEW_PASSWORD })).status).toBe(204);
  });

  it("refuses an unknown token with 410 PasswordResetLinkInvalidError", async () => {
    const refused = await complete({ token: "pr_no-existe-este-enlace", newPassword: NEW_PASSWORD });
    expect(refused.status).toBe(410);
    expect(refused.json).toEqual(generalError("PasswordResetLinkInvalidError"));
  });

  it("a link works until its hour is up, not after", async () => {
    const late = await freshAdmin();
    await askForReset(late.email);
    const expired = await resetLink(late.email);
    const inTime = await freshAdmin();
    await askForReset(inTime.email);
    const valid = await resetLink(inTime.email);

    t.clock.advance(HOUR_MS - 60_000);
    expect((await complete({ token: valid.token, newPassword: NEW_PASSWORD })).status).toBe(204);
    t.clock.advance(60_000);
    const refused = await complete({ token: expired.token, newPassword: NEW_PASSWORD });
    expect(refused.status).toBe(410);
    expect(refused.json).toEqual(generalError("PasswordResetLinkInvalidError"));
    expect((await read(await fetch(expired.localUrl))).status).toBe(410);
    expect((await login(late.email, late.password)).status).toBe(200);
  });

  it("a newer request replaces the earlier link", async () => {
    const admin = await freshAdmin();
    await askForReset(admin.email);
    const older = await resetLink(admin.email, 1);
    await askForReset(admin.email);
    const newer = await resetLink(admin.email, 2);
    expect(newer.token).not.toBe(older.token);

    const refused = await complete({ token: older.token, newPassword: NEW_PASSWORD });
    expect(refused.status).toBe(410);
    expect(refused.json).toEqual(generalError("PasswordResetLinkInvalidError"));
    expect((await complete({ token: newer.token, newPassword: NEW_PASSWORD })).status).toBe(204);
    expect((await login(admin.email, NEW_PASSWORD)).status).toBe(200);
  });

  it("clears a pending temporary password", async () => {
    const admin = await freshAdmin();
    await t.database.db
      .updateTable("admin_users")
      .set({ password_change_required: true, password_expires_at: new Date(t.clock.now().getTime() + HOUR_MS) })
      .where("email", "=", admin.email)
      .execute();
    await askForReset(admin.email);
    const { token } = await resetLink(admin.email);
    expect((await complete({ token, newPassword: NEW_PASSWORD })).status).toBe(204);
    t.clock.advance(2 * HOUR_MS);
    expect((await login(admin.email, NEW_PASSWORD)).json).toMatchObject({ passwordChangeRequired: false });
  });
});

describe("Production without a mail server", () => {
  it("still answers 202 and logs a warning without the link", async () => {
    const production = await startTestService({ env: { SERVICE_ENV: "production" } });
    try {
      const admin = (await production.sandbox()).integrationAdmin;
      const answer = await read(await postJson(`${production.authUrl}/integration/admin/password-reset`, { email: admin.email }));
      expect(answer.status).toBe(202);
      const warning = production.logLines.find((line) => String(line.msg).startsWith("a password reset link was asked for"));
      expect(warning, "the warning about the unsent link").toBeDefined();
      const stored = await production.database.db.selectFrom("password_links").select("token_hash").executeTakeFirstOrThrow();
      expect(JSON.stringify(production.logLines)).not.toContain(stored.token_hash);
      expect(JSON.stringify(production.logLines)).not.toMatch(/pr_[A-Za-z0-9_-]{20,}/);
    } finally {
      await production.close();
    }
  });
});
