// Merchant accounts as an integration sees them: the accounts linked to it (its users, in the Admin API),
// and the account behind a merchant token (GET /me, the OAuth client-info).
import type { Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";

/**
 * A page of the integration's active links, newest first, with each merchant's tenant (when in one) and
 * its commission proposal still open at `now` (a pending one past its expiry has lapsed).
 */
export async function listLinkedMerchants(db: Kysely<Database>, integrationClientId: string, page: { limit: number; offset: number }, now: Date) {
  const base = db
    .selectFrom("merchant_links as l")
    .innerJoin("merchant_accounts as m", "m.id", "l.merchant_account_id")
    .leftJoin("integration_tenants as t", (join) => join.onRef("t.id", "=", "l.tenant_id").on("t.deleted_at", "is", null))
    .where("l.integration_client_id", "=", integrationClientId)
    .where("l.unlinked_at", "is", null);
  const [rows, count] = await Promise.all([
    base
      .leftJoin("commission_proposals as p", (join) =>
        join.onRef("p.merchant_link_id", "=", "l.id").on("p.status", "=", "pending").on("p.expires_at", ">", now),
      )
      .select([
        "l.id as linkId",
        "m.id as merchantAccountId",
        "m.email",
        "m.fantasy_name",
        "l.linked_at",
        "l.commission_percentage",
        "t.key as tenantKey",
        "t.name as tenantName",
      ])
      .select(["p.id as proposalId", "p.percentage as proposedPercentage", "p.expires_at as proposalExpiresAt"])
      .orderBy("l.linked_at", "desc")
      .orderBy("l.id")
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as("total")).executeTakeFirstOrThrow(),
  ]);
  return { items: rows, total: Number(count.total) };
}

/** The token's merchant account through its link: who it is, when it linked, its tenant (when in one). */
export async function linkedMerchant(db: Kysely<Database>, merchantAccountId: string, linkId: string) {
  return db
    .selectFrom("merchant_accounts as m")
    .innerJoin("merchant_links as l", "l.merchant_account_id", "m.id")
    .leftJoin("integration_tenants as tn", (join) => join.onRef("tn.id", "=", "l.tenant_id").on("tn.deleted_at", "is", null))
    .select(["m.id", "m.email", "m.fantasy_name", "m.account_holder_name", "m.account_holder_tax_id", "l.linked_at", "tn.key as tenant_key"])
    .where("m.id", "=", merchantAccountId)
    .where("l.id", "=", linkId)
    .executeTakeFirstOrThrow();
}

/** The name and email the OAuth client-info answers for a merchant account. */
export async function merchantNameAndEmail(db: Kysely<Database>, merchantAccountId: string): Promise<{ name: string; email: string }> {
  const merchant = await db.selectFrom("merchant_accounts").select(["fantasy_name", "email"]).where("id", "=", merchantAccountId).executeTakeFirstOrThrow();
  return { name: merchant.fantasy_name, email: merchant.email };
}
