import { sql, type Kysely } from "kysely";

// How each signing secret keys the Standard Webhooks `webhook-signature` (domain/webhooks/signature.ts).
// Secrets issued until now are `whsec_` + base64url keyed with their UTF-8 bytes: they stay `legacy` and
// keep signing that way until rotated. No default once filled: every secret written from now on says
// its scheme, so none becomes legacy by omission.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("webhook_signing_secrets")
    .addColumn("scheme", "text", (c) => c.notNull().defaultTo("legacy").check(sql`scheme in ('standard', 'legacy')`))
    .execute();
  await db.schema
    .alterTable("webhook_signing_secrets")
    .alterColumn("scheme", (c) => c.dropDefault())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable("webhook_signing_secrets").dropColumn("scheme").execute();
}
