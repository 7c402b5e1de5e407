// The service's side of webhook signatures (the SDK's verifyWebhookSignature is the receiver's side):
//   X-Service-Signature: t=<unix seconds>,v1=<lowercase hex HMAC-SHA256(secret, `${t}.${rawBody}`)>
// and, beside it, the same delivery signed as Standard Webhooks defines it (https://www.standardwebhooks.com):
//   webhook-id: <id>, webhook-timestamp: <unix seconds>,
//   webhook-signature: v1,<base64 HMAC-SHA256(key, `${id}.${timestamp}.${rawBody}`)>
// A secret is `whsec_` + base64 of its key bytes, as Standard Webhooks defines, and webhook-signature is
// keyed with those decoded bytes, so its libraries verify with their default constructor. X-Service-Signature
// stays keyed with the UTF-8 bytes of the secret string as shown: what the seed's integrators verify with.
// A `legacy` secret (issued before, `whsec_` + base64url) keys both with its UTF-8 bytes until rotated.
// X-Service-Signature mirrors sdk/src/webhook-signature.ts because the server does not import the
// published package; test/webhooks/ checks every delivery with the SDK's verifier and Standard Webhooks' libraries.
import { createHmac, createSecretKey, randomBytes, type KeyObject } from "node:crypto";
import type { SigningSecretScheme } from "../../db/tables/webhooks.table.ts";

export const SIGNATURE_HEADER = "X-Service-Signature";
export const WEBHOOK_ID_HEADER = "X-Service-Webhook-Id";
export const VALIDATION_TOKEN_HEADER = "validation-token";

/** The `X-Service-Signature` value for `rawBody` (the exact bytes sent) at `at`. */
export function signatureHeader(rawBody: string, secret: string, at: Date): string {
  const t = String(Math.floor(at.getTime() / 1000));
  const v1 = createHmac("sha256", secret).update(`${t}.`, "utf8").update(rawBody, "utf8").digest("hex");
  return `t=${t},v1=${v1}`;
}

/** A signing secret as shown to the integrator, and how it keys `webhook-signature`. */
export interface SigningSecret {
  secret: string;
  scheme: SigningSecretScheme;
}

const SECRET_PREFIX = "whsec_";

/**
 * The HMAC key of `webhook-signature`: the decoded base64 after `whsec_`, or a legacy secret's UTF-8 bytes.
 * Made once for each secret (the service keeps an opened secret's object for a while): given bytes, Node's
 * createHmac tells them from a KeyObject and from a CryptoKey by two exceptions thrown and caught inside it,
 * about 20 µs a delivery; given a KeyObject, by neither.
 */
function standardWebhookKey(signing: SigningSecret): KeyObject {
  let key = standardWebhookKeys.get(signing);
  if (key === undefined) {
    const { secret, scheme } = signing;
    key = createSecretKey(scheme === "standard" ? Buffer.from(secret.slice(SECRET_PREFIX.length), "base64") : Buffer.from(secret, "utf8"));
    standardWebhookKeys.set(signing, key);
  }
  return key;
}

const standardWebhookKeys = new WeakMap<SigningSecret, KeyObject>();

/** The Standard Webhooks headers of a delivery of `rawBody` (the exact bytes sent) with id `webhookId` at `at`. */
export function standardWebhookHeaders(webhookId: string, rawBody: string, signing: SigningSecret, at: Date): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const signature = createHmac("sha256", standardWebhookKey(signing)).update(`${webhookId}.${timestamp}.`, "utf8").update(rawBody, "utf8").digest("base64");
  return { "webhook-id": webhookId, "webhook-timestamp": timestamp, "webhook-signature": `v1,${signature}` };
}

/**
 * A new signing secret: `whsec_` and the padded standard base64 of 32 random bytes (Standard Webhooks asks
 * for at least 24; 32 is HMAC-SHA256's output size).
 */
export function generateSigningSecret(): SigningSecret {
  return { secret: `${SECRET_PREFIX}${randomBytes(32).toString("base64")}`, scheme: "standard" };
}
