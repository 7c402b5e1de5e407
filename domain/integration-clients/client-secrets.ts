// An integration's OAuth client secret: which secrets the token endpoint accepts, and rotation. A
// rotation may leave the replaced secret working for a grace period so integrators can deploy the new
// one without downtime; only one previous secret is ever kept (a new rotation ends an ongoing grace).
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { IntegrationClient } from "../../db/tables/integration-clients.table.ts";
import type { Clock } from "../clock.ts";
import { ValidationError } from "../errors.ts";
import { hashSecret, randomToken, verifySecret } from "../secrets/hashing.ts";

const MAX_CLIENT_SECRET_GRACE_SECONDS = 86_400;

/** Whether `clientSecret` is the client's current secret, or its previous one still within its grace. */
export async function clientSecretMatches(client: IntegrationClient, clientSecret: string, now: Date): Promise<boolean> {
  if (await verifySecret(client.client_secret_hash, clientSecret)) return true;
  const previous = client.previous_client_secret_hash;
  const expiresAt = client.previous_client_secret_expires_at;
  return previous !== null && expiresAt !== null && expiresAt > now && (await verifySecret(previous, clientSecret));
}

/** Issues a new secret (returned once, stored hashed); the current one keeps working for `graceSeconds`. */
export async function rotateIntegrationClientSecret(
  db: Kysely<Database>,
  clock: Clock,
  integrationClientId: string,
  graceSeconds: number,
): Promise<{ clientSecret: string; previousSecretExpiresAt: Date | null }> {
  if (!Number.isInteger(graceSeconds) || graceSeconds < 0 || graceSeconds > MAX_CLIENT_SECRET_GRACE_SECONDS) {
    throw ValidationError.of("graceSeconds", "maximum", `graceSeconds must be an integer from 0 to ${MAX_CLIENT_SECRET_GRACE_SECONDS}`, {
      limit: MAX_CLIENT_SECRET_GRACE_SECONDS,
    });
  }
  const clientSecret = randomToken("cs_");
  const newHash = await hashSecret(clientSecret);
  const previousSecretExpiresAt = graceSeconds > 0 ? new Date(clock.now().getTime() + graceSeconds * 1000) : null;
  // One statement: the row's current hash becomes the previous one atomically, whatever rotation ran before.
  await db
    .updateTable("integration_clients")
    .set((eb) => ({
      previous_client_secret_hash: previousSecretExpiresAt === null ? null : eb.ref("client_secret_hash"),
      previous_client_secret_expires_at: previousSecretExpiresAt,
      client_secret_hash: newHash,
    }))
    .where("id", "=", integrationClientId)
    .executeTakeFirstOrThrow();
  return { clientSecret, previousSecretExpiresAt };
}
