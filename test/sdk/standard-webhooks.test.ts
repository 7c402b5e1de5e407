// The TypeScript SDK's Standard Webhooks verification (sdk/src/standard-webhooks.ts), against Standard
// Webhooks' own library (npm `standardwebhooks`) and the service's signing code: what either signs verifies,
// and a forged, altered or stale request is refused with the reason. verifyWebhook checks every signature
// a request carries.
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { signatureHeader, standardWebhookHeaders } from "../../domain/webhooks/signature.ts";
import { signStandardWebhook, standardWebhookProblem, verifyStandardWebhook, verifyWebhook, webhookProblem } from "../../sdk/src/standard-webhooks.ts";

const secret = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;
const otherSecret = `whsec_${Buffer.alloc(32, 10).toString("base64")}`;
const legacy = "whsec_AbC-dEf_0123456789abcdefghij";
const body = '{"event":"payment_request.payment_received","referenceId":"INV-2026-000123","paidAmount":15000.5}';
const now = Date.UTC(2026, 10, 27, 13, 0, 0);
const webhookId = "8b0c6f2e-5d1a-4c3b-9e7f-0a1b2c3d4e5f";

describe("verifyStandardWebhook", () => {
  it("accepts what Standard Webhooks' library signs, and the library accepts what the SDK signs", () => {
    const signature = new Webhook(secret).sign(webhookId, new Date(now), body);
    const headers = { "webhook-id": webhookId, "webhook-timestamp": String(now / 1000), "webhook-signature": signature };
    expect(standardWebhookProblem(body, headers, secret, { now })).toBeUndefined();
    expect(verifyStandardWebhook(Buffer.from(body), new Headers(headers), secret, { now })).toBe(true);

    const signed = signStandardWebhook(webhookId, body, secret, { now });
    expect(signed).toEqual(headers);
    // The library checks the timestamp against the clock: signed now.
    expect(new Webhook(secret).verify(body, signStandardWebhook(webhookId, body, secret))).toEqual(JSON.parse(body));
  });

  it("accepts the service's own headers, for a standard and a legacy secret, in any header case", () => {
    const at = new Date(now);
    const standard = standardWebhookHeaders(webhookId, body, { secret, scheme: "standard" }, at);
    expect(standardWebhookProblem(body, standard, secret, { now })).toBeUndefined();
    const shouting = Object.fromEntries(Object.entries(standard).map(([name, value]) => [name.toUpperCase(), value]));
    expect(standardWebhookProblem(body, shouting, secret, { now })).toBeUndefined();
    const old = standardWebhookHeaders(webhookId, body, { secret: legacy, scheme: "legacy" }, at);
    expect(standardWebhookProblem(body, old, legacy, { now, scheme: "legacy" })).toBeUndefined();
    expect(() => standardWebhookProblem(body, old, legacy, { now })).toThrow(TypeError);
  });

  it("refuses a forged, altered or stale request, with the reason", () => {
    const headers = signStandardWebhook(webhookId, body, secret, { now });
    expect(standardWebhookProblem(body, signStandardWebhook(webhookId, body, otherSecret, { now }), secret, { now })).toBe("signature_mismatch");
    // Keyed with the secret's text (the legacy way) is not the standard signature.
    expect(standardWebhookProblem(body, signStandardWebhook(webhookId, body, secret, { now, scheme: "legacy" }), secret, { now })).toBe("signature_mismatch");
    expect(standardWebhookProblem(body.replace("15000.5", "15000.6"), headers, secret, { now })).toBe("signature_mismatch");
    expect(standardWebhookProblem(`${body} `, headers, secret, { now })).toBe("signature_mismatch");
    expect(standardWebhookProblem(body, { ...headers, "webhook-id": `${webhookId}x` }, secret, { now })).toBe("signature_mismatch");
    expect(standardWebhookProblem(body, { ...headers, "webhook-timestamp": String(now / 1000 + 1) }, secret, { now })).toBe("signature_mismatch");
    expect(standardWebhookProblem(body, headers, secret, { now: now + 301_000 })).toBe("stale_timestamp");
    expect(standardWebhookProblem(body, headers, secret, { now: now - 301_000 })).toBe("stale_timestamp");
    expect(standardWebhookProblem(body, headers, secret, { now: now + 300_000 })).toBeUndefined();
    expect(standardWebhookProblem(body, headers, secret, { now: now + 3_000_000, toleranceSeconds: 3600 })).toBeUndefined();
  });

  it("takes one matching entry among several, and calls missing or unreadable headers malformed", () => {
    const headers = signStandardWebhook(webhookId, body, secret, { now });
    const other = signStandardWebhook(webhookId, body, otherSecret, { now })["webhook-signature"];
    expect(
      standardWebhookProblem(body, { ...headers, "webhook-signature": `v1a,xyz ${other} ${headers["webhook-signature"]}` }, secret, { now }),
    ).toBeUndefined();
    for (const name of ["webhook-id", "webhook-timestamp", "webhook-signature"]) {
      const partial = Object.fromEntries(Object.entries(headers).filter(([key]) => key !== name));
      expect(standardWebhookProblem(body, partial, secret, { now })).toBe("malformed_header");
    }
    expect(standardWebhookProblem(body, { ...headers, "webhook-timestamp": "soon" }, secret, { now })).toBe("malformed_header");
    expect(standardWebhookProblem(body, { ...headers, "webhook-signature": "v2,abc" }, secret, { now })).toBe("malformed_header");
    expect(() => standardWebhookProblem(body, headers, "", { now })).toThrow(TypeError);
  });
});

describe("verifyWebhook", () => {
  const both = (signWith = secret, at = now) => ({
    "X-Service-Signature": signatureHeader(body, signWith, new Date(at)),
    ...standardWebhookHeaders(webhookId, body, { secret: signWith, scheme: "standard" }, new Date(at)),
  });

  it("accepts a delivery whose signatures all hold, or that carries either one alone", () => {
    const headers = both();
    expect(webhookProblem(body, headers, secret, { now })).toBeUndefined();
    expect(verifyWebhook(body, { "x-service-signature": headers["X-Service-Signature"] }, secret, { now })).toBe(true);
    expect(verifyWebhook(body, standardWebhookHeaders(webhookId, body, { secret, scheme: "standard" }, new Date(now)), secret, { now })).toBe(true);
  });

  it("refuses one forged signature beside a valid one, another secret, an altered body, a stale one and an unsigned one", () => {
    const forgedStandard = { ...both(), ...standardWebhookHeaders(webhookId, body, { secret: otherSecret, scheme: "standard" }, new Date(now)) };
    expect(webhookProblem(body, forgedStandard, secret, { now })).toBe("signature_mismatch");
    const forgedService = { ...both(), "X-Service-Signature": signatureHeader(body, otherSecret, new Date(now)) };
    expect(webhookProblem(body, forgedService, secret, { now })).toBe("signature_mismatch");
    expect(webhookProblem(body, both(otherSecret), secret, { now })).toBe("signature_mismatch");
    expect(webhookProblem(body.replace("INV", "XNV"), both(), secret, { now })).toBe("signature_mismatch");
    expect(webhookProblem(body, both(secret, now - 600_000), secret, { now })).toBe("stale_timestamp");
    expect(webhookProblem(body, { "content-type": "application/json" }, secret, { now })).toBe("malformed_header");
    expect(verifyWebhook(body, both(`whsec_${randomBytes(32).toString("base64")}`), secret, { now })).toBe(false);
  });
});
