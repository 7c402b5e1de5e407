// Webhook signatures. Every webhook request carries `X-Service-Signature: t=<unix seconds>,v1=<hex>`,
// where `v1` is the lowercase hex HMAC-SHA256, keyed with the integration's webhook signing secret, of
// `${t}.${rawBody}`: the decimal `t`, a period and the exact bytes of the body. The key is the secret string
// exactly as the Admin API returns it (`whsec_…`), for `standard` and `legacy` secrets alike (only the
// Standard Webhooks `webhook-signature` is keyed differently). While a secret is being rotated a header may
// carry several `v1` entries; one matching is enough.
import { createHmac, timingSafeEqual } from "node:crypto";

/** The header that carries the signature (the name is case-insensitive in HTTP). */
export const WEBHOOK_SIGNATURE_HEADER = "X-Service-Signature";

/** The header that identifies a delivery: identical across retries, deduplicate by it. */
export const WEBHOOK_ID_HEADER = "X-Service-Webhook-Id";

export interface VerifyWebhookSignatureOptions {
  /** How far `t` may be from `now`, in either direction. Default 300 (5 minutes). */
  toleranceSeconds?: number;
  /** The current time: a Date, or milliseconds since the epoch (`Date.now()`). Default: the clock. */
  now?: Date | number;
}

/** Why a signature was refused. */
export type WebhookSignatureProblem = "malformed_header" | "stale_timestamp" | "signature_mismatch";

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;

interface ParsedHeader {
  timestamp: number;
  timestampText: string;
  signatures: string[];
}

function parseHeader(header: string): ParsedHeader | undefined {
  let timestampText: string | undefined;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const separator = part.indexOf("=");
    if (separator <= 0) return undefined;
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (key === "t") {
      if (timestampText !== undefined || !/^\d{1,15}$/.test(value)) return undefined;
      timestampText = value;
    } else if (key === "v1") {
      if (HEX_SHA256.test(value)) signatures.push(value.toLowerCase());
    }
    // Other schemes (v0, a future v2) are ignored, so that the service can add one without breaking receivers.
  }
  if (timestampText === undefined || signatures.length === 0) return undefined;
  return { timestamp: Number(timestampText), timestampText, signatures };
}

function hmacHex(secret: string, timestampText: string, rawBody: string | Uint8Array): string {
  const hmac = createHmac("sha256", secret);
  hmac.update(`${timestampText}.`, "utf8");
  if (typeof rawBody === "string") hmac.update(rawBody, "utf8");
  else hmac.update(rawBody);
  return hmac.digest("hex");
}

/** Seconds since the epoch of a Date, of milliseconds, or of the clock. */
export function nowSeconds(now: Date | number | undefined): number {
  const milliseconds = now === undefined ? Date.now() : now instanceof Date ? now.getTime() : now;
  return Math.floor(milliseconds / 1000);
}

/**
 * Checks a webhook signature and says what is wrong with it, or `undefined` when it is valid.
 * `rawBody` must be the body exactly as received (the string or the bytes), not JSON parsed and
 * serialised again.
 */
export function webhookSignatureProblem(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secret: string,
  { toleranceSeconds = 300, now }: VerifyWebhookSignatureOptions = {},
): WebhookSignatureProblem | undefined {
  if (typeof secret !== "string" || secret === "") throw new TypeError("verifyWebhookSignature needs the webhook signing secret");
  if (typeof header !== "string") return "malformed_header";
  const parsed = parseHeader(header);
  if (parsed === undefined) return "malformed_header";
  if (Math.abs(nowSeconds(now) - parsed.timestamp) > toleranceSeconds) return "stale_timestamp";
  const expected = Buffer.from(hmacHex(secret, parsed.timestampText, rawBody), "hex");
  let matched = false;
  for (const signature of parsed.signatures) {
    // Every entry is compared (no early exit), each in constant time.
    if (timingSafeEqual(expected, Buffer.from(signature, "hex"))) matched = true;
  }
  return matched ? undefined : "signature_mismatch";
}

/**
 * True when `header` (the `X-Service-Signature` value) is a valid signature of `rawBody` with `secret`,
 * made within `toleranceSeconds` of now.
 *
 * ```ts
 * app.post("/webhooks/cobro", express.raw({ type: "application/json" }), (req, res) => {
 *   if (!verifyWebhookSignature(req.body, req.get("X-Service-Signature") ?? "", secret)) return res.sendStatus(400);
 *   const event = JSON.parse(req.body.toString("utf8"));
 *   …
 * });
 * ```
 */
export function verifyWebhookSignature(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secret: string,
  options: VerifyWebhookSignatureOptions = {},
): boolean {
  return webhookSignatureProblem(rawBody, header, secret, options) === undefined;
}

/**
 * The `X-Service-Signature` value the service sends for `rawBody` at time `now`: for an integrator's own
 * tests of its webhook receiver.
 */
export function signWebhookPayload(rawBody: string | Uint8Array, secret: string, now: Date | number = Date.now()): string {
  const timestampText = String(nowSeconds(now));
  return `t=${timestampText},v1=${hmacHex(secret, timestampText, rawBody)}`;
}
