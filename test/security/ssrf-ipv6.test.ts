// The SSRF guard judges an IPv6 address by the IPv4 address it carries (mapped, compatible, SIIT, NAT64,
// 6to4), refuses the forms whose target it cannot judge (Teredo, local-use NAT64), and otherwise allows
// only global unicast: `https://[::127.0.0.1]/` is no way to reach loopback.
import { describe, expect, it } from "vitest";
import { addressAllowed, checkDestination } from "../../domain/outbound/destination-guard.ts";
import { chargeBody } from "../helpers/charges.ts";
import { linkedMerchant, serviceForFile } from "../helpers/service.ts";

const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") });

const INTERNAL_FORMS = {
  "IPv4-compatible loopback": "::127.0.0.1",
  "IPv4-compatible private": "::10.0.0.1",
  "IPv4-mapped loopback": "::ffff:127.0.0.1",
  "IPv4-mapped metadata service": "::ffff:169.254.169.254",
  "SIIT (RFC 6145) loopback": "::ffff:0:7f00:1",
  "NAT64 well-known prefix, loopback": "64:ff9b::127.0.0.1",
  "NAT64 well-known prefix, private": "64:ff9b::192.168.0.1",
  "NAT64 local-use prefix": "64:ff9b:1::5db8:d822",
  "6to4 of loopback": "2002:7f00:1::1",
  "6to4 of a private address": "2002:c0a8:1::1",
  Teredo: "2001:0:5db8:d822::1",
  "unique local": "fd00::1",
  "link local": "fe80::1",
  documentation: "2001:db8::1",
  discard: "100::1",
  "outside 2000::/3": "4000::1",
  loopback: "::1",
  unspecified: "::",
};

const PUBLIC_FORMS = {
  "global unicast": "2606:2800:220:1:248:1893:25c8:1946",
  "IPv4-mapped public": "::ffff:93.184.216.34",
  "NAT64 of a public address (DNS64 networks)": "64:ff9b::93.184.216.34",
  "6to4 of a public address": "2002:5db8:d822::1",
};

describe("IPv6 destinations", () => {
  it.each(Object.entries(INTERNAL_FORMS))("refuses %s (%s)", (_name, address) => {
    expect(addressAllowed(address, false)).toBe(false);
  });

  it.each(Object.entries(PUBLIC_FORMS))("allows %s (%s)", (_name, address) => {
    expect(addressAllowed(address, false)).toBe(true);
  });

  it("judges IPv6 literals in URLs the same way", async () => {
    for (const address of Object.values(INTERNAL_FORMS)) {
      const verdict = await checkDestination(`https://[${address}]/hook`, { allowLoopback: false }, true);
      expect({ address, allowed: verdict.allowed }).toEqual({ address, allowed: false });
    }
  });

  it("a charge's webhookUrl at [::127.0.0.1] is 400 WebhookUrlBlockedError", async () => {
    const { call } = await linkedMerchant(t);
    for (const host of ["[::127.0.0.1]", "[64:ff9b::7f00:1]", "[2002:7f00:1::1]"]) {
      const answer = await call("POST", "/payment-request", chargeBody({ webhookUrl: `https://${host}/hook` }));
      expect({ host, status: answer.status, code: answer.json.code }).toEqual({ host, status: 400, code: "WebhookUrlBlockedError" });
    }
  });
});
