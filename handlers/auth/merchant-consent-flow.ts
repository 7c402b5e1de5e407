// The flow of the pages that an emailed link opens for a merchant account (the payout link, a commission
// proposal), written once: the link shows its form, or a page that says it no longer works (410); the
// form is submitted with the merchant account's email and password, and answers the outcome, or the form
// again with the refusal on it (401 wrong credentials, 403 another account than the invited one, 429 while
// guessing is throttled), or the 410 page when the link stopped working meanwhile.
import type { Services } from "../handler-types.ts";
import { emailedLinkPageHeaders, pageNonce } from "../pages/emailed-link-page.ts";
import { consentRefusalStatus, type PageRefusal } from "../pages/merchant-consent-pages.ts";
import { MERCHANT_SIGN_IN_REFUSAL_TEXT } from "../pages/sign-in-page.ts";
import { retryAfterHeader, tooManyAttemptsText, tooManyAttemptsWait } from "../pages/too-many-attempts.ts";

/** What makes one kind of emailed link's pages: the link's details, its three pages, and its refusal for another account. */
export interface MerchantConsentPages<Link, Outcome> {
  /** The details of a link that still works; a link that does not is refused with MerchantInvitationLinkInvalidError. */
  usable: (services: Services, token: string) => Promise<Link>;
  form: (input: Link & { token: string; nonce: string; email?: string; refusal?: PageRefusal }) => string;
  invalid: (nonce: string) => string;
  done: (nonce: string, outcome: Outcome) => string;
  /** The form's refusal when a merchant account other than the link's signed in. */
  notInvitedText: (link: Link) => string;
}

interface PageAnswer<Status extends number> {
  status: Status;
  body: string;
  headers: Record<string, string>;
}

/** GET: the link's form, or the page of a link that no longer works. */
export async function showConsentPage<Link, Outcome>(
  pages: MerchantConsentPages<Link, Outcome>,
  services: Services,
  token: string,
): Promise<PageAnswer<200 | 410>> {
  const nonce = pageNonce();
  try {
    const link = await pages.usable(services, token);
    return { status: 200, body: pages.form({ ...link, token, nonce }), headers: emailedLinkPageHeaders(nonce) };
  } catch (error) {
    if (consentRefusalStatus(error)?.status !== 410) throw error;
    return { status: 410, body: pages.invalid(nonce), headers: emailedLinkPageHeaders(nonce) };
  }
}

/** POST: `act` signs the merchant account in and does what the link offers; a refusal shows the form again. */
export async function submitConsent<Link, Outcome>(
  pages: MerchantConsentPages<Link, Outcome>,
  services: Services,
  form: { token: string; email: string },
  act: () => Promise<Outcome>,
): Promise<PageAnswer<200 | 401 | 403 | 410 | 429>> {
  const nonce = pageNonce();
  const { token, email } = form;
  try {
    return { status: 200, body: pages.done(nonce, await act()), headers: emailedLinkPageHeaders(nonce) };
  } catch (error) {
    const wait = tooManyAttemptsWait(error);
    if (wait !== undefined) {
      const link = await pages.usable(services, token);
      const page = pages.form({ ...link, token, nonce, email, refusal: { code: "TooManyAttemptsError", text: tooManyAttemptsText(wait) } });
      return { status: 429, body: page, headers: { ...emailedLinkPageHeaders(nonce), ...retryAfterHeader(wait) } };
    }
    const refusal = consentRefusalStatus(error);
    if (!refusal) throw error;
    if (refusal.status === 410) return { status: 410, body: pages.invalid(nonce), headers: emailedLinkPageHeaders(nonce) };
    // The form again with the refusal; the link still works.
    const link = await pages.usable(services, token);
    const text = refusal.status === 403 ? pages.notInvitedText(link) : MERCHANT_SIGN_IN_REFUSAL_TEXT[refusal.code]!;
    return {
      status: refusal.status,
      body: pages.form({ ...link, token, nonce, email, refusal: { code: refusal.code, text } }),
      headers: emailedLinkPageHeaders(nonce),
    };
  }
}
