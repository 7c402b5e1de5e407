// The emails Cobro writes to accounts (admins, merchant accounts): Spanish lines, sent as plain text and
// as the same lines in HTML paragraphs (every line escaped).
import type { EmailMessage } from "./sender.ts";
import { escapeHtml } from "../html.ts";

/** Where admins sign in and work: the portal on the Admin API's host (every email to an admin links it). */
export function portalUrl(adminPublicUrl: string): string {
  return `${adminPublicUrl}/portal/`;
}

/** `lines` as the text part (an empty line is a blank line) and as HTML paragraphs. */
export function accountEmail(to: string, subject: string, lines: string[]): EmailMessage {
  const html = `<p>${lines
    .filter((line) => line !== "")
    .map(escapeHtml)
    .join("</p>\n<p>")}</p>`;
  return { to, subject, text: lines.join("\n"), html };
}
