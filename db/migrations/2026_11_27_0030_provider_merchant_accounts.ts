import { type Kysely, sql } from "kysely";
import type { ReleaseSafety } from "./index.ts";

// Merchant accounts kept by the payment provider's systems: keyed by the provider's own id (unique, so a
// retried call never makes a second account), with a status the provider changes, and a password the
// merchant chooses through an emailed link (`password_set` false until then). The admins' reset links
// become password links of either kind of account: one row per account, the newest link, its token hashed.
// Release safety (ReleaseSafety, db/migrations/index.ts): renames admin_password_resets to password_links: the previous release still reads the old name.
export const releaseSafety: ReleaseSafety = "breaking";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable("merchant_accounts")
    .addColumn("provider_merchant_id", "text", (c) => c.unique())
    .addColumn("status", "text", (c) => c.notNull().defaultTo("active").check(sql`status in ('active', 'suspended', 'closed')`))
    .addColumn("password_set", "boolean", (c) => c.notNull().defaultTo(true))
    .addColumn("invitation_sent_at", "timestamptz")
    .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema.alterTable("admin_password_resets").renameTo("password_links").execute();
  await sql`alter table password_links alter column admin_user_id drop not null`.execute(db);
  await db.schema
    .alterTable("password_links")
    .addColumn("merchant_account_id", "uuid", (c) => c.unique().references("merchant_accounts.id").onDelete("cascade"))
    .execute();
  await sql`alter table password_links add constraint password_links_one_account check (num_nonnulls(admin_user_id, merchant_account_id) = 1)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.deleteFrom("password_links").where("admin_user_id", "is", null).execute();
  await sql`alter table password_links drop constraint password_links_one_account`.execute(db);
  await db.schema.alterTable("password_links").dropColumn("merchant_account_id").execute();
  await sql`alter table password_links alter column admin_user_id set not null`.execute(db);
  await db.schema.alterTable("password_links").renameTo("admin_password_resets").execute();
  await db.schema
    .alterTable("merchant_accounts")
    .dropColumn("provider_merchant_id")
    .dropColumn("status")
    .dropColumn("password_set")
    .dropColumn("invitation_sent_at")
    .dropColumn("updated_at")
    .execute();
}
