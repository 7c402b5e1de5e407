// The SDK's webhook verification: `X-Service-Signature: t=<unix>,v1=<hex>`, v1 = hex HMAC-SHA256(secret,
// `${t}.${rawBody}`), compared in constant time, within a tolerance of the receiver's clock.
import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { signWebhookPayload, verifyWebhookSignature, webhookSignatureProblem } from "../../sdk/src/webhook-signature.ts";

const secret = "whsec_5f1d9c2a7b3e4f60a8d1c3e5f7092b4d";
const body = '{"event":"payment_request.payment_received","referenceId":"INV-2026-000123","paidAmount":15000.5}';
const now = Date.UTC(2026, 10, 22, 13, 0, 0);
const t = Math.floor(now / 1000);

/** The signature as the contract defines it, computed here independently of the SDK. */
function v1(signingSecret: string, timestamp: number, rawBody: string): string {
  return createHmac("sha256", signingSecret).update(`${timestamp}.${rawBody}`).digest("hex");
}

describe("verifyWebhookSignature", () => {
  it("accepts a signature made as the contract says, for a string or the raw bytes", () => {
    const header = `t=${t},v1=${v1(secret, t, body)}`;
    expect(verifyWebhookSignature(body, header, secret, { now })).toBe(true);
    expect(verifyWebhookSignature(new TextEncoder().encode(body), header, secret, { now })).toBe(true);
    expect(verifyWebhookSignature(Buffer.from(body), header, secret, { now: new Date(now) })).toBe(true);
    expect(signWebhookPayload(body, secret, now)).toBe(header);
  });

  it("refuses a signature made with another secret", () => {
    const header = `t=${t},v1=${v1("whsec_another_secret_entirely_000000", t, body)}`;
    expect(verifyWebhookSignature(body, header, secret, { now })).toBe(false);
    expect(webhookSignatureProblem(body, header, secret, { now })).toBe("signature_mismatch");
  });

  it("refuses a tampered body, even by one character or one byte of whitespace", () => {
    const header = `t=${t},v1=${v1(secret, t, body)}`;
    expect(webhookSignatureProblem(body.replace("15000.5", "15000.6"), header, secret, { now })).toBe("signature_mismatch");
    expect(webhookSignatureProblem(`${body}\n`, header, secret, { now })).toBe("signature_mismatch");
    expect(webhookSignatureProblem(JSON.stringify(JSON.parse(body), null, 1), header, secret, { now })).toBe("signature_mismatch");
  });

  it("refuses a timestamp changed after signing (it is part of the signed string)", () => {
    const header = `t=${t + 1},v1=${v1(secret, t, body)}`;
    expect(webhookSignatureProblem(body, header, secret, { now })).toBe("signature_mismatch");
  });

  it("refuses a stale or future timestamp beyond the tolerance (5 minutes by default)", () => {
    const at = (timestamp: number) => `t=${timestamp},v1=${v1(secret, timestamp, body)}`;
    expect(verifyWebhookSignature(body, at(t - 300), secret, { now })).toBe(true);
    expect(webhookSignatureProblem(body, at(t - 301), secret, { now })).toBe("stale_timestamp");
    expect(verifyWebhookSignature(body, at(t + 300), secret, { now })).toBe(true);
    expect(webhookSignatureProblem(body, at(t + 301), secret, { now })).toBe("stale_timestamp");
    expect(webhookSignatureProblem(body, at(t - 60), secret, { now, toleranceSeconds: 30 })).toBe("stale_timestamp");
    expect(verifyWebhookSignature(body, at(t - 3600), secret, { now, toleranceSeconds: 3600 })).toBe(true);
  });

  it("uses the clock when no `now` is given", () => {
    expect(verifyWebhookSignature(body, signWebhookPayload(body, secret), secret)).toBe(true);
    expect(verifyWebhookSignature(body, signWebhookPayload(body, secret, Date.now() - 10 * 60_000), secret)).toBe(false);
  });

  it.each([
    ["empty", ""],
    ["not key=value", "garbage"],
    ["no v1", `t=${t}`],
    ["no t", `v1=${v1(secret, t, body)}`],
    ["t not a number", `t=abc,v1=${v1(secret, t, body)}`],
    ["t negative", `t=-${t},v1=${v1(secret, t, body)}`],
    ["two t", `t=${t},t=${t},v1=${v1(secret, t, body)}`],
    ["v1 not hex", `t=${t},v1=${"z".repeat(64)}`],
    ["v1 too short", `t=${t},v1=${v1(secret, t, body).slice(0, 63)}`],
    ["empty entry", `t=${t},,v1=${v1(secret, t, body)}`],
  ])("refuses a malformed header (%s)", (_name, header) => {
    expect(webhookSignatureProblem(body, header, secret, { now })).toBe("malformed_header");
    expect(verifyWebhookSignature(body, header, secret, { now })).toBe(false);
  });

  it("refuses a missing header", () => {
    expect(webhookSignatureProblem(body, undefined, secret, { now })).toBe("malformed_header");
    expect(verifyWebhookSignature(body, null, secret, { now })).toBe(false);
  });

  it("accepts a header with several v1 entries when one matches (secret rotation), and ignores other schemes", () => {
    const good = v1(secret, t, body);
    const old = v1("whsec_the_previous_secret_0000000000", t, body);
    expect(verifyWebhookSignature(body, `t=${t},v1=${old},v1=${good}`, secret, { now })).toBe(true);
    expect(verifyWebhookSignature(body, `t=${t}, v1=${good.toUpperCase()}, v0=abc`, secret, { now })).toBe(true);
    expect(verifyWebhookSignature(body, `t=${t},v1=${old},v1=${old}`, secret, { now })).toBe(false);
  });

  it("needs a secret", () => {
    expect(() => verifyWebhookSignature(body, `t=${t},v1=${v1(secret, t, body)}`, "", { now })).toThrow(TypeError);
  });
});
