// Platform API keys: how another deployment of Cobro (the Sandbox) calls this one's Admin API without a
// person's session, for the one operation that accepts them (creating an integration that went live).
// A key is shown once, at creation, and stored as its SHA-256 (256 random bits need no slow hash).
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { DomainError } from "../errors.ts";
import type { Authentication } from "./authentication.ts";
import type { PlatformKeyCaller } from "./callers.ts";
import { randomToken, sha256 } from "../secrets/hashing.ts";

const KEY_PREFIX = "cpk_";

export async function createPlatformApiKey(db: Kysely<Database>, name: string): Promise<{ id: string; key: string }> {
  const key = randomToken(KEY_PREFIX);
  const { id } = await db
    .insertInto("platform_api_keys")
    .values({ name, key_hash: sha256(key) })
    .returning("id")
    .executeTakeFirstOrThrow();
  return { id, key };
}

export async function authenticatePlatformApiKey(
  db: Kysely<Database>,
  header: string | string[] | undefined,
  now: Date,
): Promise<Authentication<PlatformKeyCaller>> {
  // Made only for a refusal: an error's stack costs every accepted request otherwise.
  const unauthorized = () => ({ refused: new DomainError("UnauthorizedError", "A valid platform API key is required (X-Cobro-Api-Key)") });
  if (typeof header !== "string" || !header.startsWith(KEY_PREFIX)) return unauthorized();
  const key = await db
    .updateTable("platform_api_keys")
    .set({ last_used_at: now })
    .where("key_hash", "=", sha256(header))
    .where("revoked_at", "is", null)
    .returning(["id", "name"])
    .executeTakeFirst();
  if (!key) return unauthorized();
  return { caller: { kind: "platform-key", platformApiKeyId: key.id, name: key.name } };
}
