// Who is calling, by address: the socket's peer, or the browser behind the portal's forward. The Auth API
// counts guessing by it, and the audit log records it.
import type { Request } from "express";
import type { SecretKeyring } from "../../domain/secrets/keyring.ts";
import { constantTimeEqual } from "../../domain/secrets/hashing.ts";
import { secretKeyring } from "../../domain/secrets/process-keyring.ts";

/**
 * The browser's address travels in FORWARDED_CLIENT_HEADER, believed only next to a secret derived from
 * COBRO_SECRET_KEY: only a portal forward of this deployment (the Admin host, in this process or another
 * sharing the key) can set it, and anyone else's header is ignored.
 */
export const FORWARDED_CLIENT_HEADER = "x-cobro-portal-client";
export const FORWARD_SECRET_HEADER = "x-cobro-portal-forward";
const forwardSecretsOf = new WeakMap<SecretKeyring, string[]>();
export function forwardSecrets(): string[] {
  const keyring = secretKeyring();
  let secrets = forwardSecretsOf.get(keyring);
  if (!secrets) {
    secrets = keyring.derivedSecrets("portal-forward");
    forwardSecretsOf.set(keyring, secrets);
  }
  return secrets;
}

/** The caller's address: the socket's peer (Express's `trust proxy` is off), or the browser's behind the portal's forward. */
export function clientAddressOf(req: Request): string {
  const forwarded = req.headers[FORWARDED_CLIENT_HEADER];
  const secret = req.headers[FORWARD_SECRET_HEADER];
  if (typeof forwarded === "string" && forwarded !== "" && typeof secret === "string" && forwardSecrets().some((known) => constantTimeEqual(secret, known)))
    return forwarded;
  return req.ip ?? req.socket.remoteAddress ?? "unknown";
}
