// The integration's webhook signing secret: one per integration (one deployment is one environment, so in
// Production it is the production secret). Created on first need (the first delivery, test or URL
// verification, or the registration of a destination, so that the integrator can read it before the
// first event), returned in clear, and replaced at once by a rotation: every signature made after the
// rotation, retries of older events included, uses the new secret.
import type { Kysely, Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import { DomainError } from "../errors.ts";
import { generateSigningSecret } from "./signature.ts";

type Db = Kysely<Database> | Transaction<Database>;

/** The secret, created if the integration has none yet (safe under concurrency: the primary key decides). */
export async function ensureSigningSecret(db: Db, integrationClientId: string, now: Date): Promise<string> {
  // Read first: once it exists (nearly always) that is the only round trip.
  const existing = await db.selectFrom("webhook_signing_secrets").select("secret").where("integration_client_id", "=", integrationClientId).executeTakeFirst();
  if (existing) return existing.secret;
  await db
    .insertInto("webhook_signing_secrets")
    .values({ integration_client_id: integrationClientId, secret: generateSigningSecret(), created_at: now })
    .onConflict((oc) => oc.column("integration_client_id").doNothing())
    .execute();
  const row = await db.selectFrom("webhook_signing_secrets").select("secret").where("integration_client_id", "=", integrationClientId).executeTakeFirstOrThrow();
  return row.secret;
}

export async function getSigningSecret(db: Db, integrationClientId: string): Promise<string> {
  const row = await db.selectFrom("webhook_signing_secrets").select("secret").where("integration_client_id", "=", integrationClientId).executeTakeFirst();
  if (!row) throw new DomainError("WebhookSigningSecretNotFoundError", "The integration has no webhook signing secret yet: create one with PUT /my-integration/webhook-signing-secret/rotate");
  return row.secret;
}

export async function rotateSigningSecret(db: Db, integrationClientId: string, now: Date): Promise<string> {
  const secret = generateSigningSecret();
  await db
    .insertInto("webhook_signing_secrets")
    .values({ integration_client_id: integrationClientId, secret, created_at: now })
    .onConflict((oc) => oc.column("integration_client_id").doUpdateSet({ secret, rotated_at: now }))
    .execute();
  return secret;
}
