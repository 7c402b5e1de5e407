// Commission proposals over real HTTP, a real SMTP server on loopback and a real browser: proposing mails
// the merchant account a link; on its page the merchant signs in and accepts (the commission changes at
// once) or rejects; a new proposal supersedes, the integration may withdraw, and 7 days lapse it (by the
// service's clock); every documented refusal changes nothing.
import { describe, expect, it } from "vitest";
import { bearerCaller, read, startTestService } from "../helpers/service.ts";
import { exchangeCode, obtainCode } from "../helpers/oauth.ts";
import { chargeBody } from "../helpers/charges.ts";
import { uniqueRef } from "../helpers/unique-ref.ts";
import { mailedLink, mailedLinkSetupForFile, openMailedLinkPage, postForm } from "../helpers/mailed-links.ts";
import { signedInAdmin, type SignedInAdmin } from "../helpers/sandbox-admin.ts";
import type { SandboxCredentials } from "../../domain/sandbox/sandbox-bootstrap.ts";

const DAY_MS = 24 * 3600 * 1000;
const generalError = (code: string) => ({ code, message: expect.any(String), id: expect.any(String) });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNKNOWN_UUID = "00000000-0000-4000-8000-000000000000";

const setup = mailedLinkSetupForFile();
const { t, smtp, browser } = setup;

interface Integration {
  sandbox: SandboxCredentials;
  admin: SignedInAdmin;
  /** The linked merchant's `integrationClientUserId`. */
  userId: string;
  /** The linked merchant as `GET /my-integration/users` shows it. */
  user(): Promise<Record<string, unknown>>;
  proposals: string;
}

/** A fresh integration, its admin and its linked merchant account. */
async function integration(): Promise<Integration> {
  const sandbox = await t.sandbox();
  const admin = await signedInAdmin(t, sandbox.integrationAdmin);
  const user = async () => {
    const users = await admin.call("GET", "/my-integration/users");
    return users.json.items.find((item: { userId: string }) => item.userId === sandbox.merchant.merchantUserId);
  };
  const userId = (await user()).integrationClientUserId as string;
  return { sandbox, admin, userId, user, proposals: `/my-integration/users/${userId}/commission-proposals` };
}

/** The link of the `count`th email to `email`. */
async function proposalLink(email: string, count = 1): Promise<{ token: string; localUrl: string; text: string }> {
  return mailedLink(setup, {
    email,
    count,
    subject: /^Cobro: Sandbox integration \w+ te propone un cambio de comisión$/,
    linkLabel: "Aceptala o rechazala en:",
    path: "/integration/commission-proposals/answer",
  });
}

async function submitAnswer(form: { token: string; email: string; password: string; decision: string }) {
  return postForm(`${t.authUrl}/integration/commission-proposals/answer`, form);
}

describe("proposing and accepting in a browser", () => {
  it("mails the merchant account; accepting sets currentCommissionPercentage and ends pendingCommissionProposal", async () => {
    const { sandbox, admin, user, proposals } = await integration();
    expect(await user()).toMatchObject({ currentCommissionPercentage: 0 });
    expect(await user()).not.toHaveProperty("pendingCommissionProposal");

    const proposed = await admin.call("POST", proposals, { percentage: 1.25 });
    expect(proposed.status).toBe(201);
    expect(proposed.json).toEqual({ invitationId: expect.stringMatching(UUID), status: "pending", percentage: 1.25 });
    expect(await user()).toMatchObject({
      currentCommissionPercentage: 0,
      pendingCommissionProposal: {
        invitationId: proposed.json.invitationId,
        expiresAt: new Date(t.clock.now().getTime() + 7 * DAY_MS).toISOString(),
        proposedPercentage: 1.25,
      },
    });

    const { token, localUrl, text } = await proposalLink(sandbox.merchant.email);
    expect(text).toContain("de 0 % a 1,25 %");
    const page = await openMailedLinkPage(setup, { token, localUrl });
    try {
      expect(await page.locator(".terms").textContent()).toContain("Comisión propuesta: 1,25 %");
      await page.getByLabel("Contraseña").fill(sandbox.merchant.password);
      await page.getByRole("button", { name: "Ingresar y aceptar" }).click();
      await expect.poll(() => page.locator("h1").textContent()).toBe("Comisión aceptada");
    } finally {
      await page.close();
    }

    const after = await user();
    expect(after).toMatchObject({ currentCommissionPercentage: 1.25 });
    expect(after).not.toHaveProperty("pendingCommissionProposal");
    const reopened = await read(await fetch(localUrl));
    expect(reopened.status).toBe(410);
    expect(reopened.text).toContain("Este enlace ya no sirve");
    const withdraw = await admin.call("DELETE", `${proposals}/${proposed.json.invitationId}`);
    expect(withdraw.status).toBe(409);
    expect(withdraw.json).toEqual(generalError("CommissionProposalNotPendingError"));
    expect(JSON.stringify(t.logLines)).not.toContain(token);

    // The next payment is split under the accepted commission: 1,25 % of $800 is $10.
    const code = await obtainCode(t.authUrl, sandbox.integration, sandbox.merchant);
    const merchantTokens = await exchangeCode(t.authUrl, sandbox.integration, code);
    const merchant = bearerCaller(t.integrationUrl, () => merchantTokens.json.idToken);
    const charge = await merchant("POST", "/payment-request", chargeBody({ referenceId: uniqueRef("COMISION"), amount: 800 }));
    expect(charge.status).toBe(201);
    const paid = await admin.call("POST", "/my-integration/simulate-payment", {
      externalAccountCvu: "0000003100000000000017",
      externalAccountCuil: "20301234563",
      externalAccountName: "Juan Pérez",
      cvu: charge.json.CVU,
      amount: 800,
    });
    expect(paid.json.conciliated).toBe(true);
    const earnings = await admin.call("GET", "/my-integration/earnings");
    expect(earnings.json.totals).toEqual({ paymentCount: 1, grossAmount: 800, commissionAmount: 10 });
    expect(earnings.json.items[0]).toMatchObject({ merchantUserId: sandbox.merchant.merchantUserId, commissionPercentage: 1.25, commissionAmount: 10 });
  });

  it("rejecting leaves the commission as it was", async () => {
    const { sandbox, admin, user, proposals } = await integration();
    await admin.call("POST", proposals, { percentage: 2 });
    const { token } = await proposalLink(sandbox.merchant.email);
    const page = await browser.context.newPage();
    try {
      await page.goto(`${t.authUrl}/integration/commission-proposals/answer?token=${encodeURIComponent(token)}`);
      await page.getByLabel("Contraseña").fill(sandbox.merchant.password);
      await page.getByRole("button", { name: "Ingresar y rechazar" }).click();
      await expect.poll(() => page.locator("h1").textContent()).toBe("Propuesta rechazada");
    } finally {
      await page.close();
    }
    const after = await user();
    expect(after).toMatchObject({ currentCommissionPercentage: 0 });
    expect(after).not.toHaveProperty("pendingCommissionProposal");
    expect((await submitAnswer({ token, email: sandbox.merchant.email, password: sandbox.merchant.password, decision: "accept" })).status).toBe(410);
    expect(await user()).toMatchObject({ currentCommissionPercentage: 0 });
  });
});

describe("superseding, withdrawing and lapsing", () => {
  it("a new proposal supersedes the pending one, whose link stops working", async () => {
    const { sandbox, admin, user, proposals } = await integration();
    const first = await admin.call("POST", proposals, { percentage: 3 });
    const firstLink = await proposalLink(sandbox.merchant.email, 1);
    const second = await admin.call("POST", proposals, { percentage: 4.5 });
    expect(second.status).toBe(201);
    expect(second.json).toEqual({
      invitationId: expect.stringMatching(UUID),
      status: "pending",
      percentage: 4.5,
      supersededInvitationId: first.json.invitationId,
    });
    expect(await user()).toMatchObject({ pendingCommissionProposal: { invitationId: second.json.invitationId, proposedPercentage: 4.5 } });
    expect(
      (await submitAnswer({ token: firstLink.token, email: sandbox.merchant.email, password: sandbox.merchant.password, decision: "accept" })).status,
    ).toBe(410);
    const withdrawFirst = await admin.call("DELETE", `${proposals}/${first.json.invitationId}`);
    expect(withdrawFirst.status).toBe(409);
    expect(withdrawFirst.json).toEqual(generalError("CommissionProposalNotPendingError"));
    const secondLink = await proposalLink(sandbox.merchant.email, 2);
    expect(
      (await submitAnswer({ token: secondLink.token, email: sandbox.merchant.email, password: sandbox.merchant.password, decision: "accept" })).status,
    ).toBe(200);
    expect(await user()).toMatchObject({ currentCommissionPercentage: 4.5 });
  });

  it("withdrawing ends the pending proposal: its link stops working and the commission stays", async () => {
    const { sandbox, admin, user, proposals } = await integration();
    const proposed = await admin.call("POST", proposals, { percentage: 1.5 });
    const { token } = await proposalLink(sandbox.merchant.email);
    const withdrawn = await admin.call("DELETE", `${proposals}/${proposed.json.invitationId}`);
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.json).toEqual({ invitationId: proposed.json.invitationId });
    expect(await user()).not.toHaveProperty("pendingCommissionProposal");
    expect((await submitAnswer({ token, email: sandbox.merchant.email, password: sandbox.merchant.password, decision: "accept" })).status).toBe(410);
    expect(await user()).toMatchObject({ currentCommissionPercentage: 0 });
    const again = await admin.call("DELETE", `${proposals}/${proposed.json.invitationId}`);
    expect(again.status).toBe(409);
    expect(again.json).toEqual(generalError("CommissionProposalNotPendingError"));
    // After a withdrawal there is nothing to supersede.
    expect((await admin.call("POST", proposals, { percentage: 2 })).json).not.toHaveProperty("supersededInvitationId");
  });

  it("a proposal lapses 7 days after it was made: it leaves the list, its link and withdrawal stop, a new one supersedes nothing", async () => {
    const { sandbox, userId, proposals } = await integration();
    let admin = await signedInAdmin(t, sandbox.integrationAdmin);
    const proposed = await admin.call("POST", proposals, { percentage: 0.5 });
    const { token, localUrl } = await proposalLink(sandbox.merchant.email);
    t.clock.advance(7 * DAY_MS - 1000);
    admin = await signedInAdmin(t, sandbox.integrationAdmin); // earlier sessions' tokens expired with the days
    const listed = async () =>
      (await admin.call("GET", "/my-integration/users")).json.items.find(
        (item: { integrationClientUserId: string }) => item.integrationClientUserId === userId,
      );
    expect(await listed()).toMatchObject({ pendingCommissionProposal: { invitationId: proposed.json.invitationId } });
    expect((await read(await fetch(localUrl))).status).toBe(200);
    t.clock.advance(2000);
    expect(await listed()).not.toHaveProperty("pendingCommissionProposal");
    const lapsedPage = await read(await fetch(localUrl));
    expect(lapsedPage.status).toBe(410);
    expect(lapsedPage.text).toContain("venció (dura 7 días)");
    expect((await submitAnswer({ token, email: sandbox.merchant.email, password: sandbox.merchant.password, decision: "accept" })).status).toBe(410);
    expect(await listed()).toMatchObject({ currentCommissionPercentage: 0 });
    const withdraw = await admin.call("DELETE", `${proposals}/${proposed.json.invitationId}`);
    expect(withdraw.status).toBe(409);
    expect(withdraw.json).toEqual(generalError("CommissionProposalNotPendingError"));
    const next = await admin.call("POST", proposals, { percentage: 0.75 });
    expect(next.status).toBe(201);
    expect(next.json).not.toHaveProperty("supersededInvitationId");
    expect(await listed()).toMatchObject({ pendingCommissionProposal: { invitationId: next.json.invitationId, proposedPercentage: 0.75 } });
  });
});

describe("the page's refusals", () => {
  it("only the linked merchant account may answer; wrong credentials show the form again and change nothing", async () => {
    const { sandbox, admin, user, proposals } = await integration();
    const stranger = (await t.sandbox()).merchant;
    await admin.call("POST", proposals, { percentage: 1 });
    const { token } = await proposalLink(sandbox.merchant.email);
    const otherAccount = await submitAnswer({ token, email: stranger.email, password: stranger.password, decision: "accept" });
    expect(otherAccount.status).toBe(403);
    expect(otherAccount.text).toContain('data-code="MerchantAccountNotInvitedError"');
    const wrongPassword = await submitAnswer({ token, email: sandbox.merchant.email, password: "no-es-la-clave", decision: "accept" });
    expect(wrongPassword.status).toBe(401);
    expect(wrongPassword.text).toContain('data-code="InvalidCredentialsError"');
    const unknown = await submitAnswer({ token, email: "nadie@example.com", password: "no-es-la-clave", decision: "accept" });
    expect(unknown.status).toBe(401);
    expect(unknown.text).toContain('data-code="InvalidGrantError"');
    for (const answer of [otherAccount, wrongPassword, unknown]) expect(answer.text).toContain(`name="token" value="${token}"`);
    expect(await user()).toMatchObject({ currentCommissionPercentage: 0, pendingCommissionProposal: { proposedPercentage: 1 } });
    const notForm = await submitAnswer({ token, email: sandbox.merchant.email, password: sandbox.merchant.password, decision: "tal-vez" });
    expect(notForm.status).toBe(400);
    expect(notForm.json).toMatchObject({ code: "ValidationError" });
    expect(await user()).toMatchObject({ currentCommissionPercentage: 0, pendingCommissionProposal: { proposedPercentage: 1 } });
  });

  it("an unknown token, or a proposal whose merchant account was unlinked, shows the 410 page", async () => {
    expect((await read(await fetch(`${t.authUrl}/integration/commission-proposals/answer?token=cp_desconocido`))).status).toBe(410);
    const { sandbox, admin, userId, proposals } = await integration();
    await admin.call("POST", proposals, { percentage: 1 });
    const { token, localUrl } = await proposalLink(sandbox.merchant.email);
    expect((await admin.call("DELETE", `/my-integration/users/${userId}`)).status).toBe(204);
    expect((await read(await fetch(localUrl))).status).toBe(410);
    expect((await submitAnswer({ token, email: sandbox.merchant.email, password: sandbox.merchant.password, decision: "accept" })).status).toBe(410);
  });
});

describe("the Admin API's refusals", () => {
  it("refuses a percentage out of 0 to 100 or with more than 2 decimals with 400 ValidationError, writing and mailing nothing", async () => {
    const { sandbox, admin, user, proposals } = await integration();
    for (const percentage of [1.255, 100.01, -1]) {
      const refused = await admin.call("POST", proposals, { percentage });
      expect(refused.status, String(percentage)).toBe(400);
      expect(refused.json).toEqual({
        ...generalError("ValidationError"),
        validationDetails: [expect.objectContaining({ field: expect.stringContaining("percentage") })],
      });
    }
    expect((await admin.call("POST", proposals, {})).status).toBe(400);
    expect(await user()).not.toHaveProperty("pendingCommissionProposal");
    expect(smtp.to(sandbox.merchant.email)).toEqual([]);
    // The edges are proposals like any other.
    expect((await admin.call("POST", proposals, { percentage: 100 })).status).toBe(201);
    expect((await admin.call("POST", proposals, { percentage: 0 })).status).toBe(201);
  });

  it("answers 404 IntegrationClientUserNotFoundError for a merchant account not linked to the integration", async () => {
    const { admin, userId } = await integration();
    const other = await integration();
    for (const id of [UNKNOWN_UUID, other.userId]) {
      const proposed = await admin.call("POST", `/my-integration/users/${id}/commission-proposals`, { percentage: 1 });
      expect(proposed.status).toBe(404);
      expect(proposed.json).toEqual(generalError("IntegrationClientUserNotFoundError"));
      const withdrawn = await admin.call("DELETE", `/my-integration/users/${id}/commission-proposals/${UNKNOWN_UUID}`);
      expect(withdrawn.status).toBe(404);
      expect(withdrawn.json).toEqual(generalError("IntegrationClientUserNotFoundError"));
    }
    // Ids that are no UUIDs are refused by the contract's format.
    for (const path of [
      `/my-integration/users/no-es-un-id/commission-proposals/${UNKNOWN_UUID}`,
      `/my-integration/users/${userId}/commission-proposals/no-es-un-id`,
    ]) {
      const refused = await admin.call("DELETE", path);
      expect(refused.status).toBe(400);
      expect(refused.json).toMatchObject({ code: "ValidationError" });
    }
    expect((await admin.call("POST", "/my-integration/users/no-es-un-id/commission-proposals", { percentage: 1 })).status).toBe(400);
    const proposal = await other.admin.call("POST", other.proposals, { percentage: 1 });
    // Another integration's proposal is not this one's to withdraw.
    const foreign = await admin.call("DELETE", `/my-integration/users/${userId}/commission-proposals/${proposal.json.invitationId}`);
    expect(foreign.status).toBe(404);
    expect(foreign.json).toEqual(generalError("CommissionProposalNotFoundError"));
    const unknown = await admin.call("DELETE", `/my-integration/users/${userId}/commission-proposals/${UNKNOWN_UUID}`);
    expect(unknown.status).toBe(404);
    expect(unknown.json).toEqual(generalError("CommissionProposalNotFoundError"));
    // Unlinked: no longer the integration's user.
    expect((await admin.call("DELETE", `/my-integration/users/${userId}`)).status).toBe(204);
    const unlinked = await admin.call("POST", `/my-integration/users/${userId}/commission-proposals`, { percentage: 1 });
    expect(unlinked.status).toBe(404);
    expect(unlinked.json).toEqual(generalError("IntegrationClientUserNotFoundError"));
    expect(await other.user()).toMatchObject({ pendingCommissionProposal: { invitationId: proposal.json.invitationId } });
  });

  it("Production without a mail server answers 503 MailUnavailableError and proposes nothing", async () => {
    const production = await startTestService({ env: { SERVICE_ENV: "production" } });
    try {
      const sandbox = await production.sandbox();
      const admin = await signedInAdmin(production, sandbox.integrationAdmin);
      const [user] = (await admin.call("GET", "/my-integration/users")).json.items;
      const refused = await admin.call("POST", `/my-integration/users/${user.integrationClientUserId}/commission-proposals`, { percentage: 1 });
      expect(refused.status).toBe(503);
      expect(refused.json).toEqual(generalError("MailUnavailableError"));
      expect((await admin.call("GET", "/my-integration/users")).json.items[0]).not.toHaveProperty("pendingCommissionProposal");
    } finally {
      await production.close();
    }
  });
});
