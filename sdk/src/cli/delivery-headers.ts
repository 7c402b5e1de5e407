// The headers of a webhook delivery, as the service sends them (domain/webhooks/delivery.ts's sendSigned):
// what `cobro listen` puts on each forwarded event, so that a receiver cannot tell it from a real one.
import { signStandardWebhook, type SigningSecretScheme } from "../standard-webhooks.js";
import { signWebhookPayload, WEBHOOK_ID_HEADER, WEBHOOK_SIGNATURE_HEADER } from "../webhook-signature.js";

export function deliveryHeaders(
  webhookId: string,
  rawBody: string,
  signing: { secret: string; scheme: SigningSecretScheme },
  now: Date | number = Date.now(),
): Record<string, string> {
  return {
    "content-type": "application/json",
    "user-agent": "Cobro-Webhooks/1.0",
    [WEBHOOK_SIGNATURE_HEADER]: signWebhookPayload(rawBody, signing.secret, now),
    [WEBHOOK_ID_HEADER]: webhookId,
    ...signStandardWebhook(webhookId, rawBody, signing.secret, { now, scheme: signing.scheme }),
  };
}
