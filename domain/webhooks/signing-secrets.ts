// The integration's webhook signing secret: one per integration (one deployment is one environment, so in
// Production it is the production secret). Created on first need (the first delivery, test or URL
// verification, or the registration of a destination, so that the integrator can read it before the
// first event), returned in clear, and replaced at once by a rotation: every signature made after the
// rotation, retries of older events included, uses the new secret. Stored sealed (domain/secrets): the
// row holds it encrypted under COBRO_SECRET_KEY, bound to its integration. Its scheme says how it keys
// webhook-signature (signature.ts): new secrets are `standard`; `legacy` ones stay so until rotated.

import type { Executor } from "../../db/transactions.ts";
import type { SigningSecretScheme } from "../../db/tables/webhooks.table.ts";
import { DomainError } from "../errors.ts";
import { generateSigningSecret, type SigningSecret } from "./signature.ts";
import { secretKeyring } from "../secrets/process-keyring.ts";
import { openStored, placeOf, WEBHOOK_SIGNING_SECRET } from "../secrets/sealed-columns.ts";
import type { Sealed } from "../../db/tables/sealed.ts";
import { storedText } from "../secrets/keyring.ts";

/** The secret, created if the integration has none yet (safe under concurrency: the primary key decides). */
export async function ensureSigningSecret(db: Executor, integrationClientId: string, now: Date): Promise<SigningSecret> {
  // Read first: once it exists (nearly always) that is the only round trip.
  const existing = await storedRow(db, integrationClientId).executeTakeFirst();
  if (existing) return openSigningSecret(integrationClientId, existing);
  const created = generateSigningSecret();
  await db
    .insertInto("webhook_signing_secrets")
    .values({ integration_client_id: integrationClientId, secret: seal(integrationClientId, created.secret), scheme: created.scheme, created_at: now })
    .onConflict((oc) => oc.column("integration_client_id").doNothing())
    .execute();
  const row = await storedRow(db, integrationClientId).executeTakeFirstOrThrow();
  return openSigningSecret(integrationClientId, row);
}

export async function getSigningSecret(db: Executor, integrationClientId: string): Promise<SigningSecret> {
  const row = await storedRow(db, integrationClientId).executeTakeFirst();
  if (!row)
    throw new DomainError(
      "WebhookSigningSecretNotFoundError",
      "The integration has no webhook signing secret yet: create one with PUT /my-integration/webhook-signing-secret/rotate",
    );
  return openSigningSecret(integrationClientId, row);
}

/** A new `standard` secret in place of the current one, whatever its scheme (how a legacy secret is replaced). */
export async function rotateSigningSecret(db: Executor, integrationClientId: string, now: Date): Promise<SigningSecret> {
  const created = generateSigningSecret();
  const sealed = seal(integrationClientId, created.secret);
  await db
    .insertInto("webhook_signing_secrets")
    .values({ integration_client_id: integrationClientId, secret: sealed, scheme: created.scheme, created_at: now })
    .onConflict((oc) => oc.column("integration_client_id").doUpdateSet({ secret: sealed, scheme: created.scheme, rotated_at: now }))
    .execute();
  return created;
}

function storedRow(db: Executor, integrationClientId: string) {
  return db.selectFrom("webhook_signing_secrets").select(["secret", "scheme"]).where("integration_client_id", "=", integrationClientId);
}

function seal(integrationClientId: string, secret: string): Sealed {
  return secretKeyring().seal(secret, placeOf(WEBHOOK_SIGNING_SECRET, integrationClientId));
}

/** How long an opened secret is kept for the next deliveries of its integration. */
const OPENED_FOR_MS = 60_000;
const MAX_OPENED = 1000;
/**
 * Opened secrets by keyring, integration and the sealed text read: a burst of deliveries decrypts each
 * integration's secret once. Keyed by what was read, so a rotation (a new sealed value) is opened afresh
 * at the next delivery that reads it; nothing is kept past OPENED_FOR_MS.
 */
const opened = new WeakMap<object, Map<string, { secret: SigningSecret; until: number }>>();

/** The secret of a stored row (for a query that reads the columns itself, such as a delivery's joined read). */
export function openSigningSecret(integrationClientId: string, stored: { secret: Sealed; scheme: SigningSecretScheme }): SigningSecret {
  const keyring = secretKeyring();
  let byRow = opened.get(keyring);
  if (!byRow) {
    byRow = new Map();
    opened.set(keyring, byRow);
  }
  const key = `${integrationClientId} ${stored.scheme} ${storedText(stored.secret)}`;
  const now = Date.now();
  const kept = byRow.get(key);
  if (kept && kept.until > now) return kept.secret;
  const secret = { secret: openStored(keyring, WEBHOOK_SIGNING_SECRET, integrationClientId, stored.secret), scheme: stored.scheme };
  if (byRow.size >= MAX_OPENED) byRow.clear();
  byRow.set(key, { secret, until: now + OPENED_FOR_MS });
  return secret;
}
