// Guessing limits hold under parallel requests: an attempt is counted before its credential is checked,
// so a burst for one account gets at most the configured number of checks however many requests arrive at
// once, and a right credential inside a burst over the limit is refused like the others. Each burst sends
// its right credential last.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { GUESSING_LIMITS } from "../../domain/sign-in/credential-throttle.ts";
import { authorizeUrl, openSignInForm, submitSignIn } from "../helpers/oauth.ts";
import { postJson, serviceForFile } from "../helpers/service.ts";
import { startSmtpServer, type TestSmtpServer } from "../helpers/smtp-server.ts";

let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(() => smtp?.close());
const t = serviceForFile(() => ({ env: { COBRO_SMTP_URL: smtp.url, COBRO_MAIL_FROM: "Cobro <seguridad@cobro.test>" } }));

// Every test starts with no counts: the counts of earlier tests (the same address) are past their window.
beforeEach(() => t.clock.advance(2 * 3600 * 1000));

/** How many answers had each status. */
function tally(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

describe("a parallel burst", () => {
  it("of 200 admin sign-ins for one account, the right password among them, gives no token and checks at most 10", async () => {
    const { integrationAdmin } = await t.sandbox();
    const bodies = [...Array.from({ length: 199 }, (_, i) => ({ ...integrationAdmin, password: `wrong-${i}` })), integrationAdmin];
    const statuses = await Promise.all(bodies.map(async (body) => (await postJson(`${t.authUrl}/integration/admin/login`, body)).status));
    const counts = tally(statuses);
    expect(counts[200], JSON.stringify(counts)).toBeUndefined();
    expect(counts[401] ?? 0).toBeLessThanOrEqual(GUESSING_LIMITS.accountFailures);
    expect((counts[401] ?? 0) + (counts[429] ?? 0)).toBe(200);
    // The account waits: the right password alone is refused too, until the wait is over.
    expect((await postJson(`${t.authUrl}/integration/admin/login`, integrationAdmin)).status).toBe(429);
  });

  it("of 100 sign-ins on the authorization screen, the right password among them, links nothing and checks at most 10", async () => {
    const { integration, merchant } = await t.sandbox();
    const form = await openSignInForm(
      authorizeUrl(t.authUrl, { response_type: "code", client_id: integration.clientId, redirect_uri: integration.redirectUri }),
    );
    const passwords = [...Array.from({ length: 99 }, (_, i) => `wrong-${i}`), merchant.password];
    const attempts = await Promise.all(passwords.map((password) => submitSignIn(t.authUrl, form, merchant.email, password)));
    const counts = tally(attempts.map((attempt) => attempt.status));
    expect(
      attempts.filter((attempt) => attempt.location !== null),
      JSON.stringify(counts),
    ).toEqual([]);
    expect(counts[401] ?? 0).toBeLessThanOrEqual(GUESSING_LIMITS.accountFailures);
    expect((counts[401] ?? 0) + (counts[429] ?? 0)).toBe(100);
  });

  it("of 100 client secrets for one client_id, the right one among them, authenticates nothing and checks at most 10", async () => {
    const { integration } = await t.sandbox();
    const secrets = [...Array.from({ length: 99 }, (_, i) => `cs_wrong_${i}`), integration.clientSecret];
    const statuses = await Promise.all(
      secrets.map(
        async (clientSecret) =>
          (
            await postJson(`${t.authUrl}/integration/oauth2/token`, {
              grantType: "authorization_code",
              code: "ac_unknown",
              clientId: integration.clientId,
              clientSecret,
              redirectUri: integration.redirectUri,
            })
          ).status,
      ),
    );
    const counts = tally(statuses);
    // An authenticated client would get past its credentials to the unknown code: 400 InvalidGrantError.
    expect(counts[400], JSON.stringify(counts)).toBeUndefined();
    expect(counts[401] ?? 0).toBeLessThanOrEqual(GUESSING_LIMITS.accountFailures);
    expect((counts[401] ?? 0) + (counts[429] ?? 0)).toBe(100);
  });

  it("of 100 password reset tokens from one address checks at most 50", async () => {
    const statuses = await Promise.all(
      Array.from(
        { length: 100 },
        async (_, i) =>
          (await postJson(`${t.authUrl}/integration/admin/password-reset/complete`, { token: `pr_guess_${i}`, newPassword: "una-clave-nueva-larga" })).status,
      ),
    );
    const counts = tally(statuses);
    expect(counts[410] ?? 0, JSON.stringify(counts)).toBeLessThanOrEqual(GUESSING_LIMITS.addressFailures);
    expect((counts[410] ?? 0) + (counts[429] ?? 0)).toBe(100);
  });

  it("of 60 password reset requests for one email sends at most 10 emails", async () => {
    const { integrationAdmin } = await t.sandbox();
    const statuses = await Promise.all(
      Array.from({ length: 60 }, async () => (await postJson(`${t.authUrl}/integration/admin/password-reset`, { email: integrationAdmin.email })).status),
    );
    const counts = tally(statuses);
    const accepted = counts[202] ?? 0;
    expect(accepted, JSON.stringify(counts)).toBeGreaterThan(0);
    expect(accepted).toBeLessThanOrEqual(GUESSING_LIMITS.accountFailures);
    expect(accepted + (counts[429] ?? 0)).toBe(60);
    // Each accepted request mails one link (after its answer): exactly that many arrive, no more.
    await smtp.waitFor(integrationAdmin.email, accepted);
    expect(smtp.to(integrationAdmin.email)).toHaveLength(accepted);
  });

  it("of sign-ins for new emails from one address stops at the address's 50: a waiting address adds no row", async () => {
    const signIn = (email: string) => postJson(`${t.authUrl}/integration/admin/login`, { email, password: "any-password" });
    const first = await Promise.all(Array.from({ length: GUESSING_LIMITS.addressFailures }, (_, i) => signIn(`nadie-${i}@example.com`)));
    expect(first.map((answer) => answer.status)).toEqual(Array(GUESSING_LIMITS.addressFailures).fill(401));
    const countRows = async () =>
      (
        await t.database.db
          .selectFrom("credential_failures")
          .select((eb) => eb.fn.countAll<string>().as("n"))
          .executeTakeFirstOrThrow()
      ).n;
    const rows = await countRows();
    const more = await Promise.all(Array.from({ length: 100 }, (_, i) => signIn(`otro-${i}@example.com`)));
    expect(more.map((answer) => answer.status)).toEqual(Array(100).fill(429));
    expect(await countRows()).toBe(rows);
  });
});
