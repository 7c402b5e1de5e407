// Secrets that Cobro must read back (webhook signing secrets, the private keys that sign idTokens, the
// validation tokens sent to webhook receivers) are sealed at rest: AES-256-GCM under a key-encryption key
// of COBRO_SECRET_KEY, so a copy of the database (a backup, a replica, a leaked dump) reveals none of them.
// Secrets that are only compared (passwords, client secrets, refresh tokens, API keys) stay hashed instead.
//
// COBRO_SECRET_KEY is a keyring: `<id>:<key>[,<id>:<key>…]`, each key 32 random bytes in base64, base64url
// or hex (a single bare key is accepted too; its id is then derived from it). The first key seals every new
// value; every key of the ring opens, so a rotation runs without downtime (docs/secrets.md).
//
// A sealed value is `v1.<keyId>.<nonce>.<ciphertext and tag>` (base64url; a random 12-byte nonce per value),
// and its associated data names the row and column it belongs to: moved to another row, it does not open.
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from "node:crypto";
import type { Sealed } from "../../db/tables/sealed.ts";

const VERSION = "v1";
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/** Where a sealed value lives: its associated data, so that it opens only there. */
export interface SealedPlace {
  table: string;
  column: string;
  rowId: string;
}

export class SecretKeyFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SecretKeyFormatError";
  }
}

/** A sealed value that does not open: another row's, tampered with, or sealed under a key not in the ring. */
export class SealedValueError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SealedValueError";
  }
}

export class SecretKeyring {
  readonly currentKeyId: string;
  readonly #keys: ReadonlyMap<string, Buffer>;

  private constructor(keys: Array<[string, Buffer]>) {
    this.currentKeyId = keys[0]![0];
    this.#keys = new Map(keys);
  }

  /** The ids of the ring's keys, the current one first. */
  get keyIds(): string[] {
    return [this.currentKeyId, ...[...this.#keys.keys()].filter((id) => id !== this.currentKeyId)];
  }

  /** The keyring of COBRO_SECRET_KEY (or of the Sandbox's key file); a readable SecretKeyFormatError otherwise. */
  static parse(text: string): SecretKeyring {
    const entries = text
      .split(",")
      .map((entry) => entry.trim())
      .filter(Boolean);
    if (entries.length === 0) throw new SecretKeyFormatError("holds no key");
    const keys: Array<[string, Buffer]> = entries.map((entry) => {
      const colon = entry.indexOf(":");
      const key = decodeKey(colon === -1 ? entry : entry.slice(colon + 1));
      const id = colon === -1 ? fingerprint(key) : entry.slice(0, colon);
      if (!KEY_ID.test(id)) throw new SecretKeyFormatError(`has the key id "${id}": use letters, digits, - and _ (up to 32)`);
      return [id, key];
    });
    const ids = keys.map(([id]) => id);
    const repeated = ids.find((id, index) => ids.indexOf(id) !== index);
    if (repeated !== undefined) throw new SecretKeyFormatError(`names the key id "${repeated}" twice`);
    return new SecretKeyring(keys);
  }

  /** A new random key, as the text of a one-key ring (`<id>:<base64url key>`). */
  static generateText(id = `k${new Date().toISOString().slice(0, 10).replaceAll("-", "")}`): string {
    return `${id}:${randomBytes(KEY_BYTES).toString("base64url")}`;
  }

  /**
   * Secrets for `purpose` derived from the ring's keys (HMAC-SHA256), the current key's first: processes
   * that share COBRO_SECRET_KEY agree on them without storing anything, and during a rotation a value
   * derived from any key of the ring is still recognised.
   */
  derivedSecrets(purpose: string): string[] {
    return [...this.#keys.entries()]
      .sort(([a], [b]) => (a === this.currentKeyId ? -1 : b === this.currentKeyId ? 1 : 0))
      .map(([, key]) => createHmac("sha256", key).update(`cobro/derived/${purpose}`).digest("base64url"));
  }

  seal(plaintext: string, place: SealedPlace): Sealed {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.#keys.get(this.currentKeyId)!, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(associatedData(place));
    const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
    return [VERSION, this.currentKeyId, nonce.toString("base64url"), sealed.toString("base64url")].join(".") as unknown as Sealed;
  }

  open(value: Sealed, place: SealedPlace): string {
    const parts = storedText(value).split(".");
    if (parts.length !== 4 || parts[0] !== VERSION) throw new SealedValueError(`${describe(place)} is not a sealed value`);
    const [, keyId, nonceText, sealedText] = parts as [string, string, string, string];
    const key = this.#keys.get(keyId);
    if (!key) throw new SealedValueError(`${describe(place)} is sealed under the key "${keyId}", which is not in COBRO_SECRET_KEY`);
    const nonce = Buffer.from(nonceText, "base64url");
    const sealed = Buffer.from(sealedText, "base64url");
    if (nonce.length !== NONCE_BYTES || sealed.length < TAG_BYTES) throw new SealedValueError(`${describe(place)} is not a sealed value`);
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, nonce, { authTagLength: TAG_BYTES });
      decipher.setAAD(associatedData(place));
      decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
      return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]).toString("utf8");
    } catch {
      throw new SealedValueError(`${describe(place)} does not open: it belongs to another row or was altered`);
    }
  }
}

/** The key id of a sealed value; undefined for a value still in clear (written before sealing existed). */
export function sealedKeyId(value: Sealed): string | undefined {
  const parts = storedText(value).split(".");
  return parts.length === 4 && parts[0] === VERSION ? parts[1] : undefined;
}

/** The text PostgreSQL holds for a sealed column (a value still in clear, before the start-up pass, included). */
export function storedText(value: Sealed): string {
  return value as unknown as string;
}

function associatedData(place: SealedPlace): Buffer {
  return Buffer.from(`cobro/${VERSION}/${place.table}.${place.column}/${place.rowId}`, "utf8");
}

function describe(place: SealedPlace): string {
  return `${place.table}.${place.column} of ${place.rowId}`;
}

function decodeKey(text: string): Buffer {
  const key = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, "hex") : /^[A-Za-z0-9+/_-]+={0,2}$/.test(text) ? Buffer.from(text, "base64") : Buffer.alloc(0);
  if (key.length !== KEY_BYTES) throw new SecretKeyFormatError(`must hold keys of 32 bytes in base64 or hex (64 hex digits), e.g. \`openssl rand -base64 32\``);
  return key;
}

/** A bare key's id: a short fingerprint, so that every process given the same key names it alike. */
function fingerprint(key: Buffer): string {
  return `f${createHash("sha256").update(key).digest("hex").slice(0, 12)}`;
}
