// Merchant accounts and their link to an integration (made on the authorization screen, undone by an unlink).
import { sql } from "kysely";

import type { Executor } from "../../db/transactions.ts";
import type { IntegrationClient } from "../../db/tables/integration-clients.table.ts";
import type { MerchantAccount, MerchantAccountStatus } from "../../db/tables/merchants.table.ts";
import { DomainError } from "../errors.ts";
import { generatePassword, hashSecret } from "../secrets/hashing.ts";

export interface NewMerchantAccount {
  email: string;
  password: string;
  fantasyName: string;
  accountHolderName: string;
  accountHolderTaxId: string;
  testForIntegrationClientId?: string | null;
}

export async function createMerchantAccount(db: Executor, input: NewMerchantAccount): Promise<MerchantAccount> {
  return db
    .insertInto("merchant_accounts")
    .values({
      email: input.email,
      password_hash: await hashSecret(input.password),
      fantasy_name: input.fantasyName,
      account_holder_name: input.accountHolderName,
      account_holder_tax_id: input.accountHolderTaxId,
      test_for_integration_client_id: input.testForIntegrationClientId ?? null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * Links (or re-links) a merchant account to an integration. `linked_at` keeps the first authorization;
 * a re-authorization after an unlink only clears `unlinked_at`. Says whether the link was already active.
 * A new link (or one made again after an unlink) takes the terms the merchant account accepted on the
 * authorization screen: the integration's offer as its commission, and the platform's service commission
 * deal in force. An active link keeps its terms (a later commission proposal may have changed them).
 */
export async function linkMerchant(
  db: Executor,
  integrationClientId: string,
  merchantAccountId: string,
  now: Date,
): Promise<{ linkId: string; wasActive: boolean }> {
  const before = await db
    .selectFrom("merchant_links")
    .select(["id", "unlinked_at"])
    .where("integration_client_id", "=", integrationClientId)
    .where("merchant_account_id", "=", merchantAccountId)
    .executeTakeFirst();
  const terms = await db
    .selectFrom("integration_clients")
    .select(["offer_percentage", "offer_fixed_cents", "service_commission_percentage"])
    .where("id", "=", integrationClientId)
    .executeTakeFirstOrThrow();
  const accepted = {
    commission_percentage: terms.offer_percentage ?? "0",
    commission_fixed_cents: terms.offer_fixed_cents ?? 0,
    service_commission_percentage: terms.service_commission_percentage,
  };
  const relinking = before !== undefined && before.unlinked_at !== null;
  const row = await db
    .insertInto("merchant_links")
    .values({ integration_client_id: integrationClientId, merchant_account_id: merchantAccountId, linked_at: now, ...accepted })
    .onConflict((oc) => oc.columns(["integration_client_id", "merchant_account_id"]).doUpdateSet({ unlinked_at: null, ...(relinking ? accepted : {}) }))
    .returning("id")
    .executeTakeFirstOrThrow();
  return { linkId: row.id, wasActive: before !== undefined && before.unlinked_at === null };
}

/** Unlinks a merchant account (by its `integrationClientUserId`): its tokens get 403 until it authorizes again; its charges stay. */
export async function unlinkMerchant(db: Executor, integrationClientId: string, linkId: string, now: Date): Promise<void> {
  const result = await db
    .updateTable("merchant_links")
    .set({ unlinked_at: sql<Date>`coalesce(unlinked_at, ${now})` })
    .where("id", "=", linkId)
    .where("integration_client_id", "=", integrationClientId)
    .where("unlinked_at", "is", null)
    .executeTakeFirst();
  if (result.numUpdatedRows === 0n) {
    throw new DomainError("IntegrationClientUserNotFoundError", "No linked merchant account with that integrationClientUserId in this integration");
  }
}

/** The Sandbox test merchant account of an integration, created on first use. */
export async function ensureTestMerchant(db: Executor, client: IntegrationClient): Promise<MerchantAccount> {
  const existing = await db.selectFrom("merchant_accounts").selectAll().where("test_for_integration_client_id", "=", client.id).executeTakeFirst();
  if (existing) return existing;
  return createMerchantAccount(db, {
    email: `test-merchant+${client.provider_client_id}@sandbox.cobro.test`,
    password: generatePassword(),
    fantasyName: `Comercio de prueba (${client.name})`,
    accountHolderName: "Comercio de Prueba S.A.",
    accountHolderTaxId: "30712345671",
    testForIntegrationClientId: client.id,
  });
}

/**
 * A page of merchant accounts for platform admins, newest first. `search` matches part of the email,
 * legal name or trade name (any case; `%` and `_` taken literally), the first digits of the CUIT, or the
 * provider id exactly.
 */
export async function listMerchantAccounts(
  db: Executor,
  filter: { search?: string; status?: MerchantAccountStatus },
  page: { limit: number; offset: number },
): Promise<{ items: MerchantAccount[]; total: number }> {
  let base = db.selectFrom("merchant_accounts");
  if (filter.status) base = base.where("status", "=", filter.status);
  const search = filter.search?.trim();
  if (search) {
    const contains = `%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    base = base.where((eb) =>
      eb.or([
        eb(sql`lower(email)`, "like", contains),
        eb(sql`lower(account_holder_name)`, "like", contains),
        eb(sql`lower(fantasy_name)`, "like", contains),
        eb("provider_merchant_id", "=", search),
        ...(/^\d{1,11}$/.test(search) ? [eb("account_holder_tax_id", "like", `${search}%`)] : []),
      ]),
    );
  }
  const [items, count] = await Promise.all([
    base.selectAll().orderBy("created_at", "desc").orderBy("id").limit(page.limit).offset(page.offset).execute(),
    base.select((eb) => eb.fn.countAll<string>().as("total")).executeTakeFirstOrThrow(),
  ]);
  return { items, total: Number(count.total) };
}
