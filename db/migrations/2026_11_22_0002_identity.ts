import { type Kysely, sql } from "kysely";

// Accounts, integrations, the merchant ↔ integration link, OAuth state and signing keys. Secrets that a
// person chooses (passwords) or that we show once (client secrets) are argon2 hashes; random tokens that
// we look up (codes, refresh tokens, CSRF tokens) are SHA-256 hashes.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("integration_clients")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("provider_client_id", "text", (c) => c.notNull().unique())
    .addColumn("client_secret_hash", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("company_name", "text", (c) => c.notNull())
    .addColumn("contact_email", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("logo_url", "text")
    .addColumn("type", "text", (c) => c.notNull().defaultTo("api_direct").check(sql`type in ('api_direct', 'widget', 'both', 'multitenant')`))
    .addColumn("scopes", sql`text[]`, (c) => c.notNull().defaultTo(sql`'{openid,email,profile}'`))
    .addColumn("redirect_uris", sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn("logout_urls", sql`text[]`, (c) => c.notNull().defaultTo(sql`'{}'`))
    .addColumn("service_commission_percentage", sql`numeric(5,2)`)
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable("admin_users")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("password_hash", "text", (c) => c.notNull())
    .addColumn("name", "text")
    .addColumn("role", "text", (c) => c.notNull().check(sql`role in ('PLATFORM_ADMIN', 'INTEGRATION_ADMIN')`))
    .addColumn("integration_client_id", "uuid", (c) => c.references("integration_clients.id").onDelete("cascade"))
    .addColumn("invited_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("first_login_at", "timestamptz")
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint("integration_admin_has_integration", sql`role <> 'INTEGRATION_ADMIN' or integration_client_id is not null`)
    .execute();
  await sql`create unique index admin_users_email_key on admin_users (lower(email))`.execute(db);

  await db.schema
    .createTable("merchant_accounts")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("password_hash", "text", (c) => c.notNull())
    .addColumn("fantasy_name", "text", (c) => c.notNull())
    .addColumn("account_holder_name", "text", (c) => c.notNull())
    .addColumn("account_holder_tax_id", "text", (c) => c.notNull())
    .addColumn("test_for_integration_client_id", "uuid", (c) => c.references("integration_clients.id").onDelete("cascade").unique())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create unique index merchant_accounts_email_key on merchant_accounts (lower(email))`.execute(db);

  await db.schema
    .createTable("merchant_links")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("integration_client_id", "uuid", (c) => c.notNull().references("integration_clients.id").onDelete("cascade"))
    .addColumn("merchant_account_id", "uuid", (c) => c.notNull().references("merchant_accounts.id").onDelete("cascade"))
    .addColumn("linked_at", "timestamptz", (c) => c.notNull())
    .addColumn("unlinked_at", "timestamptz")
    .addUniqueConstraint("merchant_links_integration_merchant_key", ["integration_client_id", "merchant_account_id"])
    .execute();

  await db.schema
    .createTable("oauth_authorization_requests")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("integration_client_id", "uuid", (c) => c.notNull().references("integration_clients.id").onDelete("cascade"))
    .addColumn("redirect_uri", "text", (c) => c.notNull())
    .addColumn("state", "text")
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("code_challenge", "text")
    .addColumn("csrf_hash", "text", (c) => c.notNull())
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("completed_at", "timestamptz")
    .execute();

  await db.schema
    .createTable("oauth_grants")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("integration_client_id", "uuid", (c) => c.notNull().references("integration_clients.id").onDelete("cascade"))
    .addColumn("merchant_account_id", "uuid", (c) => c.notNull().references("merchant_accounts.id").onDelete("cascade"))
    .addColumn("refresh_token_hash", "text", (c) => c.notNull().unique())
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("revoked_at", "timestamptz")
    .execute();

  await db.schema
    .createTable("oauth_codes")
    .addColumn("code_hash", "text", (c) => c.primaryKey())
    .addColumn("integration_client_id", "uuid", (c) => c.notNull().references("integration_clients.id").onDelete("cascade"))
    .addColumn("merchant_account_id", "uuid", (c) => c.notNull().references("merchant_accounts.id").onDelete("cascade"))
    .addColumn("redirect_uri", "text", (c) => c.notNull())
    .addColumn("scope", "text", (c) => c.notNull())
    .addColumn("code_challenge", "text")
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("consumed_at", "timestamptz")
    .addColumn("grant_id", "uuid", (c) => c.references("oauth_grants.id").onDelete("set null"))
    .execute();

  await db.schema
    .createTable("admin_sessions")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("admin_user_id", "uuid", (c) => c.notNull().references("admin_users.id").onDelete("cascade"))
    .addColumn("refresh_token_hash", "text", (c) => c.notNull().unique())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("revoked_at", "timestamptz")
    .execute();

  await db.schema
    .createTable("signing_keys")
    .addColumn("kid", "text", (c) => c.primaryKey())
    .addColumn("algorithm", "text", (c) => c.notNull())
    .addColumn("private_jwk", "jsonb", (c) => c.notNull())
    .addColumn("public_jwk", "jsonb", (c) => c.notNull())
    .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn("retired_at", "timestamptz")
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    "signing_keys",
    "admin_sessions",
    "oauth_codes",
    "oauth_grants",
    "oauth_authorization_requests",
    "merchant_links",
    "merchant_accounts",
    "admin_users",
    "integration_clients",
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
