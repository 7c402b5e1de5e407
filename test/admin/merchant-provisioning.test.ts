// Merchant accounts kept by the payment provider's systems, over real HTTP with a real SMTP server on
// loopback: a Production deployment called with a platform API key (and a platform admin's session), the
// same call twice being one account, the invitation mailed once, and every documented refusal.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearerCaller, read, servicesForFile, startTestService, type TestService } from "../helpers/service.ts";
import { startSmtpServer, type TestSmtpServer } from "../helpers/smtp-server.ts";
import { signedInAdmin } from "../helpers/sandbox-admin.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { createPlatformApiKey } from "../../domain/sign-in/platform-api-keys.ts";
import { cuilCheckDigit } from "../../domain/tax-id.ts";

const MAIL = "Cobro <cuentas@cobro.test>";
const generalError = (code: string) => ({ code, message: expect.any(String), id: expect.any(String) });

let smtp: TestSmtpServer;
beforeAll(async () => {
  smtp = await startSmtpServer();
});
afterAll(async () => {
  await smtp?.close();
});

const { production, sandbox } = servicesForFile({
  production: () => ({ env: { SERVICE_ENV: "production", COBRO_SMTP_URL: smtp.url, COBRO_MAIL_FROM: MAIL } }),
  sandbox: {},
});

let apiKey: string;
beforeAll(async () => {
  apiKey = (await createPlatformApiKey(production.database.db, "the provider's systems")).key;
});

let cuitSequence = 10_000_000;
/** A valid company CUIT not used before in this file. */
function freshCuit(): string {
  for (;;) {
    const firstTen = `30${++cuitSequence}`;
    const digit = cuilCheckDigit(firstTen);
    if (digit !== undefined) return `${firstTen}${digit}`;
  }
}

function accountBody(overrides: Record<string, unknown> = {}) {
  return {
    email: `${uniqueRef("comercio")}@example.com`,
    legalName: "La Espiga S.R.L.",
    cuit: freshCuit(),
    tradeName: "Panadería La Espiga",
    status: "active",
    ...overrides,
  };
}

function provisionWith(t: TestService, headers: Record<string, string>) {
  return async (providerMerchantId: string, body: unknown) =>
    read(
      await fetch(`${t.adminUrl}/integration-admin/merchant-accounts/${encodeURIComponent(providerMerchantId)}`, {
        method: "PUT",
        headers: { "content-type": "application/json", ...headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    );
}

const byKey = () => provisionWith(production, { "x-cobro-api-key": apiKey });

async function rowsOf(t: TestService, providerMerchantId: string) {
  return t.database.db.selectFrom("merchant_accounts").selectAll().where("provider_merchant_id", "=", providerMerchantId).execute();
}

describe("provisioning with the platform API key", () => {
  it("creates the account once: the same call again answers it unchanged, and the invitation goes out once", async () => {
    const id = uniqueRef("wallet");
    const body = accountBody();
    const first = await byKey()(id, body);
    expect(first.status).toBe(201);
    expect(first.json).toEqual({
      result: "created",
      merchantAccount: {
        merchantAccountId: expect.any(String),
        providerMerchantId: id,
        email: body.email,
        legalName: body.legalName,
        cuit: body.cuit,
        tradeName: body.tradeName,
        status: "active",
        passwordSet: false,
        invitationSentAt: production.clock.now().toISOString(),
        createdAt: production.clock.now().toISOString(),
        updatedAt: production.clock.now().toISOString(),
      },
    });
    const mails = await smtp.waitFor(body.email, 1);
    expect(mails[0]!.subject).toBe("Bienvenido a Cobro: elegí la contraseña de tu cuenta de comercio");
    expect(mails[0]!.text).toContain(`Usuario: ${body.email}`);
    expect(mails[0]!.text).toMatch(/^Elegí tu contraseña en: http:\/\/auth\.cobro\.test\/integration\/merchant\/password-reset\/page\?token=pr_\S+$/m);

    const second = await byKey()(id, body);
    expect(second.status).toBe(200);
    expect(second.json).toEqual({ ...first.json, result: "unchanged" });
    expect(await rowsOf(production, id)).toHaveLength(1);
    expect(smtp.to(body.email)).toHaveLength(1);
  });

  it("three calls at once for a new id make one account: each answers 201 or 200 with it", async () => {
    const id = uniqueRef("wallet");
    const body = accountBody();
    const answers = await Promise.all([1, 2, 3].map(() => byKey()(id, body)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 201]);
    const rows = await rowsOf(production, id);
    expect(rows).toHaveLength(1);
    for (const answer of answers) expect(answer.json.merchantAccount.merchantAccountId).toBe(rows[0]!.id);
    // One invitation: the calls that lost the race find it on its way and do not replace its link.
    await smtp.waitFor(body.email, 1);
    expect(smtp.to(body.email)).toHaveLength(1);
  });

  it("updates what differs, and a new email changes the sign-in and invites the new address (no password yet)", async () => {
    const id = uniqueRef("wallet");
    const body = accountBody();
    const created = await byKey()(id, body);
    expect(created.status).toBe(201);
    await smtp.waitFor(body.email, 1);
    production.clock.advance(60_000);
    const renamed = await byKey()(id, { ...body, tradeName: "La Espiga Panaderías", email: `${uniqueRef("nuevo")}@example.com` });
    expect(renamed.status).toBe(200);
    expect(renamed.json.result).toBe("updated");
    expect(renamed.json.merchantAccount).toMatchObject({
      merchantAccountId: created.json.merchantAccount.merchantAccountId,
      tradeName: "La Espiga Panaderías",
      createdAt: created.json.merchantAccount.createdAt,
      updatedAt: production.clock.now().toISOString(),
      invitationSentAt: production.clock.now().toISOString(),
    });
    const [invitation] = await smtp.waitFor(renamed.json.merchantAccount.email, 1);
    expect(invitation!.text).toContain(`Usuario: ${renamed.json.merchantAccount.email}`);
  });

  it("invites an account created suspended when it first becomes active", async () => {
    const id = uniqueRef("wallet");
    const body = accountBody({ status: "suspended" });
    const created = await byKey()(id, body);
    expect(created.status).toBe(201);
    expect(created.json.merchantAccount).not.toHaveProperty("invitationSentAt");
    const activated = await byKey()(id, { ...body, status: "active" });
    expect(activated.json).toMatchObject({ result: "updated", merchantAccount: { status: "active", invitationSentAt: expect.any(String) } });
    expect(await smtp.waitFor(body.email, 1)).toHaveLength(1);
  });

  it("invites again on the next call when the mail server refused the invitation", async () => {
    const id = uniqueRef("wallet");
    const body = accountBody();
    smtp.refuse(body.email, { code: 450, message: "mailbox busy", times: 1 });
    const created = await byKey()(id, body);
    expect(created.status).toBe(201);
    expect(created.json.merchantAccount).not.toHaveProperty("invitationSentAt");
    const again = await byKey()(id, body);
    expect(again.json).toMatchObject({ result: "unchanged", merchantAccount: { invitationSentAt: expect.any(String) } });
    expect(await smtp.waitFor(body.email, 1)).toHaveLength(1);
  });
});

describe("refusals", () => {
  it("401 UnauthorizedError without a key or with a wrong one", async () => {
    for (const headers of [{}, { "x-cobro-api-key": "cpk_not-a-key" }] as Array<Record<string, string>>) {
      const refused = await provisionWith(production, headers)(uniqueRef("wallet"), accountBody());
      expect(refused.status).toBe(401);
      expect(refused.json).toEqual(generalError("UnauthorizedError"));
    }
  });

  it("403 ForbiddenError for an integration admin, PasswordChangeRequiredError for a platform admin on a temporary password", async () => {
    const set = await production.sandbox();
    const integrationAdmin = await signedInAdmin(production, set.integrationAdmin);
    const forbidden = await provisionWith(production, { authorization: `Bearer ${integrationAdmin.token}` })(uniqueRef("wallet"), accountBody());
    expect(forbidden.status).toBe(403);
    expect(forbidden.json).toEqual(generalError("ForbiddenError"));

    await production.database.db.updateTable("admin_users").set({ password_change_required: true }).where("email", "=", set.platformAdmin.email).execute();
    const platformAdmin = await signedInAdmin(production, set.platformAdmin);
    const changeFirst = await provisionWith(production, { authorization: `Bearer ${platformAdmin.token}` })(uniqueRef("wallet"), accountBody());
    expect(changeFirst.status).toBe(403);
    expect(changeFirst.json).toEqual(generalError("PasswordChangeRequiredError"));
  });

  it("400 ValidationError for a CUIT with a wrong check digit, a bad provider id, a missing or unknown field; nothing is created", async () => {
    const id = uniqueRef("wallet");
    const good = freshCuit();
    const wrongDigit = `${good.slice(0, 10)}${(Number(good[10]) + 1) % 10}`;
    const cases: Array<[string, unknown, string, string]> = [
      [id, accountBody({ cuit: wrongDigit }), "cuit", "taxDocument"],
      [id, accountBody({ cuit: "99712345671" }), "cuit", "taxDocument"],
      [id, accountBody({ cuit: "30-71234567-1" }), "cuit", "pattern"],
      [id, accountBody({ status: "paused" }), "status", "enum"],
      [id, { ...accountBody(), tradeName: undefined }, "tradeName", "required"],
      [id, accountBody({ balance: 10 }), "balance", "notAccepted"],
      ["con espacio", accountBody(), "providerMerchantId", "pattern"],
    ];
    for (const [providerMerchantId, body, field, rule] of cases) {
      const refused = await byKey()(providerMerchantId, body);
      expect(refused.status, `${field} ${rule}`).toBe(400);
      expect(refused.json).toEqual({
        code: "ValidationError",
        message: expect.any(String),
        id: expect.any(String),
        validationDetails: [expect.objectContaining({ field, rule })],
      });
    }
    expect(await rowsOf(production, id)).toEqual([]);
  });

  it("409 MerchantEmailAlreadyExistsError when another account has the email (in any case)", async () => {
    const body = accountBody();
    expect((await byKey()(uniqueRef("wallet"), body)).status).toBe(201);
    const otherId = uniqueRef("wallet");
    const refused = await byKey()(otherId, { ...accountBody(), email: body.email.toUpperCase() });
    expect(refused.status).toBe(409);
    expect(refused.json).toEqual(generalError("MerchantEmailAlreadyExistsError"));
    expect(await rowsOf(production, otherId)).toEqual([]);
  });

  it("409 MerchantAccountClosedError for any change to a closed account; the closing call repeated is unchanged", async () => {
    const id = uniqueRef("wallet");
    const body = accountBody();
    expect((await byKey()(id, body)).status).toBe(201);
    const closed = await byKey()(id, { ...body, status: "closed" });
    expect(closed.json).toMatchObject({ result: "updated", merchantAccount: { status: "closed" } });
    expect((await byKey()(id, { ...body, status: "closed" })).json.result).toBe("unchanged");
    for (const change of [{ status: "active" }, { status: "closed", tradeName: "Otro nombre" }]) {
      const refused = await byKey()(id, { ...body, ...change });
      expect(refused.status).toBe(409);
      expect(refused.json).toEqual(generalError("MerchantAccountClosedError"));
    }
    expect((await rowsOf(production, id))[0]).toMatchObject({ status: "closed", fantasy_name: body.tradeName });
  });

  it("413 PayloadTooLarge for a body over 1 MB", async () => {
    const refused = await byKey()(uniqueRef("wallet"), JSON.stringify(accountBody({ legalName: "x".repeat(1_100_000) })));
    expect(refused.status).toBe(413);
    expect(refused.json).toEqual(generalError("PayloadTooLarge"));
  });

  it("503 MailUnavailableError in Production without a mail server for an account to invite; a suspended one is created", async () => {
    const noMail = await startTestService({ env: { SERVICE_ENV: "production" }, parts: ["admin"] });
    try {
      const key = (await createPlatformApiKey(noMail.database.db, "provider")).key;
      const put = provisionWith(noMail, { "x-cobro-api-key": key });
      const id = uniqueRef("wallet");
      const body = accountBody();
      const refused = await put(id, body);
      expect(refused.status).toBe(503);
      expect(refused.json).toEqual(generalError("MailUnavailableError"));
      expect(refused.headers.get("retry-after")).toBeNull();
      expect(await rowsOf(noMail, id)).toEqual([]);

      expect((await put(id, { ...body, status: "suspended" })).status).toBe(201);
      const activation = await put(id, body);
      expect(activation.status).toBe(503);
      expect(activation.json).toEqual(generalError("MailUnavailableError"));
      expect((await rowsOf(noMail, id))[0]!.status).toBe("suspended");

      // A new email for an account that has a password: its new address cannot be told, so nothing changes.
      await noMail.database.db.updateTable("merchant_accounts").set({ password_set: true }).where("provider_merchant_id", "=", id).execute();
      const newEmail = await put(id, { ...body, status: "suspended", email: `${uniqueRef("nuevo")}@example.com` });
      expect(newEmail.status).toBe(503);
      expect(newEmail.json).toEqual(generalError("MailUnavailableError"));
      expect((await rowsOf(noMail, id))[0]!.email).toBe(body.email);
    } finally {
      await noMail.close();
    }
  });
});

describe("a platform admin", () => {
  it("provisions with a session, in Production and in the Sandbox (next to the Sandbox's own test merchants)", async () => {
    for (const t of [production, sandbox]) {
      const platformAdmin = await signedInAdmin(t, (await t.sandbox()).platformAdmin);
      const call = bearerCaller(t.adminUrl, () => platformAdmin.token);
      const id = uniqueRef("wallet");
      const created = await call("PUT", `/integration-admin/merchant-accounts/${id}`, accountBody());
      expect(created.status).toBe(201);
      expect(created.json.merchantAccount.providerMerchantId).toBe(id);
    }
    // The Sandbox's own merchants (no provider id) stay beside the added ones.
    const sandboxMerchants = await sandbox.database.db.selectFrom("merchant_accounts").select("provider_merchant_id").execute();
    expect(sandboxMerchants.filter((row) => row.provider_merchant_id === null).length).toBeGreaterThan(0);
    expect(sandboxMerchants.filter((row) => row.provider_merchant_id !== null)).toHaveLength(1);
  });
});

describe("listing and searching", () => {
  it("finds accounts by part of the email or a name, by CUIT digits or by provider id, in one status, a page at a time", async () => {
    const platformAdmin = await signedInAdmin(production, (await production.sandbox()).platformAdmin);
    const call = bearerCaller(production.adminUrl, () => platformAdmin.token);
    const tag = uniqueRef("buscar").replace(/-/g, "");
    const cuit = freshCuit();
    const ids = [uniqueRef("wallet"), uniqueRef("wallet"), uniqueRef("wallet")];
    // A minute apart: newest first.
    await byKey()(ids[0]!, accountBody({ email: `${tag}.uno@example.com`, tradeName: "Ferretería 50%_Off" }));
    production.clock.advance(60_000);
    await byKey()(ids[1]!, accountBody({ legalName: `Distribuidora ${tag.toUpperCase()} S.A.`, cuit }));
    production.clock.advance(60_000);
    await byKey()(ids[2]!, accountBody({ tradeName: `Almacén ${tag}`, status: "suspended" }));
    const list = async (query: string) => {
      const answer = await call("GET", `/integration-admin/merchant-accounts?${query}`);
      expect(answer.status, query).toBe(200);
      return answer.json;
    };
    const idsOf = (page: { items: Array<{ providerMerchantId?: string }> }) => page.items.map((item) => item.providerMerchantId);

    expect(idsOf(await list(`search=${tag}`))).toEqual([ids[2], ids[1], ids[0]]);
    expect(await list(`search=${tag}&status=suspended`)).toMatchObject({ total: 1, items: [{ providerMerchantId: ids[2], status: "suspended" }] });
    expect(idsOf(await list(`search=${cuit}`))).toEqual([ids[1]]);
    expect(idsOf(await list(`search=${ids[0]}`))).toEqual([ids[0]]);
    // `%` and `_` are taken literally.
    expect(idsOf(await list(`search=${encodeURIComponent("50%_off")}`))).toEqual([ids[0]]);
    expect((await list(`search=${encodeURIComponent("5_%")}`)).total).toBe(0);
    const paged = await list(`search=${tag}&limit=2&offset=2`);
    expect(paged).toMatchObject({ total: 3, limit: 2, offset: 2 });
    expect(idsOf(paged)).toEqual([ids[0]]);
    expect((await list("limit=100")).total).toBeGreaterThanOrEqual(3);

    for (const query of ["search=", "status=paused", "limit=0", "limit=101", "offset=-1"]) {
      const refused = await call("GET", `/integration-admin/merchant-accounts?${query}`);
      expect(refused.status, query).toBe(400);
      expect(refused.json).toEqual({ code: "ValidationError", message: expect.any(String), id: expect.any(String), validationDetails: expect.any(Array) });
    }
  });

  it("is the platform admins': 401 with a platform API key, 403 ForbiddenError for an integration admin", async () => {
    const withKey = await read(await fetch(`${production.adminUrl}/integration-admin/merchant-accounts`, { headers: { "x-cobro-api-key": apiKey } }));
    expect(withKey.status).toBe(401);
    expect(withKey.json).toEqual(generalError("UnauthorizedError"));
    const integrationAdmin = await signedInAdmin(production, (await production.sandbox()).integrationAdmin);
    const forbidden = await integrationAdmin.call("GET", "/integration-admin/merchant-accounts");
    expect(forbidden.status).toBe(403);
    expect(forbidden.json).toEqual(generalError("ForbiddenError"));
  });
});
