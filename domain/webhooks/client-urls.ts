// The integration's registered URLs: its webhook URL (rule 3 of the destinations) and its OAuth redirect
// URIs. A webhook URL passes the SSRF guard at registration (a name that does not resolve yet is
// accepted: it is judged again at every delivery) and is then tested for reachability, without ever
// blocking the registration: a URL that passes is verified and takes the events; one that does not stays
// pending (the events stay with the verified URL before it) until a test passes. Redirect URI rows are mirrored in integration_clients.redirect_uris, which
// the OAuth flow reads, in the same transaction. Which webhook URL receives the events is never stored:
// it is rule 3 of the destinations, read with the rows, so a delete and a create at once always leave it
// well defined (the most recent remaining one).
import { randomUUID } from "node:crypto";
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Executor } from "../../db/transactions.ts";
import type { ClientUrlRow, ClientUrlType } from "../../db/tables/webhooks.table.ts";
import { DomainError, ValidationError } from "../errors.ts";
import { browserUrlProblem } from "../browser-urls.ts";
import { checkDestination, type DestinationPolicy } from "../outbound/destination-guard.ts";
import { sendSigned } from "./delivery.ts";
import { integrationWebhookUrlQuery } from "./destinations.ts";
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
  /** Whether events go to this URL (rule 3 of the destinations): the integration's webhook URL. */
  receivesEvents: boolean;
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

function viewOf(row: ClientUrlRow, receivesEvents: boolean, verification?: ClientUrlVerification): ClientUrlView {
  return {
    clientUrlId: row.id,
    data: { hasValidationToken: row.validation_token !== null, urlType: row.url_type, url: row.url },
    receivesEvents,
    ...(verification ? { verification } : {}),
  };
}

/** Whether `clientUrlId` is the integration's webhook URL now, as the transaction sees it. */
async function receivesEvents(trx: Executor, integrationClientId: string, clientUrlId: string): Promise<boolean> {
  return (await integrationWebhookUrlQuery(trx, integrationClientId).executeTakeFirst())?.id === clientUrlId;
}

/**
 * Takes the integration's row lock that orders changes and deletes of its client URLs (and the redirect
 * URI list they mirror): a URL's removal from the list then sees every row committed before it. `no key`:
 * inserts that only reference the integration (charges, events) are not held up.
 */
async function lockIntegrationUrls(trx: Executor, integrationClientId: string): Promise<string[]> {
  const client = await trx
    .selectFrom("integration_clients")
    .select("redirect_uris")
    .where("id", "=", integrationClientId)
    .forNoKeyUpdate()
    .executeTakeFirstOrThrow();
  return client.redirect_uris;
}

/** `url` joins the URIs the OAuth flow accepts, once. */
async function acceptRedirectUri(trx: Executor, integrationClientId: string, url: string): Promise<void> {
  await trx
    .updateTable("integration_clients")
    .set({ redirect_uris: sql<string[]>`case when ${url} = any(redirect_uris) then redirect_uris else array_append(redirect_uris, ${url}) end` })
    .where("id", "=", integrationClientId)
    .execute();
}

/** `url` leaves the URIs the OAuth flow accepts, unless another redirect row still holds it. Under `lockIntegrationUrls`. */
async function releaseRedirectUri(trx: Executor, integrationClientId: string, url: string, redirectUris: string[]): Promise<void> {
  const stillHeld = await trx
    .selectFrom("client_urls")
    .select("id")
    .where("integration_client_id", "=", integrationClientId)
    .where("url_type", "=", "redirect_uri")
    .where("url", "=", url)
    .executeTakeFirst();
  if (stillHeld || !redirectUris.includes(url)) return;
  await trx
    .updateTable("integration_clients")
    .set({ redirect_uris: redirectUris.filter((uri) => uri !== url) })
    .where("id", "=", integrationClientId)
    .execute();
}

export async function createClientUrl(
  db: Kysely<Database>,
  http: OutboundHttpClient,
  context: ClientUrlContext,
  input: { url: string; urlType: ClientUrlType; validationToken?: string },
): Promise<ClientUrlView> {
  await checkUrl(input.url, input.urlType, input.validationToken, context);
  const written = await db.transaction().execute(async (trx) => {
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
    if (input.urlType === "redirect_uri") await acceptRedirectUri(trx, context.integrationClientId, input.url);
    else await ensureSigningSecret(trx, context.integrationClientId, context.now);
    return inserted;
  });
  return verifiedView(db, http, written, context.now);
}

/** The view of a URL just written: a webhook URL is tested first, and whether it receives the events follows from the test. */
async function verifiedView(db: Kysely<Database>, http: OutboundHttpClient, row: ClientUrlRow, now: Date): Promise<ClientUrlView> {
  if (row.url_type === "redirect_uri") return viewOf(row, false);
  const verification = await verifyClientUrl(db, http, row, now);
  return viewOf(row, await receivesEvents(db, row.integration_client_id, row.id), verification);
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
  const written = await db.transaction().execute(async (trx) => {
    const redirectUris = await lockIntegrationUrls(trx, context.integrationClientId);
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
      .set({
        url: input.url,
        validation_token: sealClientUrlToken(clientUrlId, input.validationToken ?? null),
        updated_at: context.now,
        verified_at: null, // the new value is pending until its test passes
      })
      .where("id", "=", clientUrlId)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (before.url_type === "redirect_uri" && before.url !== input.url) {
      await releaseRedirectUri(trx, context.integrationClientId, before.url, redirectUris);
      await acceptRedirectUri(trx, context.integrationClientId, input.url);
    }
    return updated;
  });
  return verifiedView(db, http, written, context.now);
}

/**
 * Deletes a registered URL (a hard delete: nothing refers to the row). The events then go to the most
 * recent remaining webhook URL (rule 3 reads the rows at each attempt); a deleted redirect URI leaves
 * the OAuth list unless another redirect row holds the same URL.
 */
export async function deleteClientUrl(db: Kysely<Database>, integrationClientId: string, clientUrlId: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const redirectUris = await lockIntegrationUrls(trx, integrationClientId);
    const deleted = await trx
      .deleteFrom("client_urls")
      .where("id", "=", clientUrlId)
      .where("integration_client_id", "=", integrationClientId)
      .returning(["url_type", "url"])
      .executeTakeFirst();
    if (!deleted) throw notFound();
    if (deleted.url_type === "redirect_uri") await releaseRedirectUri(trx, integrationClientId, deleted.url, redirectUris);
  });
}

/** The integration's registered URLs, oldest first, each saying whether it receives the events (one statement: one snapshot). */
export async function listClientUrls(db: Kysely<Database>, integrationClientId: string): Promise<ClientUrlView[]> {
  const active = integrationWebhookUrlQuery(db, integrationClientId).clearSelect().select("id");
  const rows = await db
    .selectFrom("client_urls as u")
    .selectAll("u")
    .select(sql<boolean>`coalesce(u.id = (${active}), false)`.as("receives_events"))
    .where("u.integration_client_id", "=", integrationClientId)
    .orderBy("u.created_at")
    .orderBy("u.id")
    .execute();
  return rows.map(({ receives_events, ...row }) => viewOf(row, receives_events));
}

/**
 * Tests a registered webhook URL now. A pending URL that passes becomes verified (and takes the events);
 * otherwise nothing changes. A redirect URI is not tested (400).
 */
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
 * blocked address. A pending URL that passes is verified now, unless it changed meanwhile (then that
 * change's own test decides).
 */
async function verifyClientUrl(db: Kysely<Database>, http: OutboundHttpClient, row: ClientUrlRow, now: Date): Promise<ClientUrlVerification> {
  const verification = await pingWebhookUrl(
    db,
    http,
    row.integration_client_id,
    { url: row.url, validationToken: openClientUrlToken(row.id, row.validation_token) },
    now,
  );
  if (verification.status === "ok") {
    // "Most recently verified" must name one URL even when two were verified at one instant of the clock
    // (a Sandbox clock standing still, or one millisecond): this one is later than any other of the integration's.
    await db
      .updateTable("client_urls")
      .set({
        verified_at: sql<Date>`greatest(${now}::timestamptz, (select max(other.verified_at) + interval '1 microsecond' from client_urls other
          where other.integration_client_id = ${row.integration_client_id} and other.url_type = 'webhook'))`,
      })
      .where("id", "=", row.id)
      .where("verified_at", "is", null)
      .where("updated_at", "=", row.updated_at)
      .where("url", "=", row.url)
      .execute();
  }
  return verification;
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
