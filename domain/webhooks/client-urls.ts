// The integration's registered URLs: its webhook URL (rule 3 of the destinations) and its OAuth redirect
// URIs. A webhook URL passes the SSRF guard at registration (a name that does not resolve yet is
// accepted: it is judged again at every delivery) and is then tested for reachability, without ever
// blocking the registration. Redirect URI rows are mirrored in integration_clients.redirect_uris, which
// the OAuth flow reads, in the same transaction.
import { randomUUID } from "node:crypto";
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { ClientUrlRow, ClientUrlType } from "../../db/tables/webhooks.table.ts";
import { DomainError, ValidationError } from "../errors.ts";
import { browserUrlProblem } from "../browser-urls.ts";
import { checkDestination, type DestinationPolicy } from "../outbound/destination-guard.ts";
import { sendSigned } from "./delivery.ts";
import type { OutboundHttpClient } from "../outbound/http-client.ts";
import { ensureSigningSecret } from "./signing-secrets.ts";
import { openClientUrlToken, sealClientUrlToken } from "./validation-tokens.ts";

export interface ClientUrlVerification {
  status: "ok" | "non_2xx" | "unreachable";
  httpStatus?: number;
}

export interface ClientUrlView {
  clientUrlId: string;
  data: { hasValidationToken: boolean; urlType: ClientUrlType; url: string };
  verification?: ClientUrlVerification;
}

export interface ClientUrlContext {
  integrationClientId: string;
  policy: DestinationPolicy;
  /** `http://` redirect URIs on loopback are a Sandbox allowance. */
  sandbox: boolean;
  now: Date;
}

const notFound = () => new DomainError("ClientUrlNotFoundError", "No URL with this clientUrlId in the integration");

async function checkUrl(url: string, urlType: ClientUrlType, validationToken: string | undefined, context: ClientUrlContext): Promise<void> {
  if (urlType === "redirect_uri") {
    if (validationToken !== undefined) throw ValidationError.of("validationToken", "notAccepted", "validationToken applies to webhook URLs only");
    if (!url.startsWith("https://") && !context.sandbox)
      throw ValidationError.of("url", "https", "url must use https (http on loopback is accepted only in the Sandbox)");
    const problem = browserUrlProblem(url);
    if (problem) throw ValidationError.of("url", problem.rule, `url ${problem.complaint}`, problem.rule === "format" ? { format: "uri" } : {});
    return;
  }
  const verdict = await checkDestination(url, context.policy, true);
  if (!verdict.allowed) throw new DomainError("WebhookUrlBlockedError", `The webhook URL is not accepted: ${verdict.reason}`);
}

function viewOf(row: ClientUrlRow, verification?: ClientUrlVerification): ClientUrlView {
  return {
    clientUrlId: row.id,
    data: { hasValidationToken: row.validation_token !== null, urlType: row.url_type, url: row.url },
    ...(verification ? { verification } : {}),
  };
}

export async function createClientUrl(
  db: Kysely<Database>,
  http: OutboundHttpClient,
  context: ClientUrlContext,
  input: { url: string; urlType: ClientUrlType; validationToken?: string },
): Promise<ClientUrlView> {
  await checkUrl(input.url, input.urlType, input.validationToken, context);
  const row = await db.transaction().execute(async (trx) => {
    const id = randomUUID(); // known before the insert: the sealed token is bound to it
    const inserted = await trx
      .insertInto("client_urls")
      .values({
        id,
        integration_client_id: context.integrationClientId,
        url_type: input.urlType,
        url: input.url,
        validation_token: sealClientUrlToken(id, input.validationToken ?? null),
        created_at: context.now,
        updated_at: context.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (input.urlType === "redirect_uri") {
      await trx
        .updateTable("integration_clients")
        .set({
          redirect_uris: sql<string[]>`case when ${input.url} = any(redirect_uris) then redirect_uris else array_append(redirect_uris, ${input.url}) end`,
        })
        .where("id", "=", context.integrationClientId)
        .execute();
    } else {
      await ensureSigningSecret(trx, context.integrationClientId, context.now);
    }
    return inserted;
  });
  return viewOf(row, row.url_type === "webhook" ? await verifyClientUrl(db, http, row, context.now) : undefined);
}

export async function updateClientUrl(
  db: Kysely<Database>,
  http: OutboundHttpClient,
  context: ClientUrlContext,
  clientUrlId: string,
  input: { url: string; validationToken?: string },
): Promise<ClientUrlView> {
  const existing = await findClientUrl(db, context.integrationClientId, clientUrlId);
  await checkUrl(input.url, existing.url_type, input.validationToken, context);
  const row = await db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom("client_urls")
      .selectAll()
      .where("id", "=", clientUrlId)
      .where("integration_client_id", "=", context.integrationClientId)
      .forUpdate()
      .executeTakeFirst();
    if (!before) throw notFound();
    const updated = await trx
      .updateTable("client_urls")
      .set({ url: input.url, validation_token: sealClientUrlToken(clientUrlId, input.validationToken ?? null), updated_at: context.now })
      .where("id", "=", clientUrlId)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (before.url_type === "redirect_uri" && before.url !== input.url) {
      // The old URI leaves the OAuth list unless another redirect row still holds it; the new one joins once.
      const stillHeld = await trx
        .selectFrom("client_urls")
        .select("id")
        .where("integration_client_id", "=", context.integrationClientId)
        .where("url_type", "=", "redirect_uri")
        .where("url", "=", before.url)
        .executeTakeFirst();
      const client = await trx
        .selectFrom("integration_clients")
        .select("redirect_uris")
        .where("id", "=", context.integrationClientId)
        .forUpdate()
        .executeTakeFirstOrThrow();
      const kept = stillHeld ? client.redirect_uris : client.redirect_uris.filter((uri) => uri !== before.url);
      const redirectUris = kept.includes(input.url) ? kept : [...kept, input.url];
      await trx.updateTable("integration_clients").set({ redirect_uris: redirectUris }).where("id", "=", context.integrationClientId).execute();
    }
    return updated;
  });
  return viewOf(row, row.url_type === "webhook" ? await verifyClientUrl(db, http, row, context.now) : undefined);
}

/** The integration's registered URLs, oldest first. */
export async function listClientUrls(db: Kysely<Database>, integrationClientId: string): Promise<ClientUrlView[]> {
  const rows = await db
    .selectFrom("client_urls")
    .selectAll()
    .where("integration_client_id", "=", integrationClientId)
    .orderBy("created_at")
    .orderBy("id")
    .execute();
  return rows.map((row) => viewOf(row));
}

/** Tests a registered webhook URL now; changes nothing. A redirect URI is not tested (400). */
export async function testClientUrl(
  db: Kysely<Database>,
  http: OutboundHttpClient,
  integrationClientId: string,
  clientUrlId: string,
  now: Date,
): Promise<ClientUrlVerification> {
  const row = await findClientUrl(db, integrationClientId, clientUrlId);
  if (row.url_type !== "webhook") throw new DomainError("ClientUrlNotTestableError", "Only webhook URLs are tested; this URL is a redirect_uri");
  return verifyClientUrl(db, http, row, now);
}

async function findClientUrl(db: Kysely<Database>, integrationClientId: string, clientUrlId: string): Promise<ClientUrlRow> {
  const row = await db
    .selectFrom("client_urls")
    .selectAll()
    .where("id", "=", clientUrlId)
    .where("integration_client_id", "=", integrationClientId)
    .executeTakeFirst();
  if (!row) throw notFound();
  return row;
}

/**
 * The reachability test: `POST {"event":"ping"}`, signed like an event, with the URL's validation token.
 * `ok` for 2xx within 5 s; `non_2xx` with the status; `unreachable` for no answer, a redirect or a
 * blocked address.
 */
async function verifyClientUrl(db: Kysely<Database>, http: OutboundHttpClient, row: ClientUrlRow, now: Date): Promise<ClientUrlVerification> {
  return pingWebhookUrl(db, http, row.integration_client_id, { url: row.url, validationToken: openClientUrlToken(row.id, row.validation_token) }, now);
}

/** The reachability test of any of the integration's webhook destinations (its own URL or a tenant's). */
export async function pingWebhookUrl(
  db: Kysely<Database>,
  http: OutboundHttpClient,
  integrationClientId: string,
  target: { url: string; validationToken: string | null },
  now: Date,
): Promise<ClientUrlVerification> {
  const secret = await ensureSigningSecret(db, integrationClientId, now);
  const result = await sendSigned(http, target.url, randomUUID(), JSON.stringify({ event: "ping" }), secret, target.validationToken, now);
  if (result.ok) return { status: "ok" };
  if (result.failure === "non_2xx" && result.status !== undefined) return { status: "non_2xx", httpStatus: result.status };
  return { status: "unreachable" };
}
