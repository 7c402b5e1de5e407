// The Standard Webhooks signature (https://www.standardwebhooks.com) every delivery carries beside
// X-Service-Signature: `webhook-id`, `webhook-timestamp` (unix seconds) and `webhook-signature: v1,<base64>`,
// the HMAC-SHA256 of `${id}.${timestamp}.${rawBody}` keyed with the base64-decoded part of the secret after
// `whsec_`. A `legacy` secret (the Admin API's `scheme`) keys it with the secret's UTF-8 bytes until rotated.
// `verifyWebhook` checks whichever of the two signatures a request carries.
import { createHmac, timingSafeEqual } from "node:crypto";
import {
  nowSeconds,
  WEBHOOK_SIGNATURE_HEADER,
  webhookSignatureProblem,
  type VerifyWebhookSignatureOptions,
  type WebhookSignatureProblem,
} from "./webhook-signature.js";

export const STANDARD_WEBHOOK_ID_HEADER = "webhook-id";
export const STANDARD_WEBHOOK_TIMESTAMP_HEADER = "webhook-timestamp";
export const STANDARD_WEBHOOK_SIGNATURE_HEADER = "webhook-signature";

/** How the secret keys `webhook-signature`, as `getWebhookSigningSecret()` reports it. */
export type SigningSecretScheme = "standard" | "legacy";

export interface VerifyStandardWebhookOptions extends VerifyWebhookSignatureOptions {
  /** The secret's scheme. Default `standard`. */
  scheme?: SigningSecretScheme;
}

/**
 * A request's headers: a fetch `Headers`, or a record whose names are in any case (Node's
 * `IncomingMessage.headers`, lower-case; a record written by hand).
 */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const SECRET_PREFIX = "whsec_";
const TIMESTAMP = /^\d{1,15}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function headerOf(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === "function" && typeof (headers as Headers).has === "function") return (headers as Headers).get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() === wanted) return Array.isArray(value) ? value.join(", ") : value;
  }
  return undefined;
}

/** The HMAC key of `webhook-signature`: the base64 after `whsec_`, or a legacy secret's UTF-8 bytes. */
function standardKey(secret: string, scheme: SigningSecretScheme): Buffer {
  if (typeof secret !== "string" || secret === "") throw new TypeError("the webhook signing secret is needed");
  if (scheme === "legacy") return Buffer.from(secret, "utf8");
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (encoded === "" || !BASE64.test(encoded)) throw new TypeError('the signing secret is not whsec_ and base64: a legacy secret? pass scheme: "legacy"');
  return Buffer.from(encoded, "base64");
}

function hmacOf(key: Buffer, webhookId: string, timestamp: string, rawBody: string | Uint8Array): Buffer {
  const hmac = createHmac("sha256", key).update(`${webhookId}.${timestamp}.`, "utf8");
  if (typeof rawBody === "string") hmac.update(rawBody, "utf8");
  else hmac.update(rawBody);
  return hmac.digest();
}

/**
 * Checks the Standard Webhooks headers of a request and says what is wrong with them, or `undefined` when
 * they are valid. `rawBody` must be the body exactly as received.
 */
export function standardWebhookProblem(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  { toleranceSeconds = 300, now, scheme = "standard" }: VerifyStandardWebhookOptions = {},
): WebhookSignatureProblem | undefined {
  const key = standardKey(secret, scheme);
  const webhookId = headerOf(headers, STANDARD_WEBHOOK_ID_HEADER);
  const timestamp = headerOf(headers, STANDARD_WEBHOOK_TIMESTAMP_HEADER)?.trim();
  const signatureHeader = headerOf(headers, STANDARD_WEBHOOK_SIGNATURE_HEADER);
  if (!webhookId || !timestamp || !signatureHeader || !TIMESTAMP.test(timestamp)) return "malformed_header";
  // Space-delimited `<version>,<base64>` entries; only v1 (HMAC-SHA256) is this scheme's.
  const signatures = signatureHeader
    .split(" ")
    .map((entry) => entry.split(","))
    .filter(([version, value]) => version === "v1" && value !== undefined && BASE64.test(value))
    .map(([, value]) => Buffer.from(value!, "base64"));
  if (signatures.length === 0) return "malformed_header";
  if (Math.abs(nowSeconds(now) - Number(timestamp)) > toleranceSeconds) return "stale_timestamp";
  const expected = hmacOf(key, webhookId, timestamp, rawBody);
  let matched = false;
  for (const signature of signatures) {
    // Every entry is compared (no early exit), each in constant time.
    if (signature.length === expected.length && timingSafeEqual(expected, signature)) matched = true;
  }
  return matched ? undefined : "signature_mismatch";
}

/** True when the request's Standard Webhooks headers are a valid signature of `rawBody`, made within the tolerance. */
export function verifyStandardWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyStandardWebhookOptions = {},
): boolean {
  return standardWebhookProblem(rawBody, headers, secret, options) === undefined;
}

/** The Standard Webhooks headers the service sends for `rawBody`: for an integrator's own tests of its receiver. */
export function signStandardWebhook(
  webhookId: string,
  rawBody: string | Uint8Array,
  secret: string,
  { now = Date.now(), scheme = "standard" }: { now?: Date | number; scheme?: SigningSecretScheme } = {},
): Record<string, string> {
  const timestamp = String(nowSeconds(now));
  const signature = hmacOf(standardKey(secret, scheme), webhookId, timestamp, rawBody).toString("base64");
  return { [STANDARD_WEBHOOK_ID_HEADER]: webhookId, [STANDARD_WEBHOOK_TIMESTAMP_HEADER]: timestamp, [STANDARD_WEBHOOK_SIGNATURE_HEADER]: `v1,${signature}` };
}

/**
 * Checks every signature a request carries (`X-Service-Signature`, the Standard Webhooks headers, or both;
 * at least one) and says what is wrong, or `undefined` when all hold: a request with one valid and one
 * forged signature is refused.
 *
 * ```ts
 * app.post("/webhooks/cobro", express.raw({ type: "application/json" }), (req, res) => {
 *   if (!verifyWebhook(req.body, req.headers, secret)) return res.sendStatus(400);
 *   …
 * });
 * ```
 */
export function webhookProblem(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyStandardWebhookOptions = {},
): WebhookSignatureProblem | undefined {
  const serviceHeader = headerOf(headers, WEBHOOK_SIGNATURE_HEADER);
  const hasStandard = headerOf(headers, STANDARD_WEBHOOK_SIGNATURE_HEADER) !== undefined;
  if (serviceHeader === undefined && !hasStandard) return "malformed_header";
  if (serviceHeader !== undefined) {
    const problem = webhookSignatureProblem(rawBody, serviceHeader, secret, options);
    if (problem !== undefined) return problem;
  }
  return hasStandard ? standardWebhookProblem(rawBody, headers, secret, options) : undefined;
}

/** True when every signature the request carries holds (and it carries one); see `webhookProblem`. */
export function verifyWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string, options: VerifyStandardWebhookOptions = {}): boolean {
  return webhookProblem(rawBody, headers, secret, options) === undefined;
}
