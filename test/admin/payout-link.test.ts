// The payout link over real HTTP, a real SMTP server on loopback and a real browser: the invitation email,
// its page (signing in with the invited merchant account and accepting), resending and replacing the
// invitation, the link's 7 days, and every documented refusal.
import { describe, expect, it } from "vitest";
import { read, startTestService } from "../helpers/service.ts";
import { mailedLink, mailedLinkSetupForFile, openMailedLinkPage, postForm } from "../helpers/mailed-links.ts";
import { signedInAdmin } from "../helpers/sandbox-admin.ts";

const DAY_MS = 24 * 3600 * 1000;
const generalError = (code: string) => ({ code, message: expect.any(String), id: expect.any(String) });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const setup = mailedLinkSetupForFile();
const { t, smtp } = setup;

/** A fresh integration's admin, and a merchant account of another Sandbox set to invite. */
async function integrationAndRecipient() {
  const sandbox = await t.sandbox();
  const admin = await signedInAdmin(t, sandbox.integrationAdmin);
  const recipient = (await t.sandbox()).merchant;
  return { sandbox, admin, recipient };
}

/** The link of the `count`th email to `email`. */
async function invitationLink(email: string, count = 1): Promise<{ token: string; localUrl: string; text: string }> {
  return mailedLink(setup, {
    email,
    count,
    subject: /^Cobro: Sandbox integration \w+ te invita a recibir sus comisiones$/,
    linkLabel: "Aceptá la invitación en:",
    path: "/integration/payout-link/accept",
  });
}

async function submitAccept(form: { token: string; email: string; password: string }) {
  return postForm(`${t.authUrl}/integration/payout-link/accept`, form);
}

describe("inviting and accepting in a browser", () => {
  it("goes none → pending → accepted with the recipient; the link works once and the recipient is final", async () => {
    const { admin, recipient } = await integrationAndRecipient();
    expect((await admin.call("GET", "/my-integration/payout-link")).json).toEqual({ status: "none" });

    const invited = await admin.call("POST", "/my-integration/payout-link/invite", { email: recipient.email });
    expect(invited.status).toBe(201);
    expect(invited.json).toEqual({ invitationId: expect.stringMatching(UUID) });
    expect((await admin.call("GET", "/my-integration/payout-link")).json).toEqual({ status: "pending", invitedEmail: recipient.email });

    const { token, localUrl } = await invitationLink(recipient.email);
    const page = await openMailedLinkPage(setup, { token, localUrl });
    try {
      expect(await page.getByLabel("Email").inputValue()).toBe(recipient.email);
      await page.getByLabel("Contraseña").fill(recipient.password);
      await page.getByRole("button", { name: "Ingresar y aceptar" }).click();
      await expect.poll(() => page.locator("h1").textContent()).toBe("Listo");
    } finally {
      await page.close();
    }

    expect((await admin.call("GET", "/my-integration/payout-link")).json).toEqual({
      status: "accepted",
      invitedEmail: recipient.email,
      acceptedUserId: recipient.merchantUserId,
      recipient: {
        userId: recipient.merchantUserId,
        email: recipient.email,
        fantasyName: "Almacén de Prueba",
        legalName: "Almacén de Prueba S.R.L.",
        taxId: "30712345671",
      },
    });
    const reopened = await read(await fetch(localUrl));
    expect(reopened.status).toBe(410);
    expect(reopened.text).toContain("Este enlace ya no sirve");
    const again = await submitAccept({ token, email: recipient.email, password: recipient.password });
    expect(again.status).toBe(410);
    expect(again.text).toContain('data-code="MerchantInvitationLinkInvalidError"');

    const reinvite = await admin.call("POST", "/my-integration/payout-link/invite", { email: "otra@example.com" });
    expect(reinvite.status).toBe(409);
    expect(reinvite.json).toEqual(generalError("PayoutLinkAlreadyAcceptedError"));
    const resend = await admin.call("POST", "/my-integration/payout-link/resend");
    expect(resend.status).toBe(409);
    expect(resend.json).toEqual(generalError("PayoutLinkNotPendingError"));
    expect(smtp.to("otra@example.com")).toEqual([]);
    expect((await admin.call("GET", "/my-integration/payout-link")).json.status).toBe("accepted");
    expect(JSON.stringify(t.logLines)).not.toContain(token);
  });
});

describe("resending and replacing the invitation", () => {
  it("a resend keeps the invitation and mails a new link; the earlier link stops working", async () => {
    const { admin, recipient } = await integrationAndRecipient();
    const invited = await admin.call("POST", "/my-integration/payout-link/invite", { email: recipient.email });
    const first = await invitationLink(recipient.email, 1);
    const resent = await admin.call("POST", "/my-integration/payout-link/resend");
    expect(resent.status).toBe(200);
    expect(resent.json).toEqual({ invitationId: invited.json.invitationId });
    const second = await invitationLink(recipient.email, 2);
    expect(second.token).not.toBe(first.token);
    expect((await read(await fetch(first.localUrl))).status).toBe(410);
    expect((await submitAccept({ token: first.token, email: recipient.email, password: recipient.password })).status).toBe(410);
    expect((await admin.call("GET", "/my-integration/payout-link")).json.status).toBe("pending");
    expect((await read(await fetch(second.localUrl))).status).toBe(200);
    expect((await submitAccept({ token: second.token, email: recipient.email, password: recipient.password })).status).toBe(200);
    expect((await admin.call("GET", "/my-integration/payout-link")).json).toMatchObject({ status: "accepted", acceptedUserId: recipient.merchantUserId });
  });

  it("a new invitation replaces the pending one: a new id and email, the earlier link stops working", async () => {
    const { admin, recipient } = await integrationAndRecipient();
    const other = (await t.sandbox()).merchant;
    const first = await admin.call("POST", "/my-integration/payout-link/invite", { email: recipient.email });
    const firstLink = await invitationLink(recipient.email);
    const second = await admin.call("POST", "/my-integration/payout-link/invite", { email: other.email });
    expect(second.status).toBe(201);
    expect(second.json.invitationId).not.toBe(first.json.invitationId);
    expect((await admin.call("GET", "/my-integration/payout-link")).json).toEqual({ status: "pending", invitedEmail: other.email });
    expect((await submitAccept({ token: firstLink.token, email: recipient.email, password: recipient.password })).status).toBe(410);
    const secondLink = await invitationLink(other.email);
    expect((await submitAccept({ token: secondLink.token, email: other.email, password: other.password })).status).toBe(200);
    expect((await admin.call("GET", "/my-integration/payout-link")).json).toMatchObject({ status: "accepted", acceptedUserId: other.merchantUserId });
  });

  it("a resend with nothing pending answers 409 PayoutLinkNotPendingError and mails nothing", async () => {
    const { admin } = await integrationAndRecipient();
    const mailsBefore = smtp.mails.length;
    const resend = await admin.call("POST", "/my-integration/payout-link/resend");
    expect(resend.status).toBe(409);
    expect(resend.json).toEqual(generalError("PayoutLinkNotPendingError"));
    expect((await admin.call("GET", "/my-integration/payout-link")).json).toEqual({ status: "none" });
    expect(smtp.mails.length).toBe(mailsBefore);
  });
});

describe("the page's refusals", () => {
  it("only the invited email's merchant account may accept; wrong credentials show the form again", async () => {
    const { sandbox, admin, recipient } = await integrationAndRecipient();
    await admin.call("POST", "/my-integration/payout-link/invite", { email: recipient.email });
    const { token } = await invitationLink(recipient.email);

    const otherAccount = await submitAccept({ token, email: sandbox.merchant.email, password: sandbox.merchant.password });
    expect(otherAccount.status).toBe(403);
    expect(otherAccount.text).toContain('data-code="MerchantAccountNotInvitedError"');
    expect(otherAccount.text).toContain(`para la cuenta de comercio de ${recipient.email}`);
    const wrongPassword = await submitAccept({ token, email: recipient.email, password: "no-es-la-clave" });
    expect(wrongPassword.status).toBe(401);
    expect(wrongPassword.text).toContain('data-code="InvalidCredentialsError"');
    const unknown = await submitAccept({ token, email: "nadie@example.com", password: "no-es-la-clave" });
    expect(unknown.status).toBe(401);
    expect(unknown.text).toContain('data-code="InvalidGrantError"');
    for (const answer of [otherAccount, wrongPassword, unknown]) expect(answer.text).toContain(`name="token" value="${token}"`);
    expect((await admin.call("GET", "/my-integration/payout-link")).json).toEqual({ status: "pending", invitedEmail: recipient.email });

    // The email's case does not matter.
    expect((await submitAccept({ token, email: recipient.email.toUpperCase(), password: recipient.password })).status).toBe(200);
  });

  it("the link works for 7 days: past that the page says so (410), the invitation stays pending, and a resend mails a working link", async () => {
    const { sandbox, recipient } = await integrationAndRecipient();
    let admin = await signedInAdmin(t, sandbox.integrationAdmin);
    await admin.call("POST", "/my-integration/payout-link/invite", { email: recipient.email });
    const first = await invitationLink(recipient.email);
    t.clock.advance(7 * DAY_MS - 1000);
    expect((await read(await fetch(first.localUrl))).status).toBe(200);
    t.clock.advance(2000);
    const expired = await read(await fetch(first.localUrl));
    expect(expired.status).toBe(410);
    expect(expired.text).toContain("venció (dura 7 días)");
    expect((await submitAccept({ token: first.token, email: recipient.email, password: recipient.password })).status).toBe(410);
    admin = await signedInAdmin(t, sandbox.integrationAdmin); // the earlier session's token expired with the days
    admin = await signedInAdmin(t, sandbox.integrationAdmin); // the earlier session's token expired with the days
    expect((await admin.call("GET", "/my-integration/payout-link")).json.status).toBe("pending");
    await admin.call("POST", "/my-integration/payout-link/resend");
    const second = await invitationLink(recipient.email, 2);
    expect((await submitAccept({ token: second.token, email: recipient.email, password: recipient.password })).status).toBe(200);
  });

  it("an unknown token shows the 410 page; a request that is not the form gets the JSON ValidationError", async () => {
    const unknown = await read(await fetch(`${t.authUrl}/integration/payout-link/accept?token=pl_desconocido`));
    expect(unknown.status).toBe(410);
    expect(unknown.headers.get("content-type")).toContain("text/html");
    const notForm = await read(
      await fetch(`${t.authUrl}/integration/payout-link/accept`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }),
    );
    expect(notForm.status).toBe(400);
    expect(notForm.json).toMatchObject({ code: "ValidationError" });
  });
});

describe("the invitation's refusals on the Admin API", () => {
  it("refuses an email that is not one with 400 ValidationError and changes nothing", async () => {
    const { admin } = await integrationAndRecipient();
    const mailsBefore = smtp.mails.length;
    const refused = await admin.call("POST", "/my-integration/payout-link/invite", { email: "no-es-un-email" });
    expect(refused.status).toBe(400);
    expect(refused.json).toEqual({
      ...generalError("ValidationError"),
      validationDetails: [expect.objectContaining({ field: expect.stringContaining("email") })],
    });
    // An address without a dot-separated domain goes nowhere: `a@b`, `comercio@localhost`, a trailing dot.
    for (const email of ["a@b", "comercio@localhost", "comercio@example.", "comercio@.example.com"]) {
      const noDomain = await admin.call("POST", "/my-integration/payout-link/invite", { email });
      expect(noDomain.status, email).toBe(400);
      expect(noDomain.json).toEqual({
        ...generalError("ValidationError"),
        validationDetails: [expect.objectContaining({ field: "email", rule: "format" })],
      });
    }
    const missing = await admin.call("POST", "/my-integration/payout-link/invite", {});
    expect(missing.status).toBe(400);
    expect((await admin.call("GET", "/my-integration/payout-link")).json).toEqual({ status: "none" });
    expect(smtp.mails.length).toBe(mailsBefore);
  });

  it("the Sandbox without a mail server writes the invitation to the log (SANDBOX MAIL), and its link works", async () => {
    const sandboxOnly = await startTestService();
    try {
      const sandbox = await sandboxOnly.sandbox();
      const admin = await signedInAdmin(sandboxOnly, sandbox.integrationAdmin);
      const recipient = (await sandboxOnly.sandbox()).merchant;
      expect((await admin.call("POST", "/my-integration/payout-link/invite", { email: recipient.email })).status).toBe(201);
      const logged = sandboxOnly.logLines.find(
        (line) =>
          typeof line.msg === "string" && line.msg.startsWith("SANDBOX MAIL") && (line.sandboxMail as { to?: string } | undefined)?.to === recipient.email,
      );
      const link = new URL(/^Aceptá la invitación en: (\S+)$/m.exec((logged!.sandboxMail as { text: string }).text)![1]!);
      const accepted = await postForm(`${sandboxOnly.authUrl}${link.pathname}`, {
        token: link.searchParams.get("token")!,
        email: recipient.email,
        password: recipient.password,
      });
      expect(accepted.status).toBe(200);
      expect((await admin.call("GET", "/my-integration/payout-link")).json).toMatchObject({ status: "accepted", acceptedUserId: recipient.merchantUserId });
    } finally {
      await sandboxOnly.close();
    }
  });

  it("Production without a mail server answers 503 MailUnavailableError and invites nobody", async () => {
    const production = await startTestService({ env: { SERVICE_ENV: "production" } });
    try {
      const sandbox = await production.sandbox();
      const admin = await signedInAdmin(production, sandbox.integrationAdmin);
      const invite = await admin.call("POST", "/my-integration/payout-link/invite", { email: "tesoreria@example.com" });
      expect(invite.status).toBe(503);
      expect(invite.json).toEqual(generalError("MailUnavailableError"));
      const resend = await admin.call("POST", "/my-integration/payout-link/resend");
      expect(resend.status).toBe(503);
      expect(resend.json).toEqual(generalError("MailUnavailableError"));
      expect((await admin.call("GET", "/my-integration/payout-link")).json).toEqual({ status: "none" });
    } finally {
      await production.close();
    }
  });
});
