// Where an event goes: one URL per event, the first rule that applies:
//   1. the charge was created with `webhookUrl`: that URL, without `validation-token`, for
//      `payment_request.*` events only (`payment.unmatched` never uses it);
//   2. the merchant account is in an active tenant of the integration: the tenant's URL, with the
//      tenant's token;
//   3. the integration's webhook URL (a client URL of type `webhook`), with its token. The contract asks
//      integrations to keep a single one; if several are registered, the most recently verified one (its
//      reachability test answered 2xx) is the integration's URL, so a new URL that does not answer stays
//      pending instead of taking the events from a working receiver; with none verified, the most recently
//      registered or changed one (deleting it hands the events to the next; the client URL list shows which
//      one as `receivesEvents`);
//   4. none: the event is not sent and not retried.
// Resolved at each attempt, so that a URL fixed after a failure receives the retries.
import { sql, type RawBuilder } from "kysely";

import type { Executor } from "../../db/transactions.ts";
import type { OutboxEvent } from "../../db/tables/events.table.ts";
import { openClientUrlToken, openTenantToken } from "./validation-tokens.ts";
import type { Sealed } from "../../db/tables/sealed.ts";

export interface Destination {
  url: string;
  /** The `validation-token` header, when one applies. */
  validationToken: string | null;
  rule: "charge" | "tenant" | "integration";
}

type RoutedEvent = Pick<OutboxEvent, "type" | "integration_client_id" | "merchant_account_id" | "charge_id">;

/** The three rules' candidates of one event, as columns (see `destinationCandidates`). */
export interface DestinationCandidates {
  charge_url: string | null;
  tenant_id: string | null;
  tenant_url: string | null;
  tenant_token: Sealed | null;
  own_id: string | null;
  own_url: string | null;
  own_token: Sealed | null;
}

/**
 * The three rules' candidates as a one-row subquery over an event's columns, given as SQL (values or
 * references to a row of `events`): a delivery joins it laterally to the event it reads.
 */
export function destinationCandidates(
  db: Executor,
  event: { type: RawBuilder<unknown>; chargeId: RawBuilder<unknown>; integrationClientId: RawBuilder<string>; merchantAccountId: RawBuilder<unknown> },
) {
  return sql<DestinationCandidates>`
    select case when starts_with(${event.type}, 'payment_request.') then (select webhook_url from charges where id = ${event.chargeId}) end as charge_url,
           tenant.id as tenant_id, tenant.webhook_url as tenant_url, tenant.validation_token as tenant_token,
           own.id as own_id, own.url as own_url, own.validation_token as own_token
      from (select 1) as one
      left join lateral (
        select t.id, t.webhook_url, t.validation_token
          from merchant_links l join integration_tenants t on t.id = l.tenant_id
         where l.integration_client_id = ${event.integrationClientId} and l.merchant_account_id = ${event.merchantAccountId}
           and t.deleted_at is null
         limit 1
      ) tenant on true
      left join lateral (${integrationWebhookUrlQuery(db, event.integrationClientId)}) own on true`;
}

/** The first rule that applies, from its candidates. */
export function pickDestination(row: DestinationCandidates): Destination | undefined {
  if (row.charge_url) return { url: row.charge_url, validationToken: null, rule: "charge" };
  if (row.tenant_url !== null) return { url: row.tenant_url, validationToken: openTenantToken(row.tenant_id!, row.tenant_token), rule: "tenant" };
  return row.own_url !== null ? { url: row.own_url, validationToken: openClientUrlToken(row.own_id!, row.own_token), rule: "integration" } : undefined;
}

export async function resolveDestination(db: Executor, event: RoutedEvent): Promise<Destination | undefined> {
  const { rows } = await destinationCandidates(db, {
    type: sql`${event.type}::text`,
    chargeId: sql`${event.charge_id}::uuid`,
    integrationClientId: sql<string>`${event.integration_client_id}::uuid`,
    merchantAccountId: sql`${event.merchant_account_id}::uuid`,
  }).execute(db);
  return pickDestination(rows[0]!);
}

/** Rule 3's query: the most recently verified webhook URL of the integration, else the most recently registered or changed one. */
export function integrationWebhookUrlQuery(db: Executor, integrationClientId: string | RawBuilder<string>) {
  return db
    .selectFrom("client_urls")
    .select(["id", "url", "validation_token"])
    .where("integration_client_id", "=", integrationClientId)
    .where("url_type", "=", "webhook")
    .orderBy(sql`verified_at is null`)
    .orderBy("verified_at", "desc")
    .orderBy("updated_at", "desc")
    .orderBy("id", "desc")
    .limit(1);
}

/** The integration's own webhook URL (rule 3), with its validation token opened. */
export async function integrationWebhookUrl(
  db: Executor,
  integrationClientId: string,
): Promise<{ id: string; url: string; validationToken: string | null } | undefined> {
  const row = await integrationWebhookUrlQuery(db, integrationClientId).executeTakeFirst();
  return row && { id: row.id, url: row.url, validationToken: openClientUrlToken(row.id, row.validation_token) };
}

export type TestTarget =
  | { kind: "resolved"; destination: Destination; tenantKey?: string }
  | { kind: "no_target"; tenantKey?: string }
  | { kind: "ambiguous_target"; tenantKeys: string[] };

/**
 * The destination of a test `payment.unmatched` (no charge is involved, so rule 1 never applies). With
 * `tenantKey`: that active tenant's URL and token (none: no target). Without it: the integration's
 * webhook URL (where the events of a merchant account in no tenant go); without one, the only tenant's
 * URL; several tenants and no integration URL: ambiguous (say which with `tenantKey`); nothing: no target.
 */
export async function resolveTestTarget(db: Executor, integrationClientId: string, tenantKey: string | undefined): Promise<TestTarget> {
  const tenants = await db
    .selectFrom("integration_tenants")
    .select(["id", "key", "webhook_url", "validation_token"])
    .where("integration_client_id", "=", integrationClientId)
    .where("deleted_at", "is", null)
    .orderBy("key")
    .execute();
  const tenantTarget = (tenant: (typeof tenants)[number]): TestTarget => ({
    kind: "resolved",
    destination: { url: tenant.webhook_url, validationToken: openTenantToken(tenant.id, tenant.validation_token), rule: "tenant" },
    tenantKey: tenant.key,
  });
  if (tenantKey !== undefined) {
    const tenant = tenants.find((candidate) => candidate.key === tenantKey);
    return tenant ? tenantTarget(tenant) : { kind: "no_target", tenantKey };
  }
  const own = await integrationWebhookUrl(db, integrationClientId);
  if (own) return { kind: "resolved", destination: { url: own.url, validationToken: own.validationToken, rule: "integration" } };
  if (tenants.length === 1) return tenantTarget(tenants[0]!);
  if (tenants.length > 1) return { kind: "ambiguous_target", tenantKeys: tenants.map((tenant) => tenant.key) };
  return { kind: "no_target" };
}
