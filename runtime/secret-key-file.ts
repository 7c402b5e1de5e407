// The Sandbox's own key for sealing secrets at rest, when COBRO_SECRET_KEY is not set: generated on the
// first start into the data folder, next to the embedded database (readable by its owner only), and read
// back at every later start. Production never uses it: its configuration requires COBRO_SECRET_KEY.
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CobroStartupError } from "../db/errors.ts";
import { displayPath } from "../db/embedded-postgres.ts";
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import { SecretKeyFormatError, SecretKeyring } from "../domain/secrets/keyring.ts";
import { checkSampleOpens, sampleStoredSecrets } from "../domain/secrets/sealed-columns.ts";
import type { Config } from "./config.ts";

/** The Sandbox's generated key, in the data folder. */
export const SANDBOX_KEY_FILE = "secret-key";

/**
 * The configured ring (configuredSecretKeyring), checked against a sample of what the database holds, before
 * anything uses it: start-up and `npm run secrets:rotate-key` open it here alike. A key missing from the ring,
 * or another key under a stored key's id, fails with a SealedValueError; `inClear` says some value is still
 * to be sealed.
 */
export async function openConfiguredKeyring(config: Config, db: Kysely<Database>): Promise<{ keyring: SecretKeyring; inClear: boolean }> {
  const sample = await sampleStoredSecrets(db);
  const keyring = configuredSecretKeyring(config, sample.keyIds);
  checkSampleOpens(sample, keyring, secretKeySource(config));
  return { keyring, inClear: sample.inClear };
}

/**
 * COBRO_SECRET_KEY, or the Sandbox's generated key file; never a generated key in Production. `storedKeyIds`
 * are the ids of the keys that sealed what the database holds: a database with sealed secrets and no key
 * file (a restored backup whose key was not put back) is refused rather than given a new key that opens nothing.
 */
function configuredSecretKeyring(config: Config, storedKeyIds: readonly string[]): SecretKeyring {
  if (config.secretKeyring) return config.secretKeyring;
  if (config.serviceEnv === "production") throw new CobroStartupError("COBRO_SECRET_KEY is required in Production (docs/secrets.md)");
  return sandboxSecretKeyring(config.dataDir, storedKeyIds);
}

export function sandboxSecretKeyring(dataDir: string, storedKeyIds: readonly string[]): SecretKeyring {
  const file = join(dataDir, SANDBOX_KEY_FILE);
  if (!existsSync(file)) {
    if (storedKeyIds.length > 0)
      throw new CobroStartupError(
        `${displayPath(file)} is missing, and the database holds secrets sealed under the key "${storedKeyIds.join('", "')}": put back the key file kept apart from the backups, or set COBRO_SECRET_KEY (docs/operations.md)`,
      );
    mkdirSync(dataDir, { recursive: true });
    // Written whole under another name, then linked into place: processes starting at once on one folder
    // never read a half-written key, and never overwrite each other's (the first link wins).
    const draft = `${file}.${process.pid}.${randomBytes(4).toString("hex")}`;
    writeFileSync(draft, `${SecretKeyring.generateText()}\n`, { mode: 0o600, flag: "wx" });
    try {
      linkSync(draft, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    } finally {
      rmSync(draft, { force: true });
    }
  }
  chmodSync(file, 0o600);
  try {
    return SecretKeyring.parse(readFileSync(file, "utf8").trim());
  } catch (error) {
    if (error instanceof SecretKeyFormatError)
      throw new CobroStartupError(`The Sandbox's key file ${file} ${error.message}: restore it, or set COBRO_SECRET_KEY`);
    throw error;
  }
}

/** Where this process's sealed-secrets key comes from, as an operator finds it. */
export function secretKeySource(config: Config): string {
  if (config.secretKeyring) return "COBRO_SECRET_KEY";
  if (config.serviceEnv === "production") return "COBRO_SECRET_KEY (required in Production)";
  return `the Sandbox's key file ${displayPath(join(config.dataDir, SANDBOX_KEY_FILE))}`;
}
