import { type Kysely, sql } from "kysely";

// Webhooks: the integration's signing secret, its registered URLs (webhook and OAuth redirect URIs), and
// the delivery of each outbox event (its state and every attempt).
export async function up(db: Kysely<any>): Promise<void> {
  // One signing secret per integration (one deployment is one environment: in Production it is the
  // production secret). Kept in clear: it keys the HMAC and the Admin API returns it in clear. A table of
  // its own so that no `select *` of integration_clients carries it along.
  await db.schema
    .createTable("webhook_signing_secrets")
    .addColumn("integration_client_id", "uuid", (c) => c.primaryKey().references("integration_clients.id").onDelete("cascade"))
    .addColumn("secret", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("rotated_at", "timestamptz")
    .execute();

  // The integration's URLs (the Admin API's client URLs). A `webhook` URL receives the events of merchant
  // accounts in no tenant; `redirect_uri` rows mirror integration_clients.redirect_uris (which the OAuth
  // flow reads), written in the same transaction.
  await db.schema
    .createTable("client_urls")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("integration_client_id", "uuid", (c) => c.notNull().references("integration_clients.id").onDelete("cascade"))
    .addColumn("url_type", "text", (c) => c.notNull().check(sql`url_type in ('webhook', 'redirect_uri')`))
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("validation_token", "text")
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .addCheckConstraint("client_urls_token_only_on_webhooks", sql`url_type = 'webhook' or validation_token is null`)
    .execute();
  await db.schema.createIndex("client_urls_integration").on("client_urls").columns(["integration_client_id", "url_type", "updated_at"]).execute();

  // Where the delivery of an event stands. Created by the first delivery job (an event without a row is
  // waiting for it). `cycle_start`: the attempts made before the current cycle (a resend starts a new one,
  // with the whole retry schedule again).
  await db.schema
    .createTable("event_deliveries")
    .addColumn("event_id", "uuid", (c) => c.primaryKey().references("events.id").onDelete("cascade"))
    .addColumn("status", "text", (c) => c.notNull().check(sql`status in ('pending', 'delivered', 'failed', 'not_sent')`))
    .addColumn("not_sent_reason", "text", (c) => c.check(sql`not_sent_reason in ('not_subscribed', 'no_target')`))
    .addColumn("target_url", "text")
    .addColumn("attempts_made", "integer", (c) => c.notNull().defaultTo(0).check(sql`attempts_made >= 0`))
    .addColumn("cycle_start", "integer", (c) => c.notNull().defaultTo(0).check(sql`cycle_start >= 0`))
    .addColumn("next_attempt_at", "timestamptz")
    .addColumn("delivered_at", "timestamptz")
    .addColumn("updated_at", "timestamptz", (c) => c.notNull())
    .addCheckConstraint("event_deliveries_reason_when_not_sent", sql`(status = 'not_sent') = (not_sent_reason is not null)`)
    .execute();

  // Every attempt, one row per (event, attempt number): the row is written (claimed) before the request
  // goes out, so two workers can never make the same attempt. The receiver's body is never stored.
  // `finished_at` null: in flight, or interrupted (the worker died); `job_id` tells which.
  await db.schema
    .createTable("delivery_attempts")
    .addColumn("event_id", "uuid", (c) => c.notNull().references("events.id").onDelete("cascade"))
    .addColumn("attempt", "integer", (c) => c.notNull().check(sql`attempt > 0`))
    .addColumn("attempted_at", "timestamptz", (c) => c.notNull())
    .addColumn("target_url", "text", (c) => c.notNull())
    .addColumn("job_id", "text")
    .addColumn("response_status", "integer")
    .addColumn("duration_ms", "integer")
    .addColumn("error", "text", (c) => c.check(sql`error in ('non_2xx', 'timeout', 'connection_error', 'redirect', 'blocked_address', 'interrupted')`))
    .addColumn("finished_at", "timestamptz")
    .addPrimaryKeyConstraint("delivery_attempts_pkey", ["event_id", "attempt"])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("delivery_attempts").execute();
  await db.schema.dropTable("event_deliveries").execute();
  await db.schema.dropTable("client_urls").execute();
  await db.schema.dropTable("webhook_signing_secrets").execute();
}
