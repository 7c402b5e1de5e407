// The CVU pool of a merchant account: up to 100 CVUs shared by all its integrations, used by open charges.
// A cvu-mode charge holds a CVU alone; cuil-mode charges share one as long as no payer appears twice.
// Concurrency is settled by PostgreSQL: row locks pick CVUs, an advisory lock per merchant guards the
// pool's growth, and the unique (cvu, payer) key makes two simultaneous creates for one payer collide.
// Joining a CVU that is already shared takes only a share lock and writes no row of cvu_accounts, so
// creates for different payers on one CVU do not wait for each other; the row's counter, holding and
// last charge are settled from the holds whenever the row is written (the cvu_accounts_settle trigger),
// and a release, which writes it, waits for the joins still in progress.
import { sql, type RawBuilder, type Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Executor } from "../../db/transactions.ts";
import type { CvuAccount } from "../../db/tables/cvu-pool.table.ts";
import { makeCvu } from "../cvu.ts";
import { payerKeyOf } from "../tax-id.ts";
import { DomainError } from "../errors.ts";
import { isUniqueViolation } from "../../db/errors.ts";

export const MAX_POOL_SIZE = 100;
/** The hold of a cvu-mode charge: the whole CVU. */
export const WHOLE_CVU = "*";
/** The provider code of the CVUs this service issues (the virtual-account provider's 4 digits). */
const PROVIDER_CODE = "0253";

type Trx = Transaction<Database>;

const insufficient = () =>
  new DomainError(
    "InsufficientActiveAccountsError",
    `No CVU of the merchant's pool (up to ${MAX_POOL_SIZE}) can hold this charge now; wait for open charges to close`,
  );
export const alreadyAssociated = () =>
  new DomainError("CustomerAlreadyAssociatedError", "Another charge for the same payer was being created on the same CVU at the same time; retry");

/** A new CVU for the merchant, if its pool has room. Pool growth is serialised per merchant. */
async function growPool(trx: Trx, merchantAccountId: string, holding: "exclusive" | "shared"): Promise<CvuAccount | undefined> {
  await sql`select pg_advisory_xact_lock(hashtext(${`cvu-pool:${merchantAccountId}`}))`.execute(trx);
  const { count } = await trx
    .selectFrom("cvu_accounts")
    .select((eb) => eb.fn.countAll<number>().as("count"))
    .where("merchant_account_id", "=", merchantAccountId)
    .executeTakeFirstOrThrow();
  if (Number(count) >= MAX_POOL_SIZE) return undefined;
  const { account } = (await sql<{ account: string }>`select nextval('cvu_account_number_seq')::text as account`.execute(trx)).rows[0]!;
  return trx
    .insertInto("cvu_accounts")
    .values({ merchant_account_id: merchantAccountId, cvu: makeCvu(PROVIDER_CODE, account), holding, open_charges: 0 })
    .returningAll()
    .executeTakeFirstOrThrow();
}

async function insertHolds(trx: Trx, accountId: string, holds: Array<{ chargeId: string; payerKey: string }>): Promise<void> {
  try {
    // Arrays, not one row of parameters per hold: one statement text whatever the count, prepared once.
    await trx
      .insertInto("cvu_holds")
      .columns(["charge_id", "cvu_account_id", "payer_key"])
      .expression(
        sql`select h.charge_id, ${accountId}::uuid, h.payer_key
              from unnest(${holds.map((hold) => hold.chargeId)}::uuid[], ${holds.map((hold) => hold.payerKey)}::text[]) as h(charge_id, payer_key)`,
      )
      .execute();
  } catch (error) {
    if (isUniqueViolation(error, "cvu_holds_payer_key")) throw alreadyAssociated();
    throw error;
  }
}

/** Holds on a CVU taken from the free pool (or just made), which the caller has locked: it now holds them `holding`. */
async function recordHolds(
  trx: Trx,
  account: CvuAccount,
  holds: Array<{ chargeId: string; payerKey: string }>,
  holding: "exclusive" | "shared",
): Promise<CvuAccount> {
  await insertHolds(trx, account.id, holds);
  // A free CVU has no holds and is locked here, so these holds are all it has: one for an exclusive CVU; a
  // shared one's holds are not counted (1: it holds some; see the cvu_accounts table).
  return trx
    .updateTable("cvu_accounts")
    .set({ holding, open_charges: 1, last_charge_id: holds[holds.length - 1]!.chargeId })
    .where("id", "=", account.id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The merchant's oldest free CVU, locked for taking. */
function oldestFreeCvu(trx: Trx, merchantAccountId: string) {
  return trx
    .selectFrom("cvu_accounts")
    .selectAll()
    .where("merchant_account_id", "=", merchantAccountId)
    .where("holding", "=", "free")
    .orderBy("created_at")
    .limit(1)
    .forUpdate();
}

/** A cvu-mode charge takes a free CVU for itself. */
export async function holdWholeCvu(trx: Trx, merchantAccountId: string, chargeId: string): Promise<CvuAccount> {
  const free = await oldestFreeCvu(trx, merchantAccountId).skipLocked().executeTakeFirst();
  const account = free ?? (await growPool(trx, merchantAccountId, "exclusive"));
  if (!account) throw insufficient();
  return recordHolds(trx, account, [{ chargeId, payerKey: WHOLE_CVU }], "exclusive");
}

/**
 * The shared CVU that charges for these payers can join: the oldest with none of them, share-locked (so
 * that it cannot turn free under the joining charges, while other joins go on). Kept a query of its
 * own so that a create can fold it into its insert (a statement of its own, or one of a transaction).
 */
export function joinableSharedCvu(trx: Executor, merchantAccountId: string, payerKeys: string[]) {
  return trx
    .selectFrom("cvu_accounts as a")
    .select(["a.id", "a.cvu"])
    .where("a.merchant_account_id", "=", merchantAccountId)
    .where("a.holding", "=", "shared")
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("cvu_holds as h")
            .select("h.charge_id")
            .whereRef("h.cvu_account_id", "=", "a.id")
            // An array: one statement text whatever the number of payers (a bulk's), prepared once.
            .where(sql<boolean>`h.payer_key = any(${payerKeys}::text[])`),
        ),
      ),
    )
    .orderBy("a.created_at")
    .limit(1)
    .forShare();
}

/**
 * Cuil-mode charges join a shared CVU where none of their payers is yet (a whole batch joins one CVU);
 * failing that a free one, failing that a new one. Payers are keyed by DNI: a DNI and its CUIL are one payer.
 */
export async function holdSharedCvu(
  trx: Trx,
  merchantAccountId: string,
  holds: Array<{ chargeId: string; payerKey: string }>,
): Promise<{ id: string; cvu: string }> {
  const chosen = await chooseSharedCvu(
    trx,
    merchantAccountId,
    holds.map((hold) => hold.payerKey),
  );
  return holdOnChosenCvu(trx, chosen, holds);
}

/**
 * The CVU that cuil-mode charges for these payers will hold, locked as `holdSharedCvu` locks it, before
 * the charges exist: a batch writes its charges with their CVU, then `holdOnChosenCvu`.
 */
export type ChosenSharedCvu = { joined: { id: string; cvu: string } } | { taken: CvuAccount };

export async function chooseSharedCvu(trx: Trx, merchantAccountId: string, payerKeys: string[]): Promise<ChosenSharedCvu> {
  const shared = await joinableSharedCvu(trx, merchantAccountId, payerKeys).executeTakeFirst();
  if (shared) return { joined: shared };
  return { taken: await freeOrNewCvu(trx, merchantAccountId) };
}

/** The holds on the chosen CVU: joined, or taken from the free pool (or just made) and now shared. */
export async function holdOnChosenCvu(
  trx: Trx,
  chosen: ChosenSharedCvu,
  holds: Array<{ chargeId: string; payerKey: string }>,
): Promise<{ id: string; cvu: string }> {
  if ("joined" in chosen) {
    await insertHolds(trx, chosen.joined.id, holds);
    return chosen.joined;
  }
  return recordHolds(trx, chosen.taken, holds, "shared");
}

/** The merchant's oldest free CVU, locked, or a new one when none is free. */
async function freeOrNewCvu(trx: Trx, merchantAccountId: string): Promise<CvuAccount> {
  const free = await oldestFreeCvu(trx, merchantAccountId).executeTakeFirst();
  // (A row that changed hands while its lock was awaited is skipped by PostgreSQL: the pool then grows.)
  const account = free ?? (await growPool(trx, merchantAccountId, "shared"));
  if (!account) throw insufficient();
  return account;
}

/** A free CVU turned shared for these holds (or a new one when none is free). */
export async function holdFreeOrNewCvu(trx: Trx, merchantAccountId: string, holds: Array<{ chargeId: string; payerKey: string }>): Promise<CvuAccount> {
  return recordHolds(trx, await freeOrNewCvu(trx, merchantAccountId), holds, "shared");
}

/** The CVU a charge that becomes pending holds: its own in cvu mode, a shared one for its payer in cuil mode. */
export async function holdCvuForCharge(
  trx: Trx,
  charge: { id: string; merchant_account_id: string; conciliation_type: "cvu" | "cuil"; customer_tax_document: string | null },
): Promise<{ id: string; cvu: string }> {
  if (charge.conciliation_type === "cvu") return holdWholeCvu(trx, charge.merchant_account_id, charge.id);
  const payerKey = charge.customer_tax_document ? payerKeyOf(charge.customer_tax_document) : undefined;
  if (payerKey === undefined) throw new Error(`cuil-mode charge ${charge.id} has no valid payer document`);
  return holdSharedCvu(trx, charge.merchant_account_id, [{ chargeId: charge.id, payerKey }]);
}

/**
 * Charges that close give their CVUs back, as CTEs (`cvu_released`, `cvu_freed`) for a statement that
 * closes them (none included: the text does not depend on how many): a CVU with no open charge left is
 * free again. Each CVU is written once, by the number of holds it lost, the CVUs locked in id order
 * (`cvu_locked`), so two statements releasing on the same CVUs cannot deadlock. An exclusive CVU's figures
 * are exact; a shared one is settled by its trigger (joins do not write the row), which sees the holds'
 * delete: free when none is left.
 */
export function releaseCvusCtes(chargeIds: readonly string[]): RawBuilder<unknown> {
  return sql`
    cvu_released as (delete from cvu_holds where charge_id = any(${chargeIds}::uuid[]) returning cvu_account_id),
    cvu_per_account as (select cvu_account_id, count(*)::int as n from cvu_released group by cvu_account_id),
    cvu_locked as materialized (select a.id from cvu_accounts a where a.id in (select cvu_account_id from cvu_per_account) order by a.id for no key update),
    cvu_freed as (
      update cvu_accounts a set open_charges = a.open_charges - p.n, holding = case when a.open_charges - p.n = 0 then 'free' else a.holding end
        from cvu_per_account p
       where a.id = p.cvu_account_id and a.id in (select id from cvu_locked)
    )`;
}

/** A charge that closes gives its CVU back (one statement). */
export async function releaseCvu(trx: Trx, chargeId: string): Promise<void> {
  await sql`with ${releaseCvusCtes([chargeId])} select 1`.execute(trx);
}
