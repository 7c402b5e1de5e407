// The automatic check of a go-live request: the criteria an integration must meet to be approved without
// a platform admin's review. Each criterion not met is a reason, with what to do about it in Spanish.
// The webhook criterion is judged by pinging the URLs now (as the URL test does), not by an older result.
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { GoLiveReasonRow } from "../../db/tables/going-live.table.ts";
import { pingWebhookUrl } from "../webhooks/client-urls.ts";
import { integrationWebhookUrl } from "../webhooks/destinations.ts";
import { openTenantToken } from "../webhooks/validation-tokens.ts";
import type { OutboundHttpClient } from "../outbound/http-client.ts";
import { getSubscription } from "../webhooks/subscriptions.ts";

export type GoLiveReasonCode =
  | "no_webhook_url"
  | "webhook_unreachable"
  | "no_enabled_events"
  | "no_redirect_uri"
  | "no_linked_merchant"
  | "no_paid_charge"
  | "incomplete_profile";

export interface GoLiveReason extends GoLiveReasonRow {
  code: GoLiveReasonCode;
}

/** Production accepts only https redirect URIs: those are the ones that carry over. */
export function httpsOnly(urls: string[]): string[] {
  return urls.filter((url) => url.startsWith("https://"));
}

export async function runAutomaticCheck(db: Kysely<Database>, http: OutboundHttpClient, integrationClientId: string, now: Date): Promise<GoLiveReason[]> {
  const client = await db
    .selectFrom("integration_clients as c")
    .select(["c.company_name", "c.contact_email", "c.logo_url", "c.redirect_uris"])
    .select(sql<boolean>`exists (select 1 from merchant_links l where l.integration_client_id = c.id and l.unlinked_at is null)`.as("has_linked_merchant"))
    .select(sql<boolean>`exists (select 1 from charges ch where ch.integration_client_id = c.id and ch.paid_cents > 0)`.as("has_paid_charge"))
    .where("c.id", "=", integrationClientId)
    .executeTakeFirstOrThrow();
  const reasons: GoLiveReason[] = [];

  const destinations = await webhookDestinations(db, integrationClientId);
  if (destinations.length === 0) {
    reasons.push({
      code: "no_webhook_url",
      message: "No hay ninguna URL de webhook configurada. Registrala con POST /my-integration/urls (urlType webhook) o en una sucursal.",
    });
  } else {
    const pings = await Promise.all(destinations.map((target) => pingWebhookUrl(db, http, integrationClientId, target, now)));
    const failing = destinations.filter((_, index) => pings[index]!.status !== "ok").map((target) => target.url);
    if (failing.length > 0) {
      reasons.push({
        code: "webhook_unreachable",
        message: `La URL de webhook no respondió 2xx en la prueba (${failing.join(", ")}). Corregila y volvé a probarla.`,
      });
    }
  }
  if ((await getSubscription(db, integrationClientId)).length === 0) {
    reasons.push({ code: "no_enabled_events", message: "No estás suscripto a ningún evento. Elegilos con PUT /my-integration/webhook-subscriptions." });
  }
  if (httpsOnly(client.redirect_uris).length === 0) {
    reasons.push({
      code: "no_redirect_uri",
      message: "No hay ninguna URI de redirección https registrada (producción solo acepta https). Registrala con POST /my-integration/urls.",
    });
  }
  if (!client.has_linked_merchant) {
    reasons.push({
      code: "no_linked_merchant",
      message: "Ninguna cuenta de comercio está vinculada. Vinculá una (la cuenta de prueba sirve: POST /my-integration/test-tokens).",
    });
  }
  if (!client.has_paid_charge) {
    reasons.push({ code: "no_paid_charge", message: "Ningún cobro recibió un pago. Simulá uno con POST /my-integration/simulate-payment." });
  }
  const missing = [client.company_name ? null : "razón social", client.contact_email ? null : "email de contacto", client.logo_url ? null : "logo"].filter(
    (item) => item !== null,
  );
  if (missing.length > 0) {
    reasons.push({
      code: "incomplete_profile",
      message: `Faltan datos de la empresa: ${missing.join(", ")}. Completalos con PATCH /my-integration (y PUT /my-integration/logo).`,
    });
  }
  return reasons;
}

/** Where the integration's events can go: its own webhook URL and its active tenants' URLs. */
async function webhookDestinations(db: Kysely<Database>, integrationClientId: string): Promise<Array<{ url: string; validationToken: string | null }>> {
  const own = await integrationWebhookUrl(db, integrationClientId);
  const tenants = await db
    .selectFrom("integration_tenants")
    .select(["id", "webhook_url", "validation_token"])
    .where("integration_client_id", "=", integrationClientId)
    .where("deleted_at", "is", null)
    .orderBy("key")
    .execute();
  return [
    ...(own ? [{ url: own.url, validationToken: own.validationToken }] : []),
    ...tenants.map((tenant) => ({ url: tenant.webhook_url, validationToken: openTenantToken(tenant.id, tenant.validation_token) })),
  ];
}
