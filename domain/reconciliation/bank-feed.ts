// The bank feed: a bank integration posts each transfer a CVU receives, signed with a shared secret
// (`t=<unix>,v1=<hex HMAC-SHA256(secret, "${t}.${rawBody}")>`, the scheme of Cobro's own webhooks).
import { createHmac, timingSafeEqual } from "node:crypto";
import { DomainError } from "../errors.ts";

export const BANK_FEED_TOLERANCE_SECONDS = 300;

/** The X-Bank-Feed-Signature of `rawBody` at `now`: what the bank integration (and `npm run bank-feed:import`) sends. */
export function bankFeedSignature(secret: string, rawBody: string | Buffer, now: Date): string {
  const timestamp = Math.floor(now.getTime() / 1000);
  return `t=${timestamp},v1=${createHmac("sha256", secret).update(`${timestamp}.`).update(rawBody).digest("hex")}`;
}

/** Refuses a missing, malformed, stale or wrong signature (401 BankFeedSignatureError). */
export function checkBankFeedSignature(header: string | undefined, rawBody: Buffer | undefined, secret: string | undefined, now: Date): void {
  const refuse = (why: string) => new DomainError("BankFeedSignatureError", `Bank feed signature refused: ${why}`);
  if (!secret) throw refuse("no bank feed secret is configured");
  if (!header || !rawBody) throw refuse("X-Bank-Feed-Signature and a body are required");
  const parts = Object.fromEntries(header.split(",").map((part) => part.trim().split("=") as [string, string]));
  const timestamp = Number(parts.t);
  if (!Number.isInteger(timestamp) || !/^[0-9a-f]{64}$/.test(parts.v1 ?? "")) throw refuse("malformed header");
  if (Math.abs(now.getTime() / 1000 - timestamp) > BANK_FEED_TOLERANCE_SECONDS) throw refuse("timestamp outside the 5-minute tolerance");
  const expected = createHmac("sha256", secret).update(`${timestamp}.`).update(rawBody).digest();
  if (!timingSafeEqual(expected, Buffer.from(parts.v1!, "hex"))) throw refuse("the signature does not match");
}
