// URLs that Cobro sends a browser to (OAuth redirect URIs, logout URLs): the host must be a host name or
// an IP literal, nothing else. WHATWG URL parsing lets `*`, `;`, `,` and quotes through in a host, and the
// sign-in screen writes these origins into its Content-Security-Policy, where such a host would add
// directives of its own (`https://x;frame-ancestors *`).

/** A DNS name (letters, digits and hyphens in labels), an IPv4 address, or a bracketed IPv6 literal, as URL writes them. */
const HOST_SHAPE = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?|\[[0-9a-f:.]+\])$/;

/** Why a redirect or logout URL is refused for its shape, or undefined when its host is a host. */
export function browserUrlProblem(url: string): string | undefined {
  if (!URL.canParse(url)) return "is not a valid URL";
  const parsed = new URL(url);
  if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return "must be an https URL";
  if (parsed.username || parsed.password) return "must not carry credentials";
  if (!HOST_SHAPE.test(parsed.hostname)) return "must name its host by a host name or an IP address (no *, ;, commas, quotes or spaces)";
  return undefined;
}

/** The origin of a URL for a Content-Security-Policy source list, or undefined when its host is not of a host's shape. */
export function cspOrigin(url: string): string | undefined {
  return browserUrlProblem(url) === undefined ? new URL(url).origin : undefined;
}
