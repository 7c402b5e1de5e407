// The keyring of this process, installed once at start-up (startService, the rotation script) from
// COBRO_SECRET_KEY or the Sandbox's key file, and read by the storage functions of sealed columns. It is
// process configuration, like the database pool: threading it through every use case that may create a
// webhook signing secret would add a parameter to each of them for a value that never changes per call.
import type { SecretKeyring } from "./keyring.ts";

let installed: SecretKeyring | undefined;

export function installSecretKeyring(keyring: SecretKeyring): void {
  installed = keyring;
}

export function secretKeyring(): SecretKeyring {
  if (!installed) throw new Error("No secret keyring: startService installs it from COBRO_SECRET_KEY before anything reads a sealed secret");
  return installed;
}
