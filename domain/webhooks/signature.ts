// The service's side of webhook signatures (the SDK's verifyWebhookSignature is the receiver's side):
//   X-Service-Signature: t=<unix seconds>,v1=<lowercase hex HMAC-SHA256(secret, `${t}.${rawBody}`)>
// and, beside it, the same delivery signed as Standard Webhooks defines it (https://www.standardwebhooks.com):
//   webhook-id: <id>, webhook-timestamp: <unix seconds>,
//   webhook-signature: v1,<base64 HMAC-SHA256(key, `${id}.${timestamp}.${rawBody}`)>
// Both HMACs are keyed with the same bytes: the UTF-8 bytes of the secret exactly as shown (`whsec_…`
// included). Our secrets are `whsec_` + base64url, not the `whsec_` + base64 of the key that Standard
// Webhooks libraries decode by default, so receivers give those libraries the secret as a raw key.
// The same scheme as sdk/src/webhook-signature.ts, mirrored here because the server does not import the
// published package; test/webhooks/ checks every delivery with the SDK's verifier.
import { createHmac, randomBytes } from "node:crypto";

export const SIGNATURE_HEADER = "X-Service-Signature";
export const WEBHOOK_ID_HEADER = "X-Service-Webhook-Id";
export const VALIDATION_TOKEN_HEADER = "validation-token";

/** The `X-Service-Signature` value for `rawBody` (the exact bytes sent) at `at`. */
export function signatureHeader(rawBody: string, secret: string, at: Date): string {
  const t = String(Math.floor(at.getTime() / 1000));
  const v1 = createHmac("sha256", secret).update(`${t}.`, "utf8").update(rawBody, "utf8").digest("hex");
  return `t=${t},v1=${v1}`;
}

/** The Standard Webhooks headers of a delivery of `rawBody` (the exact bytes sent) with id `webhookId` at `at`. */
export function standardWebhookHeaders(webhookId: string, rawBody: string, secret: string, at: Date): Record<string, string> {
  const timestamp = String(Math.floor(at.getTime() / 1000));
  const signature = createHmac("sha256", secret).update(`${webhookId}.${timestamp}.`, "utf8").update(rawBody, "utf8").digest("base64");
  return { "webhook-id": webhookId, "webhook-timestamp": timestamp, "webhook-signature": `v1,${signature}` };
}

/** A new signing secret: `whsec_` and 32 characters of base64url (192 random bits). */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(24).toString("base64url")}`;
}
