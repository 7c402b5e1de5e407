// The checkout widget's keys of an integration (Admin API `/my-integration/api-keys`) and their check on
// `/v1/payments`. The publishable key (`pk_test_…`/`pk_live_…`) is public: it identifies the integration
// from a buyer's browser and is kept in clear so the portal can show it. The secret key (`sk_test_…`/
// `sk_live_…`) creates charges from the store's server: shown once, kept as its SHA-256 (256 random bits
// need no slow hash, and the hash is looked up by value), replaced by each rotation.
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { DomainError } from "../errors.ts";
import { randomToken, sha256 } from "../secrets/hashing.ts";
import { bearerToken, type Authentication } from "../sign-in/authentication.ts";
import type { WidgetKeyCaller } from "../sign-in/callers.ts";

export interface WidgetKeys {
  publishableKey: string | null;
  secretKeyLast4: string | null;
  allowedOrigins: string[];
}

type ServiceEnv = "sandbox" | "production";

const keyMode = (serviceEnv: ServiceEnv) => (serviceEnv === "production" ? "live" : "test");

const noKeys: WidgetKeys = { publishableKey: null, secretKeyLast4: null, allowedOrigins: [] };

function keysOf(row: { publishable_key: string | null; secret_key_last4: string | null; allowed_origins: string[] }): WidgetKeys {
  return { publishableKey: row.publishable_key, secretKeyLast4: row.secret_key_last4, allowedOrigins: row.allowed_origins };
}

export async function widgetKeysOf(db: Kysely<Database>, integrationClientId: string): Promise<WidgetKeys> {
  const row = await db
    .selectFrom("widget_keys")
    .select(["publishable_key", "secret_key_last4", "allowed_origins"])
    .where("integration_client_id", "=", integrationClientId)
    .executeTakeFirst();
  return row ? keysOf(row) : noKeys;
}

/** Creates the publishable key (no secret key: that is a rotation); 409 ApiKeysAlreadyExistError once it exists. */
export async function createPublishableKey(db: Kysely<Database>, integrationClientId: string, serviceEnv: ServiceEnv, now: Date): Promise<WidgetKeys> {
  const publishableKey = randomToken(`pk_${keyMode(serviceEnv)}_`);
  // One statement: the row may already exist with only allowed origins; two concurrent creates make one key.
  const row = await db
    .insertInto("widget_keys")
    .values({ integration_client_id: integrationClientId, publishable_key: publishableKey, created_at: now, updated_at: now })
    .onConflict((conflict) =>
      conflict
        .column("integration_client_id")
        .doUpdateSet({ publishable_key: publishableKey, updated_at: now })
        .where("widget_keys.publishable_key", "is", null),
    )
    .returning(["publishable_key", "secret_key_last4", "allowed_origins"])
    .executeTakeFirst();
  if (!row)
    throw new DomainError(
      "ApiKeysAlreadyExistError",
      "The integration already has its widget keys; rotate the secret key with POST /my-integration/api-keys/rotate-secret",
    );
  return keysOf(row);
}

/** Replaces the whole list of allowed origins (empty: any origin); allowed before the keys exist. */
export async function replaceAllowedOrigins(db: Kysely<Database>, integrationClientId: string, allowedOrigins: string[], now: Date): Promise<WidgetKeys> {
  const row = await db
    .insertInto("widget_keys")
    .values({ integration_client_id: integrationClientId, allowed_origins: allowedOrigins, created_at: now, updated_at: now })
    .onConflict((conflict) => conflict.column("integration_client_id").doUpdateSet({ allowed_origins: allowedOrigins, updated_at: now }))
    .returning(["publishable_key", "secret_key_last4", "allowed_origins"])
    .executeTakeFirstOrThrow();
  return keysOf(row);
}

/** A new secret key (the previous one stops working at once); 409 ApiKeysNotCreatedError before the publishable key exists. */
export async function rotateSecretKey(
  db: Kysely<Database>,
  integrationClientId: string,
  serviceEnv: ServiceEnv,
  now: Date,
): Promise<{ secretKey: string; secretKeyLast4: string }> {
  const secretKey = randomToken(`sk_${keyMode(serviceEnv)}_`);
  const secretKeyLast4 = secretKey.slice(-4);
  const row = await db
    .updateTable("widget_keys")
    .set({ secret_key_hash: sha256(secretKey), secret_key_last4: secretKeyLast4, updated_at: now })
    .where("integration_client_id", "=", integrationClientId)
    .where("publishable_key", "is not", null)
    .returning("integration_client_id")
    .executeTakeFirst();
  if (!row)
    throw new DomainError("ApiKeysNotCreatedError", "The integration has no publishable key yet: create the keys first with POST /my-integration/api-keys");
  return { secretKey, secretKeyLast4 };
}

export type WidgetKeyKind = WidgetKeyCaller["key"];

const PREFIXES: Record<WidgetKeyKind, string[]> = { publishable: ["pk_test_", "pk_live_"], secret: ["sk_test_", "sk_live_"] };

/** The check of `/v1/payments`: the key of the kind the operation takes, of an existing integration. */
export async function authenticateWidgetKey(
  db: Kysely<Database>,
  authorization: string | string[] | undefined,
  kind: WidgetKeyKind,
): Promise<Authentication<WidgetKeyCaller>> {
  const refused = {
    refused: new DomainError(
      "WidgetKeyInvalidError",
      kind === "secret"
        ? "A valid secret widget key is required (Authorization: Bearer sk_…)"
        : "A valid publishable widget key is required (Authorization: Bearer pk_…)",
    ),
  };
  const key = bearerToken(authorization);
  if (!key || !PREFIXES[kind].some((prefix) => key.startsWith(prefix))) return refused;
  const row = await db
    .selectFrom("widget_keys as k")
    .innerJoin("integration_clients as c", "c.id", "k.integration_client_id")
    .select(["c.id", "c.clock_offset_ms"])
    .$call((q) => (kind === "secret" ? q.where("k.secret_key_hash", "=", sha256(key)) : q.where("k.publishable_key", "=", key)))
    .executeTakeFirst();
  if (!row) return refused;
  return { caller: { kind: "widget-key", key: kind, integrationClientId: row.id, clockOffsetMs: Number(row.clock_offset_ms) } };
}

/** Whether a browser page of `origin` may read answers given to this publishable key (an empty list allows any origin). */
export async function publishableKeyAllowsOrigin(db: Kysely<Database>, publishableKey: string, origin: string): Promise<boolean> {
  const row = await db.selectFrom("widget_keys").select("allowed_origins").where("publishable_key", "=", publishableKey).executeTakeFirst();
  return row !== undefined && originAllowed(row.allowed_origins, origin);
}

/** Origins compare as browsers send them: scheme and host are case-insensitive. */
export function originAllowed(allowedOrigins: string[], origin: string): boolean {
  return allowedOrigins.length === 0 || allowedOrigins.some((allowed) => allowed.toLowerCase() === origin.toLowerCase());
}
