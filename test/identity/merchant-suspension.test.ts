// The provider suspends or closes a merchant account: its sign-in and its tokens are refused at once (the
// token checks forget what they remembered, as for a revoked grant), its integrations get the seed's 403
// for an account they may no longer use, its open charges stay open and a transfer still pays them;
// reactivated, it works again; closed, it is for good and its authorizations are revoked.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearerCaller, postJson, read, serviceForFile } from "../helpers/service.ts";
import { startSmtpServer, type TestSmtpServer } from "../helpers/smtp-server.ts";
import { mailedLink, postForm } from "../helpers/mailed-links.ts";
import { authorizeUrl, exchangeCode, obtainCode, openSignInForm, submitSignIn } from "../helpers/oauth.ts";
import { sandboxAdmin, signedInAdmin } from "../helpers/sandbox-admin.ts";
import { chargeBody } from "../helpers/charges.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";

const PASSWORD = "mi-clave-de-comercio-larga";
const NOT_LINKED = "Not authorized as user of integration client";

let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(async () => {
  await smtp?.close();
});

const t = serviceForFile(() => ({ env: { COBRO_SMTP_URL: smtp.url, COBRO_MAIL_FROM: "Cobro <cuentas@cobro.test>" } }));

/** A provisioned merchant account with its password, linked to a fresh integration through the authorization screen. */
async function linkedProvisionedMerchant() {
  const set = await t.sandbox();
  const platform = await signedInAdmin(t, set.platformAdmin);
  const email = `${uniqueRef("comercio")}@example.com`;
  const providerMerchantId = uniqueRef("wallet");
  const body = { email, legalName: "La Espiga S.R.L.", cuit: "30712345671", tradeName: "Panadería La Espiga", status: "active" };
  const provision = (status: string) => platform.call("PUT", `/integration-admin/merchant-accounts/${providerMerchantId}`, { ...body, status });
  expect((await provision("active")).status).toBe(201);
  const link = await mailedLink(
    { t, smtp },
    { email, subject: /^Bienvenido a Cobro/, linkLabel: "Elegí tu contraseña en:", path: "/integration/merchant/password-reset/page" },
  );
  expect((await postForm(`${t.authUrl}/integration/merchant/password-reset/page`, { token: link.token, newPassword: PASSWORD })).status).toBe(200);
  const code = await obtainCode(t.authUrl, set.integration, { email, password: PASSWORD });
  const tokens = (await exchangeCode(t.authUrl, set.integration, code)).json;
  const merchant = bearerCaller(t.integrationUrl, () => tokens.idToken);
  const refresh = async () =>
    read(
      await postJson(`${t.authUrl}/integration/oauth2/refresh`, {
        grantType: "refresh_token",
        refreshToken: tokens.refreshToken,
        clientId: set.integration.clientId,
        clientSecret: set.integration.clientSecret,
      }),
    );
  const signIn = async (password: string) => {
    const form = await openSignInForm(
      authorizeUrl(t.authUrl, { response_type: "code", client_id: set.integration.clientId, redirect_uri: set.integration.redirectUri }),
    );
    return submitSignIn(t.authUrl, form, email, password);
  };
  const clientInfo = async () => read(await fetch(`${t.authUrl}/integration/oauth2/client-info`, { headers: { authorization: `Bearer ${tokens.idToken}` } }));
  return { set, email, merchant, provision, refresh, signIn, clientInfo };
}

function expectNotLinked(answer: Awaited<ReturnType<typeof read>>) {
  expect(answer.status).toBe(403);
  expect(answer.text).toBe(NOT_LINKED);
}

describe("suspending a merchant account", () => {
  it("refuses its tokens and its sign-in at once, keeps its open charge payable, and reactivating restores it", async () => {
    const m = await linkedProvisionedMerchant();
    expect((await m.merchant("GET", "/me")).status).toBe(200);
    const referenceId = uniqueRef("SUSP");
    const charge = await m.merchant("POST", "/payment-request", chargeBody({ referenceId, amount: 800 }));
    expect(charge.status).toBe(201);

    expect((await m.provision("suspended")).json).toMatchObject({ result: "updated", merchantAccount: { status: "suspended" } });
    // At once: the request right after the change is refused, though the check was remembered a moment ago.
    expectNotLinked(await m.merchant("GET", "/me"));
    expectNotLinked(await m.merchant("POST", "/payment-request", chargeBody({ referenceId: uniqueRef("SUSP"), amount: 100 })));
    const refreshed = await m.refresh();
    expect(refreshed.status).toBe(400);
    expect(refreshed.json).toEqual({ code: "InvalidGrantError", message: expect.any(String), id: expect.any(String) });
    expect((await m.clientInfo()).status).toBe(401);

    const rightPassword = await m.signIn(PASSWORD);
    expect(rightPassword.status).toBe(403);
    expect(rightPassword.page).toContain('data-code="MerchantAccountNotActiveError"');
    expect(rightPassword.page).toContain("Tu cuenta de comercio está suspendida o cerrada");
    // A wrong password learns nothing about the account's state.
    const wrongPassword = await m.signIn("otra-clave-equivocada");
    expect(wrongPassword.status).toBe(401);
    expect(wrongPassword.page).toContain('data-code="InvalidCredentialsError"');

    // Its open charge stays open, and the payer's transfer still pays it.
    const admin = await sandboxAdmin(t, m.set);
    expect((await admin.simulate({ cvu: charge.json.CVU, amount: 800 })).status).toBe(200);

    expect((await m.provision("active")).json.result).toBe("updated");
    expect((await m.merchant("GET", "/me")).status).toBe(200);
    expect((await m.merchant("GET", `/payment-request/${referenceId}`)).json.state).toBe("total_payment");
    expect((await m.refresh()).status).toBe(200);
    expect((await m.signIn(PASSWORD)).status).toBe(303);
  });
});

describe("closing a merchant account", () => {
  it("refuses it for good: its tokens get the same 403 and it cannot be reactivated", async () => {
    const m = await linkedProvisionedMerchant();
    expect((await m.merchant("GET", "/me")).status).toBe(200);
    expect((await m.provision("closed")).json.merchantAccount.status).toBe("closed");
    expectNotLinked(await m.merchant("GET", "/me"));
    expect((await m.refresh()).status).toBe(400);
    expect((await m.signIn(PASSWORD)).status).toBe(403);
    const reopened = await m.provision("active");
    expect(reopened.status).toBe(409);
    expect(reopened.json.code).toBe("MerchantAccountClosedError");
    expectNotLinked(await m.merchant("GET", "/me"));
  });
});
