// The SSRF guard: a URL the service will call must be HTTPS and reach only public unicast addresses.
// Checked when a URL is registered and again before each delivery (DNS can change). Loopback may be
// allowed in the Sandbox for local receivers (COBRO_ALLOW_LOOPBACK_URLS), and nothing else loosens it.
import { lookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";

export interface DestinationPolicy {
  /** Sandbox only: http(s) URLs on loopback addresses are allowed (local receivers, tests). */
  allowLoopback: boolean;
  /** How names are resolved (tests substitute it). */
  resolve?: (hostname: string) => Promise<string[]>;
}

export type DestinationVerdict = { allowed: true; addresses: string[] } | { allowed: false; reason: string };

const LOOKUP_TIMEOUT_MS = 3000;

/** Every address a name resolves to (the system resolver, as connections use it), within 3 seconds. */
export async function systemResolve(hostname: string): Promise<string[]> {
  const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error("DNS lookup timed out")), LOOKUP_TIMEOUT_MS).unref());
  const results = await Promise.race([lookup(hostname, { all: true, verbatim: true }), timeout]);
  return results.map((result) => result.address);
}

/** Public unicast, or loopback when allowed; IPv4-mapped IPv6 is judged as the IPv4 it carries. */
export function addressAllowed(address: string, allowLoopback: boolean): boolean {
  if (!ipaddr.isValid(address)) return false;
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  if (range === "unicast") return true;
  return allowLoopback && range === "loopback";
}

/**
 * Judges a destination URL. `unresolvedIsAllowed`: at registration a name that does not resolve yet is
 * accepted (it is judged again at delivery); at delivery it is refused.
 */
export async function checkDestination(url: string, policy: DestinationPolicy, unresolvedIsAllowed: boolean): Promise<DestinationVerdict> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { allowed: false, reason: "not a valid URL" };
  }
  if (parsed.username || parsed.password) return { allowed: false, reason: "credentials in the URL are not accepted" };
  const hostname = parsed.hostname.replace(/^\[(.*)\]$/, "$1");
  if (parsed.protocol !== "https:" && !(parsed.protocol === "http:" && policy.allowLoopback)) {
    return { allowed: false, reason: "the URL must use https" };
  }
  let addresses: string[];
  if (ipaddr.isValid(hostname)) {
    addresses = [hostname];
  } else {
    try {
      addresses = await (policy.resolve ?? systemResolve)(hostname);
    } catch {
      return unresolvedIsAllowed ? { allowed: true, addresses: [] } : { allowed: false, reason: `${hostname} does not resolve` };
    }
  }
  const refused = addresses.find((address) => !addressAllowed(address, policy.allowLoopback));
  if (refused !== undefined) return { allowed: false, reason: `${hostname} points to an internal or private address (${refused})` };
  if (parsed.protocol === "http:" && !addresses.every((address) => addressAllowed(address, false) === false)) {
    return { allowed: false, reason: "http is allowed only on loopback" };
  }
  return { allowed: true, addresses };
}
