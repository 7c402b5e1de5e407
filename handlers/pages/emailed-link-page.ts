// What the pages opened by an emailed single-use link share (the admins' password reset, the payout link,
// commission proposals): headers that keep the token out of caches and referrers and allow only the
// response's own style and script, and the script that takes the token out of the address bar (the form
// carries it in a hidden field).
import { randomBytes } from "node:crypto";

/** A fresh nonce for one response's inline style and script. */
export function pageNonce(): string {
  return randomBytes(16).toString("base64");
}

/** Nothing from elsewhere, its own style and script by nonce; the token must not linger in caches or referrers. */
export function emailedLinkPageHeaders(nonce: string): Record<string, string> {
  return {
    "Cache-Control": "no-store",
    Pragma: "no-cache",
    "Content-Security-Policy": `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
  };
}

export const FORGET_TOKEN_IN_ADDRESS_BAR = `history.replaceState(null, "", location.pathname);`;
