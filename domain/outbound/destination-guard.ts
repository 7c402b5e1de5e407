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

/**
 * Public unicast, or loopback when allowed. An IPv6 address that carries an IPv4 address is judged as the
 * IPv4 it carries, since that is where a translating or tunnelling host may send it: IPv4-mapped
 * (`::ffff:0:0/96`), IPv4-compatible (`::/96`), SIIT (`::ffff:0:0:0/96`), NAT64's well-known prefix
 * (`64:ff9b::/96`) and 6to4 (`2002::/16`). Other IPv6 must be global unicast (`2000::/3`) outside every
 * special-purpose block; Teredo (`2001::/32`, whose client address is obscured) and local-use NAT64
 * (`64:ff9b:1::/48`) are refused.
 */
export function addressAllowed(address: string, allowLoopback: boolean): boolean {
  if (!ipaddr.isValid(address)) return false;
  const judged = judgedAddress(ipaddr.parse(address));
  if (judged === undefined) return false;
  const range = judged.range();
  if (range === "unicast") return judged.kind() === "ipv4" || inGlobalUnicastBlock(judged as ipaddr.IPv6);
  return allowLoopback && range === "loopback";
}

const IPV4_COMPATIBLE = ipaddr.parseCIDR("::/96");
const NAT64_WELL_KNOWN = ipaddr.parseCIDR("64:ff9b::/96");
const GLOBAL_UNICAST = ipaddr.parseCIDR("2000::/3");

/** The address whose range decides, or undefined for an IPv6 form that is refused outright. */
function judgedAddress(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  if (address.kind() === "ipv4") return address;
  const v6 = address as ipaddr.IPv6;
  const range = v6.range();
  if (range === "unspecified" || range === "loopback") return v6;
  const low32 = () => ipaddr.fromByteArray(v6.toByteArray().slice(12)) as ipaddr.IPv4;
  if (range === "ipv4Mapped" || range === "rfc6145" || v6.match(IPV4_COMPATIBLE) || v6.match(NAT64_WELL_KNOWN)) return low32();
  if (range === "6to4") return ipaddr.fromByteArray(v6.toByteArray().slice(2, 6)) as ipaddr.IPv4;
  if (range === "teredo" || range === "rfc6052") return undefined;
  return v6;
}

function inGlobalUnicastBlock(address: ipaddr.IPv6): boolean {
  return address.match(GLOBAL_UNICAST);
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
