// URLs that Cobro sends a browser to (OAuth redirect URIs, logout URLs): the host must be a host name or
// an IP literal, nothing else. WHATWG URL parsing lets `*`, `;`, `,` and quotes through in a host, and the
// sign-in screen writes these origins into its Content-Security-Policy, where such a host would add
// directives of its own (`https://x;frame-ancestors *`).
import type { ValidationRule } from "./errors.ts";

/** A DNS name (letters, digits and hyphens in labels), an IPv4 address, or a bracketed IPv6 literal, as URL writes them. */
const HOST_SHAPE = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?|\[[0-9a-f:.]+\])$/;

/** Why a redirect or logout URL is refused for its shape (the rule, and the words after the field's name), or undefined when its host is a host. */
export function browserUrlProblem(url: string): { rule: ValidationRule; complaint: string } | undefined {
  if (!URL.canParse(url)) return { rule: "format", complaint: "is not a valid URL" };
  const parsed = new URL(url);
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return { rule: "https", complaint: "must be an https URL" };
  if (parsed.username || parsed.password) return { rule: "url", complaint: "must not carry credentials" };
  if (!HOST_SHAPE.test(parsed.hostname))
    return { rule: "url", complaint: "must name its host by a host name or an IP address (no *, ;, commas, quotes or spaces)" };
  return undefined;
}

/** The origin of a URL for a Content-Security-Policy source list, or undefined when its host is not of a host's shape. */
export function cspOrigin(url: string): string | undefined {
  return browserUrlProblem(url) === undefined ? new URL(url).origin : undefined;
}
