// idTokens: JWTs signed with an ES256 key kept in the database (so every process and every restart signs
// and verifies alike), published as a JWKS. Keys are cached in memory: verifying a token costs no database
// round trip; an unknown `kid` (a key made by another process) reloads the cache once. A token already
// verified is not verified again (its signature cannot change): only its expiry is checked, by the clock.
// The private JWK is stored sealed (domain/secrets), bound to its kid.
import { randomUUID } from "node:crypto";
import { exportJWK, generateKeyPair, importJWK, jwtVerify, SignJWT, type JWK, type JWTPayload, type CryptoKey } from "jose";
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Clock } from "../clock.ts";
import { secretKeyring } from "../secrets/process-keyring.ts";
import { openStored, placeOf, SIGNING_KEY_PRIVATE_JWK } from "../secrets/sealed-columns.ts";
import type { Sealed } from "../../db/tables/sealed.ts";

const ALGORITHM = "ES256";
/** Verified tokens remembered; past this many the memory starts over (it is only a saving of CPU). */
const VERIFIED_TOKENS_KEPT = 10_000;
export const ID_TOKEN_SECONDS = 3600;
const ISSUED_AT_LEEWAY_SECONDS = 60;
/** The audience of admin tokens: never an integration's clientId, so the Integration API refuses them. */
export const ADMIN_AUDIENCE = "cobro-admin";

export type TokenUse = "merchant" | "admin";

export interface MerchantTokenInput {
  merchantAccountId: string;
  providerClientId: string;
  grantId: string;
  scope: string;
  email: string;
}

export interface AdminTokenInput {
  adminUserId: string;
  sessionId: string;
  role: string;
  integrationClientId: string | null;
  email: string;
}

export class TokenService {
  readonly #db: Kysely<Database>;
  readonly #clock: Clock;
  readonly issuer: string;
  #signing: { kid: string; key: CryptoKey } | undefined;
  #verifying = new Map<string, CryptoKey>();
  #publicJwks: JWK[] = [];
  #lastReload = 0;
  #verified = new Map<string, JWTPayload>();

  constructor(db: Kysely<Database>, clock: Clock, issuer: string) {
    this.#db = db;
    this.#clock = clock;
    this.issuer = issuer;
  }

  /** Loads the keys, creating the first one if the database has none. Call once at start-up. */
  async init(): Promise<void> {
    await this.#load();
    if (!this.#signing) {
      const { privateKey, publicKey } = await generateKeyPair(ALGORITHM, { extractable: true });
      const kid = randomUUID();
      const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: ALGORITHM, use: "sig" };
      const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: ALGORITHM };
      await this.#db
        .insertInto("signing_keys")
        .values({
          kid,
          algorithm: ALGORITHM,
          private_jwk: secretKeyring().seal(JSON.stringify(privateJwk), placeOf(SIGNING_KEY_PRIVATE_JWK, kid)),
          public_jwk: JSON.stringify(publicJwk),
        })
        .execute();
      await this.#load();
    }
  }

  async #load(): Promise<void> {
    const rows = await this.#db.selectFrom("signing_keys").selectAll().where("retired_at", "is", null).orderBy("created_at", "desc").execute();
    const verifying = new Map<string, CryptoKey>();
    for (const row of rows) verifying.set(row.kid, (await importJWK(row.public_jwk as JWK, row.algorithm)) as CryptoKey);
    const newest = rows[0];
    this.#signing = newest ? { kid: newest.kid, key: (await importJWK(privateJwkOf(newest), newest.algorithm)) as CryptoKey } : undefined;
    this.#verifying = verifying;
    this.#publicJwks = rows.map((row) => row.public_jwk as JWK);
    this.#lastReload = Date.now();
  }

  jwks(): { keys: JWK[] } {
    return { keys: this.#publicJwks };
  }

  async #sign(claims: JWTPayload, subject: string, audience: string): Promise<string> {
    if (!this.#signing) throw new Error("TokenService.init() was not called");
    const now = Math.floor(this.#clock.now().getTime() / 1000);
    return new SignJWT(claims)
      .setProtectedHeader({ alg: ALGORITHM, kid: this.#signing.kid, typ: "JWT" })
      .setIssuer(this.issuer)
      .setSubject(subject)
      .setAudience(audience)
      .setIssuedAt(now)
      .setExpirationTime(now + ID_TOKEN_SECONDS)
      .setJti(randomUUID())
      .sign(this.#signing.key);
  }

  issueMerchantToken(input: MerchantTokenInput): Promise<string> {
    return this.#sign(
      { token_use: "merchant", sid: input.grantId, scope: input.scope, email: input.email, role: "MERCHANT" },
      input.merchantAccountId,
      input.providerClientId,
    );
  }

  issueAdminToken(input: AdminTokenInput): Promise<string> {
    return this.#sign(
      { token_use: "admin", sid: input.sessionId, role: input.role, integration_client_id: input.integrationClientId, email: input.email },
      input.adminUserId,
      ADMIN_AUDIENCE,
    );
  }

  /** The claims of a token this service signed, already issued and not expired (by the service clock); undefined otherwise. */
  async verify(token: string): Promise<JWTPayload | undefined> {
    const known = this.#verified.get(token);
    if (known) return typeof known.exp === "number" && known.exp > this.#clock.now().getTime() / 1000 ? known : undefined;
    const getKey = async (header: { kid?: string }) => {
      const kid = header.kid ?? "";
      let key = this.#verifying.get(kid);
      if (!key && Date.now() - this.#lastReload > 1000) {
        await this.#load();
        key = this.#verifying.get(kid);
      }
      if (!key) throw new Error("unknown key");
      return key;
    };
    try {
      const now = this.#clock.now();
      const { payload } = await jwtVerify(token, getKey, { issuer: this.issuer, algorithms: [ALGORITHM], currentDate: now, requiredClaims: ["exp", "iat"] });
      // A token issued in the future (a signer whose clock runs ahead) is not valid yet; the leeway
      // absorbs the clock differences of the processes that sign and verify.
      if (payload.iat! > now.getTime() / 1000 + ISSUED_AT_LEEWAY_SECONDS) return undefined;
      if (this.#verified.size >= VERIFIED_TOKENS_KEPT) this.#verified.clear();
      this.#verified.set(token, payload);
      return payload;
    } catch {
      return undefined;
    }
  }
}

function privateJwkOf(row: { kid: string; private_jwk: Sealed }): JWK {
  return JSON.parse(openStored(secretKeyring(), SIGNING_KEY_PRIVATE_JWK, row.kid, row.private_jwk)) as JWK;
}
