// A merchant account brought in by the provider's systems, from end to end in a Production deployment:
// provisioned with the platform API key, invited over a real SMTP server on loopback, its password chosen
// on the invitation's page in a real browser, signed in on the authorization screen, linked by an
// integration that creates a charge a bank-feed transfer pays. Then the merchant's "forgot password":
// the admins' reset rules (one hour, once, hashed, no account enumeration) for merchant accounts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHmac } from "node:crypto";
import { bearerCaller, read, serviceForFile } from "../helpers/service.ts";
import { startSmtpServer, type TestSmtpServer } from "../helpers/smtp-server.ts";
import { launchBrowser, type TestBrowser } from "../../scripts/chromium.ts";
import { mailedLink, openMailedLinkPage, postForm } from "../helpers/mailed-links.ts";
import { authorizeUrl, exchangeCode, obtainCode, openSignInForm, submitSignIn } from "../helpers/oauth.ts";
import { chargeBody } from "../helpers/charges.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { createPlatformApiKey } from "../../domain/sign-in/platform-api-keys.ts";
import { sha256 } from "../../domain/secrets/hashing.ts";

const BANK_FEED_SECRET = "bank-feed-secret-for-tests-0123456789";
const NEW_PASSWORD = "mi-clave-de-comercio-larga";
const HOUR_MS = 3600 * 1000;

let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(async () => {
  await smtp?.close();
});

const t = serviceForFile(() => ({
  start: new Date("2026-11-23T15:00:00Z"),
  env: { SERVICE_ENV: "production", COBRO_SMTP_URL: smtp.url, COBRO_MAIL_FROM: "Cobro <cuentas@cobro.test>", COBRO_BANK_FEED_SECRET: BANK_FEED_SECRET },
}));

let browser: TestBrowser;
beforeAll(async () => {
  browser = await launchBrowser({ viewport: { width: 375, height: 740 } });
});
afterAll(async () => {
  await browser?.close();
});

let apiKey: string;
beforeAll(async () => {
  apiKey = (await createPlatformApiKey(t.database.db, "the provider's systems")).key;
});

const setup = {
  t,
  get smtp() {
    return smtp;
  },
  get browser() {
    return browser;
  },
};

async function provision(providerMerchantId: string, body: Record<string, unknown>) {
  return read(
    await fetch(`${t.adminUrl}/integration-admin/merchant-accounts/${providerMerchantId}`, {
      method: "PUT",
      headers: { "content-type": "application/json", "x-cobro-api-key": apiKey },
      body: JSON.stringify(body),
    }),
  );
}

function accountBody(email: string, status = "active") {
  return { email, legalName: "La Espiga S.R.L.", cuit: "30712345671", tradeName: "Panadería La Espiga", status };
}

const PAGE_PATH = "/integration/merchant/password-reset/page";

function invitationLink(email: string) {
  return mailedLink(setup, {
    email,
    subject: /^Bienvenido a Cobro: elegí la contraseña de tu cuenta de comercio$/,
    linkLabel: "Elegí tu contraseña en:",
    path: PAGE_PATH,
  });
}

function resetLink(email: string, count: number) {
  return mailedLink(setup, { email, count, subject: /^Cobro: restablecé tu contraseña$/, linkLabel: "Elegí una contraseña nueva en:", path: PAGE_PATH });
}

async function askForReset(email: string) {
  return postForm(`${t.authUrl}/integration/merchant/password-reset`, { email });
}

/** A provisioned, invited merchant account whose password is set through its invitation (without a browser). */
async function merchantWithPassword() {
  const email = `${uniqueRef("comercio")}@example.com`;
  expect((await provision(uniqueRef("wallet"), accountBody(email))).status).toBe(201);
  const link = await invitationLink(email);
  expect((await postForm(`${t.authUrl}${PAGE_PATH}`, { token: link.token, newPassword: NEW_PASSWORD })).status).toBe(200);
  return { email, password: NEW_PASSWORD };
}

describe("a merchant account from the provider's systems, in Production", () => {
  it("is invited, chooses its password, signs in on the authorization screen, is linked, and a bank transfer pays its charge", async () => {
    const email = `${uniqueRef("espiga")}@example.com`;
    const providerMerchantId = uniqueRef("wallet");
    const created = await provision(providerMerchantId, accountBody(email));
    expect(created.status).toBe(201);
    const merchantAccountId: string = created.json.merchantAccount.merchantAccountId;
    const { integration } = await t.sandbox();
    const client = { clientId: integration.clientId, redirectUri: integration.redirectUri };

    // Before it has chosen a password, nothing signs it in.
    const form = await openSignInForm(authorizeUrl(t.authUrl, { response_type: "code", client_id: client.clientId, redirect_uri: client.redirectUri }));
    expect(form.page).toContain('href="/integration/merchant/password-reset"');
    const early = await submitSignIn(t.authUrl, form, email, "cualquier-clave-larga");
    expect(early.status).toBe(401);
    expect(early.page).toContain('data-code="InvalidCredentialsError"');

    // The invitation's page, at a phone's width: the password is chosen there.
    const link = await invitationLink(email);
    expect(link.text).toContain(`Usuario: ${email}`);
    const page = await openMailedLinkPage(setup, link);
    try {
      await page.getByLabel("Contraseña nueva").fill(NEW_PASSWORD);
      await page.getByRole("button", { name: "Guardar contraseña" }).click();
      await expect.poll(() => page.locator("h1").textContent()).toBe("Contraseña guardada");
    } finally {
      await page.close();
    }
    const reused = await postForm(`${t.authUrl}${PAGE_PATH}`, { token: link.token, newPassword: "otra-clave-mas-larga" });
    expect(reused.status).toBe(410);
    expect(reused.text).toContain('data-code="PasswordResetLinkInvalidError"');
    expect((await provision(providerMerchantId, accountBody(email))).json.merchantAccount).toMatchObject({ passwordSet: true });

    // The authorization screen, the integrator's code exchange, and the merchant's identity.
    const code = await obtainCode(t.authUrl, client, { email, password: NEW_PASSWORD });
    const tokens = await exchangeCode(t.authUrl, integration, code);
    expect(tokens.status).toBe(200);
    const merchant = bearerCaller(t.integrationUrl, () => tokens.json.idToken);
    expect((await merchant("GET", "/me")).json).toMatchObject({
      merchantUserId: merchantAccountId,
      email,
      fantasyName: "Panadería La Espiga",
      accountHolderName: "La Espiga S.R.L.",
      accountHolderTaxId: "30712345671",
    });

    // A charge, paid by the bank's transfer to its CVU.
    const referenceId = uniqueRef("ESPIGA");
    const charge = await merchant("POST", "/payment-request", chargeBody({ referenceId, amount: 1500 }));
    expect(charge.status).toBe(201);
    const transfer = JSON.stringify({
      transactionId: uniqueRef("BNK"),
      amount: 1500,
      receivingCvu: charge.json.CVU,
      senderCuil: "20301234563",
      operatedAt: "2026-11-23T12:30:00-03:00",
    });
    const at = Math.floor(t.clock.now().getTime() / 1000);
    const fed = await read(
      await fetch(`${t.adminUrl}/internal/bank-feed/transfers`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-bank-feed-signature": `t=${at},v1=${createHmac("sha256", BANK_FEED_SECRET).update(`${at}.${transfer}`).digest("hex")}`,
        },
        body: transfer,
      }),
    );
    expect(fed.json).toMatchObject({ duplicate: false, conciliated: true, paymentRequestId: charge.json.paymentRequestId });
    expect((await merchant("GET", `/payment-request/${referenceId}`)).json.state).toBe("total_payment");
  });
});

describe("a change of the account's email", () => {
  const signInClient = async () => (await t.sandbox()).integration;

  it("ends the invitation mailed to the old address and invites the new one, whose link signs in as the new email", async () => {
    const providerMerchantId = uniqueRef("wallet");
    const oldEmail = `${uniqueRef("viejo")}@example.com`;
    const newEmail = `${uniqueRef("nuevo")}@example.com`;
    expect((await provision(providerMerchantId, accountBody(oldEmail))).status).toBe(201);
    const oldLink = await invitationLink(oldEmail);
    t.clock.advance(60_000);
    const changed = await provision(providerMerchantId, accountBody(newEmail));
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({ result: "updated", merchantAccount: { email: newEmail, invitationSentAt: t.clock.now().toISOString() } });

    const stale = await postForm(`${t.authUrl}${PAGE_PATH}`, { token: oldLink.token, newPassword: NEW_PASSWORD });
    expect(stale.status).toBe(410);
    expect(stale.text).toContain('data-code="PasswordResetLinkInvalidError"');
    const fresh = await invitationLink(newEmail);
    expect(fresh.text).toContain(`Usuario: ${newEmail}`);
    expect((await postForm(`${t.authUrl}${PAGE_PATH}`, { token: fresh.token, newPassword: NEW_PASSWORD })).status).toBe(200);
    await obtainCode(t.authUrl, await signInClient(), { email: newEmail, password: NEW_PASSWORD });
    expect(smtp.to(oldEmail)).toHaveLength(1);
  });

  it("ends a reset link mailed to the old address and tells the new address that the sign-in email changed", async () => {
    const providerMerchantId = uniqueRef("wallet");
    const oldEmail = `${uniqueRef("viejo")}@example.com`;
    const newEmail = `${uniqueRef("nuevo")}@example.com`;
    expect((await provision(providerMerchantId, accountBody(oldEmail))).status).toBe(201);
    const invitation = await invitationLink(oldEmail);
    expect((await postForm(`${t.authUrl}${PAGE_PATH}`, { token: invitation.token, newPassword: NEW_PASSWORD })).status).toBe(200);
    await askForReset(oldEmail);
    const reset = await resetLink(oldEmail, 2);

    const changed = await provision(providerMerchantId, accountBody(newEmail));
    expect(changed.json).toMatchObject({ result: "updated", merchantAccount: { email: newEmail, passwordSet: true } });
    expect((await postForm(`${t.authUrl}${PAGE_PATH}`, { token: reset.token, newPassword: "otra-clave-mas-larga" })).status).toBe(410);
    const [notice] = await smtp.waitFor(newEmail, 1);
    expect(notice!.subject).toBe("Cobro: cambió el email de tu cuenta de comercio");
    expect(notice!.text).toContain(`Usuario: ${newEmail}`);
    expect(notice!.text).not.toMatch(/token=/);
    // The password stays: it signs in with the new email.
    await obtainCode(t.authUrl, await signInClient(), { email: newEmail, password: NEW_PASSWORD });
  });
});

describe("the merchant's forgotten password", () => {
  it("answers the same page for a known, an unknown and a suspended account's email, and mails only the known active one", async () => {
    const merchant = await merchantWithPassword();
    const suspendedEmail = `${uniqueRef("suspendido")}@example.com`;
    expect((await provision(uniqueRef("wallet"), accountBody(suspendedEmail, "suspended"))).status).toBe(201);
    const unknown = `${uniqueRef("nadie")}@example.com`;
    const answers = [await askForReset(unknown), await askForReset(merchant.email.toUpperCase()), await askForReset(suspendedEmail)];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.text).toContain("Si ese email es de una cuenta de comercio activa, te enviamos un enlace");
    }
    await resetLink(merchant.email, 2);
    expect(smtp.to(unknown)).toEqual([]);
    expect(smtp.to(suspendedEmail)).toEqual([]);
    // Asking changes nothing by itself: the current password still signs in.
    const { integration } = await t.sandbox();
    await obtainCode(t.authUrl, integration, merchant);
  });

  it("shows the form at the link of the authorization screen", async () => {
    const answer = await read(await fetch(`${t.authUrl}/integration/merchant/password-reset`));
    expect(answer.status).toBe(200);
    expect(answer.headers.get("content-type")).toMatch(/^text\/html/);
    expect(answer.text).toContain('<form method="post" action="/integration/merchant/password-reset">');
  });

  it("sets a new password with the link, once; the link is stored hashed; the old password stops working", async () => {
    const merchant = await merchantWithPassword();
    await askForReset(merchant.email);
    const link = await resetLink(merchant.email, 2);
    const stored = await t.database.db.selectFrom("password_links").select("token_hash").where("token_hash", "=", sha256(link.token)).execute();
    expect(stored).toHaveLength(1);

    const tooShort = await postForm(`${t.authUrl}${PAGE_PATH}`, { token: link.token, newPassword: "corta" });
    expect(tooShort.status).toBe(400);
    expect(tooShort.text).toContain('data-code="ValidationError"');

    const done = await postForm(`${t.authUrl}${PAGE_PATH}`, { token: link.token, newPassword: "una-clave-distinta-y-larga" });
    expect(done.status).toBe(200);
    expect((await postForm(`${t.authUrl}${PAGE_PATH}`, { token: link.token, newPassword: "una-clave-distinta-y-larga" })).status).toBe(410);
    const { integration } = await t.sandbox();
    const form = await openSignInForm(
      authorizeUrl(t.authUrl, { response_type: "code", client_id: integration.clientId, redirect_uri: integration.redirectUri }),
    );
    expect((await submitSignIn(t.authUrl, form, merchant.email, merchant.password)).status).toBe(401);
    await obtainCode(t.authUrl, integration, { email: merchant.email, password: "una-clave-distinta-y-larga" });
  });

  it("410 for a link past its hour, replaced by a newer one, unknown, or an admin's", async () => {
    const merchant = await merchantWithPassword();
    await askForReset(merchant.email);
    const older = await resetLink(merchant.email, 2);
    await askForReset(merchant.email);
    const newer = await resetLink(merchant.email, 3);
    t.clock.advance(HOUR_MS + 1000);
    const adminSet = await t.sandbox();
    await read(
      await fetch(`${t.authUrl}/integration/admin/password-reset`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: adminSet.integrationAdmin.email }),
      }),
    );
    const adminMail = (await smtp.waitFor(adminSet.integrationAdmin.email, 1))[0]!;
    const adminToken = new URL(/^Elegí una contraseña nueva en: (\S+)$/m.exec(adminMail.text)![1]!).searchParams.get("token")!;
    for (const token of [older.token, newer.token, "pr_desconocido", adminToken]) {
      const shown = await read(await fetch(`${t.authUrl}${PAGE_PATH}?token=${encodeURIComponent(token)}`));
      expect(shown.status).toBe(410);
      expect(shown.text).toContain('data-code="PasswordResetLinkInvalidError"');
      const submitted = await postForm(`${t.authUrl}${PAGE_PATH}`, { token, newPassword: "una-clave-distinta-y-larga" });
      expect(submitted.status).toBe(410);
    }
    // The admin's link still works on the admins' page: refusing it here did not use it up.
    expect((await read(await fetch(`${t.authUrl}/integration/admin/password-reset/page?token=${encodeURIComponent(adminToken)}`))).status).toBe(200);
  });

  it("429 with Retry-After past 10 requests for one email, and nothing more is mailed", async () => {
    const merchant = await merchantWithPassword();
    for (let i = 0; i < 10; i++) expect((await askForReset(merchant.email)).status).toBe(200);
    await resetLink(merchant.email, 11);
    const throttled = await askForReset(merchant.email);
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(throttled.text).toContain('data-code="TooManyAttemptsError"');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(smtp.to(merchant.email)).toHaveLength(11);
  });
});
