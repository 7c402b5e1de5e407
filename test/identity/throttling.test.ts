// Throttled guessing over real HTTP: the admin sign-in, the authorization screen, the merchant sign-ins of
// the mailed links' pages, the token endpoint's client authentication and the password reset count
// failures per account and per client address in PostgreSQL, answer 429 with Retry-After (without
// checking the credential) past the documented limits, and wait longer after each further failure.
import { request } from "node:http";
import { beforeEach, describe, expect, it } from "vitest";
import { GUESSING_LIMITS } from "../../domain/sign-in/credential-throttle.ts";
import { invitePayoutRecipient } from "../../domain/commissions/payout-link.ts";
import { proposeCommissionChange } from "../../domain/commissions/commission-proposals.ts";
import { startService } from "../../server/service.ts";
import { captureLogs } from "../helpers/captured-logs.ts";
import { postJson, read, serviceForFile } from "../helpers/service.ts";
import { authorizeUrl, openSignInForm, submitSignIn } from "../helpers/oauth.ts";
import { postForm } from "../helpers/mailed-links.ts";

// The Auth API's public URL is its bound address, so that the portal's forward reaches it.
const t = serviceForFile({ env: { COBRO_AUTH_URL: "" } });

// Every test starts with no counts: the counts of earlier tests (the same address) are past their window.
beforeEach(() => t.clock.advance(2 * 3600 * 1000));

const MINUTE_MS = 60_000;
const tooManyAttempts = { code: "TooManyAttemptsError", message: expect.stringMatching(/^Too many failed attempts/), id: expect.any(String) };
const adminLogin = async (body: { email: string; password: string }, headers: Record<string, string> = {}) =>
  read(await postJson(`${t.authUrl}/integration/admin/login`, body, headers));
const unknownEmail = (tag: string) => `nadie+${tag}-${Math.random().toString(36).slice(2, 8)}@example.com`;

/** A POST from another loopback address (127.0.0.2), as another browser would come. */
function postFrom(localAddress: string, url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const outgoing = request(
      url,
      { method: "POST", localAddress, headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)), ...headers } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, json: JSON.parse(Buffer.concat(chunks).toString("utf8") || "null") }));
      },
    );
    outgoing.on("error", reject);
    outgoing.end(text);
  });
}

describe("the admin sign-in", () => {
  it("answers 429 with Retry-After after 10 failures, even with the right password; after the wait a success works and starts the count again", async () => {
    const { integrationAdmin } = await t.sandbox();
    for (let i = 0; i < GUESSING_LIMITS.accountFailures; i++) expect((await adminLogin({ ...integrationAdmin, password: `wrong-${i}` })).status).toBe(401);

    const throttled = await adminLogin(integrationAdmin);
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get("retry-after")).toBe("60");
    expect(throttled.json).toEqual(tooManyAttempts);
    // Time passes (the controlled clock): the wait shrinks.
    t.clock.advance(45_000);
    expect((await adminLogin(integrationAdmin)).headers.get("retry-after")).toBe("15");

    t.clock.advance(16_000);
    expect((await adminLogin(integrationAdmin)).status).toBe(200);
    // The success started the count again: a failure now is one of ten, not the eleventh.
    expect((await adminLogin({ ...integrationAdmin, password: "wrong-again" })).status).toBe(401);
    expect((await adminLogin(integrationAdmin)).status).toBe(200);
  });

  it("doubles the wait for each failure past the threshold, up to 15 minutes", async () => {
    const { integrationAdmin } = await t.sandbox();
    for (let i = 0; i < GUESSING_LIMITS.accountFailures; i++) await adminLogin({ ...integrationAdmin, password: `wrong-${i}` });
    const waits: string[] = [];
    for (let i = 0; i < 5; i++) {
      const throttled = await adminLogin({ ...integrationAdmin, password: "still-wrong" });
      expect(throttled.status).toBe(429);
      waits.push(throttled.headers.get("retry-after")!);
      t.clock.advance(Number(waits.at(-1)) * 1000);
      expect((await adminLogin({ ...integrationAdmin, password: "still-wrong" })).status).toBe(401);
    }
    expect(waits).toEqual(["60", "120", "240", "480", "900"]);
    expect((await adminLogin(integrationAdmin)).headers.get("retry-after")).toBe("900");
  });

  it("throttles an unknown email exactly like a known one", async () => {
    const email = unknownEmail("admin");
    for (let i = 0; i < GUESSING_LIMITS.accountFailures; i++) {
      const refused = await adminLogin({ email, password: `wrong-${i}` });
      expect(refused.status).toBe(401);
      expect(refused.json.code).toBe("InvalidCredentialsError");
    }
    const throttled = await adminLogin({ email: email.toUpperCase(), password: "anything" });
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get("retry-after")).toBe("60");
    expect(throttled.json).toEqual(tooManyAttempts);
  });

  it("counts 50 failures per address over every account, and ignores an address header sent from outside", async () => {
    for (let i = 0; i < GUESSING_LIMITS.addressFailures; i++) {
      // Each failure claims another address in the portal's forward header, with a made-up secret: ignored.
      const refused = await adminLogin(
        { email: unknownEmail(`address-${i}`), password: "wrong" },
        { "x-cobro-portal-client": `203.0.113.${i}`, "x-cobro-portal-forward": "guessed" },
      );
      expect(refused.status).toBe(401);
    }
    const { integrationAdmin } = await t.sandbox();
    const throttled = await adminLogin(integrationAdmin, { "x-cobro-portal-client": "198.51.100.7" });
    expect(throttled.status).toBe(429);
    expect(throttled.json).toEqual(tooManyAttempts);

    // Another address is not throttled; through the portal's forward, the Auth API counts the browser's
    // address (127.0.0.2), not the Admin host's own (127.0.0.1, throttled here).
    expect((await postFrom("127.0.0.2", `${t.authUrl}/integration/admin/login`, integrationAdmin)).status).toBe(200);
    const viaPortal = await postFrom("127.0.0.2", `${t.adminUrl}/portal/auth-api/integration/admin/login`, integrationAdmin);
    expect(viaPortal.status).toBe(200);
    const portalFromThrottled = await read(await postJson(`${t.adminUrl}/portal/auth-api/integration/admin/login`, integrationAdmin));
    expect(portalFromThrottled.status).toBe(429);
    expect(portalFromThrottled.headers.get("retry-after")).toMatch(/^\d+$/);
  });

  it("shares the count between two service instances on one database", async () => {
    const { logger } = captureLogs();
    const second = await startService({ ...t.config, databaseUrl: t.database.connectionString }, { logger, clock: t.clock, validateResponses: true });
    try {
      const { integrationAdmin } = await t.sandbox();
      for (let i = 0; i < GUESSING_LIMITS.accountFailures; i++) {
        const url = i % 2 === 0 ? t.authUrl : second.urls.auth!;
        expect((await read(await postJson(`${url}/integration/admin/login`, { ...integrationAdmin, password: `wrong-${i}` }))).status).toBe(401);
      }
      for (const url of [t.authUrl, second.urls.auth!])
        expect((await read(await postJson(`${url}/integration/admin/login`, integrationAdmin))).status).toBe(429);
    } finally {
      await second.stop();
    }
  });
});

describe("the authorization screen", () => {
  it("shows the wait in Spanish with 429 and Retry-After, and does not check the password meanwhile", async () => {
    const sandbox = await t.sandbox();
    const form = await openSignInForm(
      authorizeUrl(t.authUrl, { response_type: "code", client_id: sandbox.integration.clientId, redirect_uri: sandbox.integration.redirectUri }),
    );
    for (let i = 0; i < GUESSING_LIMITS.accountFailures; i++)
      expect((await submitSignIn(t.authUrl, form, sandbox.merchant.email, `wrong-${i}`)).status).toBe(401);

    const response = await fetch(`${t.authUrl}/integration/oauth2/complete-login`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: form.cookie },
      body: new URLSearchParams({
        transaction: form.transaction,
        csrf: form.csrf,
        email: sandbox.merchant.email,
        password: sandbox.merchant.password,
      }).toString(),
    });
    const page = await response.text();
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("60");
    expect(response.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page).toContain('data-code="TooManyAttemptsError"');
    expect(page).toContain("Demasiados intentos. Probá de nuevo en 1 minuto.");

    t.clock.advance(MINUTE_MS);
    const signedIn = await submitSignIn(t.authUrl, form, sandbox.merchant.email, sandbox.merchant.password);
    expect(signedIn.status).toBe(303);
  });

  it("throttles an unknown email the same way", async () => {
    const sandbox = await t.sandbox();
    const form = await openSignInForm(
      authorizeUrl(t.authUrl, { response_type: "code", client_id: sandbox.integration.clientId, redirect_uri: sandbox.integration.redirectUri }),
    );
    const email = unknownEmail("merchant");
    for (let i = 0; i < GUESSING_LIMITS.accountFailures; i++) expect((await submitSignIn(t.authUrl, form, email, "wrong")).status).toBe(400);
    const throttled = await submitSignIn(t.authUrl, form, email, "wrong");
    expect(throttled.status).toBe(429);
    expect(throttled.page).toContain("Demasiados intentos. Probá de nuevo en 1 minuto.");
  });
});

describe("the merchant sign-in of the mailed links' pages", () => {
  async function integrationRow(clientId: string) {
    return t.database.db.selectFrom("integration_clients").select("id").where("provider_client_id", "=", clientId).executeTakeFirstOrThrow();
  }

  it("counts with the authorization screen: the payout link's page answers 429 with the wait in Spanish", async () => {
    const sandbox = await t.sandbox();
    const recipient = (await t.sandbox()).merchant;
    const invitation = await invitePayoutRecipient(t.database.db, t.clock, (await integrationRow(sandbox.integration.clientId)).id, recipient.email);
    const accept = (password: string) => postForm(`${t.authUrl}/integration/payout-link/accept`, { token: invitation.token, email: recipient.email, password });
    for (let i = 0; i < GUESSING_LIMITS.accountFailures; i++) expect((await accept(`wrong-${i}`)).status).toBe(401);

    const throttled = await accept(recipient.password);
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get("retry-after")).toBe("60");
    expect(throttled.text).toContain("Demasiados intentos. Probá de nuevo en 1 minuto.");
    // The same email on the authorization screen waits too.
    const form = await openSignInForm(
      authorizeUrl(t.authUrl, { response_type: "code", client_id: sandbox.integration.clientId, redirect_uri: sandbox.integration.redirectUri }),
    );
    expect((await submitSignIn(t.authUrl, form, recipient.email, recipient.password)).status).toBe(429);

    t.clock.advance(MINUTE_MS);
    expect((await accept(recipient.password)).status).toBe(200);
  });

  it("answers 429 on the commission proposal's page", async () => {
    const sandbox = await t.sandbox();
    const integration = await integrationRow(sandbox.integration.clientId);
    const link = await t.database.db
      .selectFrom("merchant_links")
      .select("id")
      .where("integration_client_id", "=", integration.id)
      .where("merchant_account_id", "=", sandbox.merchant.merchantUserId)
      .executeTakeFirstOrThrow();
    const proposal = await proposeCommissionChange(t.database.db, t.clock, { integrationClientId: integration.id, linkId: link.id, percentage: 1.5 });
    const answer = (password: string) =>
      postForm(`${t.authUrl}/integration/commission-proposals/answer`, { token: proposal.token, email: sandbox.merchant.email, password, decision: "accept" });
    for (let i = 0; i < GUESSING_LIMITS.accountFailures; i++) expect((await answer(`wrong-${i}`)).status).toBe(401);
    const throttled = await answer(sandbox.merchant.password);
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get("retry-after")).toBe("60");
    expect(throttled.text).toContain("Demasiados intentos. Probá de nuevo en 1 minuto.");
  });
});

describe("the token endpoint's client authentication", () => {
  it("answers 429 per client_id after 10 wrong secrets, even with the right one; after the wait the client authenticates", async () => {
    const { integration } = await t.sandbox();
    const token = async (clientSecret: string) =>
      read(
        await fetchToken({
          grantType: "authorization_code",
          code: "ac_unknown",
          clientId: integration.clientId,
          clientSecret,
          redirectUri: integration.redirectUri,
        }),
      );
    for (let i = 0; i < GUESSING_LIMITS.accountFailures; i++) {
      const refused = await token(`cs_wrong_${i}`);
      expect(refused.status).toBe(401);
      expect(refused.json.code).toBe("InvalidClientError");
    }
    const throttled = await token(integration.clientSecret);
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get("retry-after")).toBe("60");
    expect(throttled.json).toEqual(tooManyAttempts);

    // The RFC 6749 form (HTTP Basic) counts on the same client_id.
    const basic = await read(
      await fetch(`${t.authUrl}/integration/oauth2/token`, {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${Buffer.from(`${integration.clientId}:${integration.clientSecret}`).toString("base64")}`,
        },
        body: new URLSearchParams({ grant_type: "authorization_code", code: "ac_unknown", redirect_uri: integration.redirectUri }).toString(),
      }),
    );
    expect(basic.status).toBe(429);
    expect(basic.headers.get("retry-after")).toBe("60");
    // In RFC 6749 §5.2's words, as that form's clients read a refusal.
    expect(basic.json).toEqual({
      error: "temporarily_unavailable",
      error_description: expect.any(String),
      code: "TooManyAttemptsError",
      id: expect.any(String),
    });

    t.clock.advance(MINUTE_MS);
    // The client authenticates; the unknown code is what is refused now.
    const afterWait = await token(integration.clientSecret);
    expect(afterWait.status).toBe(400);
    expect(afterWait.json.code).toBe("InvalidGrantError");
  });

  function fetchToken(body: unknown): Promise<Response> {
    return postJson(`${t.authUrl}/integration/oauth2/token`, body);
  }
});

describe("the admin password reset", () => {
  it("answers 429 after 10 requests for one email in 15 minutes", async () => {
    const email = unknownEmail("reset");
    for (let i = 0; i < GUESSING_LIMITS.accountFailures; i++)
      expect((await read(await postJson(`${t.authUrl}/integration/admin/password-reset`, { email }))).status).toBe(202);
    const throttled = await read(await postJson(`${t.authUrl}/integration/admin/password-reset`, { email }));
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get("retry-after")).toBe("60");
    expect(throttled.json).toEqual(tooManyAttempts);
  });

  it("answers 429 after 50 refused tokens from one address, as JSON and on the reset page in Spanish", async () => {
    for (let i = 0; i < GUESSING_LIMITS.addressFailures; i++) {
      const refused = await read(
        await postJson(`${t.authUrl}/integration/admin/password-reset/complete`, { token: `pr_guess_${i}`, newPassword: "una-clave-nueva-larga" }),
      );
      expect(refused.status).toBe(410);
    }
    const json = await read(
      await postJson(`${t.authUrl}/integration/admin/password-reset/complete`, { token: "pr_guess", newPassword: "una-clave-nueva-larga" }),
    );
    expect(json.status).toBe(429);
    expect(json.headers.get("retry-after")).toBe("60");
    expect(json.json).toEqual(tooManyAttempts);

    const page = await postForm(`${t.authUrl}/integration/admin/password-reset/page`, { token: "pr_guess", newPassword: "una-clave-nueva-larga" });
    expect(page.status).toBe(429);
    expect(page.headers.get("retry-after")).toBe("60");
    expect(page.text).toContain("Demasiados intentos. Probá de nuevo en 1 minuto.");
  });
});
