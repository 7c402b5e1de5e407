// Idempotency keys (the `Idempotency-Key` header of an operation that must not happen twice): the client
// sends a key of its choosing with a request, and the same key answers what the first request did instead
// of doing it again. The operation keeps the key, unique per owner, with the request's fingerprint in the row
// its first request wrote (in that request's transaction), so a key exists exactly when its effect does. The
// same key with another request is refused: 422 `IdempotencyKeyReusedError`.
import { createHash } from "node:crypto";
import { DomainError } from "./errors.ts";

/** What a request asked, as a stable digest: the operation and its inputs (plain JSON, keys in a fixed order). */
export function requestFingerprint(operation: string, request: Record<string, string | number | boolean | null>): string {
  const ordered = Object.fromEntries(Object.entries(request).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return createHash("sha256")
    .update(JSON.stringify([operation, ordered]))
    .digest("hex");
}

/** The earlier request under the key, when it asked the same: what to answer again; another request: refused. */
export function replayed<T extends { request_fingerprint: string }>(earlier: T, fingerprint: string): T {
  if (earlier.request_fingerprint !== fingerprint) {
    throw new DomainError("IdempotencyKeyReusedError", "This Idempotency-Key was used for another request: send a new key for a new request");
  }
  return earlier;
}
