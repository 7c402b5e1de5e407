// The webhook deliveries an SDK's verifier is tried with, signed by the service's own code
// (domain/webhooks/signature.ts) for both schemes: as sent (each header alone, and both together), made with
// another secret, over an altered body, or stale (301 s old, past the 300 s tolerance); and what the
// verifier must say of each: the event's referenceId, or the reason of its refusal.
import { signatureHeader, standardWebhookHeaders, type SigningSecret } from "../../domain/webhooks/signature.ts";

export interface SignedDelivery {
  body: string;
  headers: Record<string, string>;
}

/** The body every case carries (or an altered copy of it). */
export const SIGNED_BODY = JSON.stringify({ event: "payment_request.payment_received", referenceId: "INV-9", stateType: "total_payment", paidAmount: 1500.5 });

/** What the verifier must answer for each case: the referenceId of the event it returns, or its refusal's reason. */
export const SIGNATURE_VERDICTS = {
  serviceValid: "INV-9",
  serviceForged: "signature_mismatch",
  serviceAltered: "signature_mismatch",
  serviceStale: "stale_timestamp",
  standardValid: "INV-9",
  standardForged: "signature_mismatch",
  standardAltered: "signature_mismatch",
  standardStale: "stale_timestamp",
  bothValid: "INV-9",
} as const;

/** The cases for a verifier of `signing`'s secret; `other` is the wrong secret the forged ones are signed with. */
export function webhookSignatureCases(signing: SigningSecret, other: SigningSecret, now = new Date()): Record<keyof typeof SIGNATURE_VERDICTS, SignedDelivery> {
  const body = SIGNED_BODY;
  const altered = body.replace("1500.5", "1.5");
  const stale = new Date(now.getTime() - 301_000);
  const service = (secret: SigningSecret, at: Date) => ({ "X-Service-Signature": signatureHeader(body, secret.secret, at) });
  const standard = (secret: SigningSecret, at: Date) => standardWebhookHeaders("evt_1", body, secret, at);
  return {
    serviceValid: { body, headers: service(signing, now) },
    serviceForged: { body, headers: service(other, now) },
    serviceAltered: { body: altered, headers: service(signing, now) },
    serviceStale: { body, headers: service(signing, stale) },
    standardValid: { body, headers: standard(signing, now) },
    standardForged: { body, headers: standard(other, now) },
    standardAltered: { body: altered, headers: standard(signing, now) },
    standardStale: { body, headers: standard(signing, stale) },
    bothValid: { body, headers: { ...standard(signing, now), ...service(signing, now) } },
  };
}
