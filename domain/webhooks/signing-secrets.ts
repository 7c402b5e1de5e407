// The integration's webhook signing secret: one per integration (one deployment is one environment, so in
// Production it is the production secret). Created on first need (the first delivery, test or URL
// verification, or the registration of a destination, so that the integrator can read it before the
// first event), returned in clear, and replaced at once by a rotation: every signature made after the
// rotation, retries of older events included, uses the new secret. Stored sealed (domain/secrets): the
// row holds it encrypted under COBRO_SECRET_KEY, bound to its integration.

import type { Executor } from "../../db/transactions.ts";
import { DomainError } from "../errors.ts";
import { generateSigningSecret } from "./signature.ts";
import { secretKeyring } from "../secrets/process-keyring.ts";
import { openStored, placeOf, WEBHOOK_SIGNING_SECRET } from "../secrets/sealed-columns.ts";
import type { Sealed } from "../../db/tables/sealed.ts";

/** The secret, created if the integration has none yet (safe under concurrency: the primary key decides). */
export async function ensureSigningSecret(db: Executor, integrationClientId: string, now: Date): Promise<string> {
  // Read first: once it exists (nearly always) that is the only round trip.
  const existing = await db.selectFrom("webhook_signing_secrets").select("secret").where("integration_client_id", "=", integrationClientId).executeTakeFirst();
  if (existing) return openSigningSecret(integrationClientId, existing.secret);
  await db
    .insertInto("webhook_signing_secrets")
    .values({ integration_client_id: integrationClientId, secret: seal(integrationClientId, generateSigningSecret()), created_at: now })
    .onConflict((oc) => oc.column("integration_client_id").doNothing())
    .execute();
  const row = await db
    .selectFrom("webhook_signing_secrets")
    .select("secret")
    .where("integration_client_id", "=", integrationClientId)
    .executeTakeFirstOrThrow();
  return openSigningSecret(integrationClientId, row.secret);
}

export async function getSigningSecret(db: Executor, integrationClientId: string): Promise<string> {
  const row = await db.selectFrom("webhook_signing_secrets").select("secret").where("integration_client_id", "=", integrationClientId).executeTakeFirst();
  if (!row)
    throw new DomainError(
      "WebhookSigningSecretNotFoundError",
      "The integration has no webhook signing secret yet: create one with PUT /my-integration/webhook-signing-secret/rotate",
    );
  return openSigningSecret(integrationClientId, row.secret);
}

export async function rotateSigningSecret(db: Executor, integrationClientId: string, now: Date): Promise<string> {
  const secret = generateSigningSecret();
  const sealed = seal(integrationClientId, secret);
  await db
    .insertInto("webhook_signing_secrets")
    .values({ integration_client_id: integrationClientId, secret: sealed, created_at: now })
    .onConflict((oc) => oc.column("integration_client_id").doUpdateSet({ secret: sealed, rotated_at: now }))
    .execute();
  return secret;
}

function seal(integrationClientId: string, secret: string): Sealed {
  return secretKeyring().seal(secret, placeOf(WEBHOOK_SIGNING_SECRET, integrationClientId));
}

/** The secret of a stored row (for a query that reads the column itself, such as a delivery's joined read). */
export function openSigningSecret(integrationClientId: string, stored: Sealed): string {
  return openStored(secretKeyring(), WEBHOOK_SIGNING_SECRET, integrationClientId, stored);
}
