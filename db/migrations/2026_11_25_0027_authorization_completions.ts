import type { Kysely } from "kysely";

// The authorization screen stores nothing before the merchant signs in: the request travels sealed in the
// form (domain/sign-in/oauth.ts). `oauth_authorization_requests` keeps only completed sign-ins, one row each
// (which makes a request single-use), until the request's expiry; this index deletes the expired ones.
export async function up(db: Kysely<any>): Promise<void> {
  await db.deleteFrom("oauth_authorization_requests").where("completed_at", "is", null).execute();
  await db.schema.createIndex("oauth_authorization_requests_expires_at").on("oauth_authorization_requests").column("expires_at").execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex("oauth_authorization_requests_expires_at").execute();
}
