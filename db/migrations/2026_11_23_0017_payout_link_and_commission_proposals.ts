import { type Kysely, sql } from "kysely";

// The payout link (the merchant account that receives an integration's commissions, linked by an emailed
// invitation) and commission proposals (a new percentage offered to a linked merchant account, which it
// accepts or rejects through an emailed link). Tokens of the links are kept as their SHA-256 only.
export async function up(db: Kysely<any>): Promise<void> {
  // One row per integration: the current invitation, and once accepted, the recipient. A new invitation
  // (or a resend) rewrites the row's token, so only the newest emailed link works.
  await db.schema
    .createTable("payout_links")
    .addColumn("integration_client_id", "uuid", (c) => c.primaryKey().references("integration_clients.id").onDelete("cascade"))
    .addColumn("invitation_id", "uuid", (c) => c.notNull().unique())
    .addColumn("invited_email", "text", (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.unique())
    .addColumn("invited_at", "timestamptz", (c) => c.notNull())
    .addColumn("link_expires_at", "timestamptz", (c) => c.notNull())
    .addColumn("accepted_at", "timestamptz")
    .addColumn("recipient_merchant_account_id", "uuid", (c) => c.references("merchant_accounts.id"))
    .addCheckConstraint("payout_links_accepted_has_recipient", sql`(accepted_at is null) = (recipient_merchant_account_id is null)`)
    .execute();

  await db.schema
    .createTable("commission_proposals")
    .addColumn("id", "uuid", (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn("merchant_link_id", "uuid", (c) => c.notNull().references("merchant_links.id").onDelete("cascade"))
    .addColumn("percentage", sql`numeric(5,2)`, (c) => c.notNull())
    .addColumn("token_hash", "text", (c) => c.notNull().unique())
    .addColumn("created_at", "timestamptz", (c) => c.notNull())
    .addColumn("expires_at", "timestamptz", (c) => c.notNull())
    // pending until answered or ended; a pending row past expires_at counts as lapsed (read time decides).
    .addColumn("status", "text", (c) => c.notNull().defaultTo("pending"))
    .addColumn("ended_at", "timestamptz")
    .addCheckConstraint("commission_proposals_status", sql`status in ('pending', 'accepted', 'rejected', 'superseded', 'withdrawn', 'expired')`)
    .addCheckConstraint("commission_proposals_percentage", sql`percentage >= 0 and percentage <= 100`)
    .execute();
  // At most one open proposal per link: the database guards it, not a check before the insert.
  await sql`create unique index commission_proposals_one_pending on commission_proposals (merchant_link_id) where status = 'pending'`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("commission_proposals").execute();
  await db.schema.dropTable("payout_links").execute();
}
