// Charges of a merchant account created by an integration: create, read, list, complete a draft's amount,
// cancel. Each change is one transaction with the CVU it holds and the limits it counts.
import { randomUUID } from "node:crypto";
import { sql, type Kysely, type QueryCreator, type Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { Executor } from "../../db/transactions.ts";
import type { Charge } from "../../db/tables/charges.table.ts";
import { startOfArgentinaDay, addDays } from "../argentina-time.ts";
import { alreadyAssociated, holdCvuForCharge, holdFreeOrNewCvu, joinableSharedCvu, releaseCvu } from "../cvu-pool/cvu-pool.ts";
import { DomainError } from "../errors.ts";
import { reserveChatMessages } from "../limits/message-caps.ts";
import { integrationSuspended } from "../integration-clients/client-suspension.ts";
import { payerKeyOf } from "../tax-id.ts";
import { scheduleChargeNotifications, withdrawChargeNotifications } from "../notifications/charge-notifications.ts";
import { fromCents } from "../money.ts";
import { checkDestination, type DestinationPolicy } from "../outbound/destination-guard.ts";
import { BANK_NAME, type BankAccountInfo } from "./charge-view.ts";
import { amountTermsOf, surchargeJson, type ChargeSpec } from "./charge-rules.ts";
import type { ChargeListCounts, ListTotal } from "./charge-list-counts.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import { CompiledStatement } from "../../db/compiled-statement.ts";

/** Who creates and reads charges: the integration and merchant account of the token, and the environment. */
export interface ChargeContext {
  integrationClientId: string;
  merchantAccountId: string;
  now: Date;
  serviceEnv: "sandbox" | "production";
  globalMessageCap: number;
  destinationPolicy: DestinationPolicy;
}

export interface StoredCharge {
  charge: Charge;
  cvu: string | null;
  bankAccountInfo: BankAccountInfo;
}

export const paymentRequestNotFound = () => new DomainError("PaymentRequestNotFoundError", "Payment request not found");

export async function bankAccountInfoOf(db: Executor, merchantAccountId: string): Promise<BankAccountInfo> {
  const merchant = await db
    .selectFrom("merchant_accounts")
    .select(["account_holder_name", "account_holder_tax_id"])
    .where("id", "=", merchantAccountId)
    .executeTakeFirstOrThrow();
  return { accountHolderName: merchant.account_holder_name, accountHolderTaxId: merchant.account_holder_tax_id, bankName: BANK_NAME };
}

/** Refuses a `webhookUrl` that points inside (WebhookUrlBlockedError). */
export async function checkChargeWebhookUrl(url: string | undefined, policy: DestinationPolicy): Promise<void> {
  if (url === undefined) return;
  const verdict = await checkDestination(url, policy, true);
  if (!verdict.allowed) throw new DomainError("WebhookUrlBlockedError", `webhookUrl is not accepted: ${verdict.reason}`);
}

/** The row values of a new charge from its checked spec. */
export function chargeRow(context: ChargeContext, spec: ChargeSpec, batchId: string | null = null) {
  const last = spec.dueDates[spec.dueDates.length - 1]!;
  return {
    integration_client_id: context.integrationClientId,
    merchant_account_id: context.merchantAccountId,
    reference_id: spec.referenceId,
    type: spec.type,
    kind: spec.kind,
    state: spec.amountCents === undefined ? ("draft" as const) : ("pending" as const),
    ...amountTermsOf(spec),
    description: spec.description,
    final_due_at: spec.expiresAt && spec.expiresAt < last.dueAt ? spec.expiresAt : last.dueAt,
    surcharge: spec.surcharge && spec.dueDates.length === 2 ? JSON.stringify(surchargeJson(spec.surcharge)) : null,
    send_whatsapp_notification: spec.sendWhatsappNotification,
    send_email_notification: spec.sendEmailNotification,
    send_whatsapp_payment_confirmation: spec.sendWhatsappPaymentConfirmation ?? null,
    reminder_notification_date: spec.reminderNotificationDate ?? null,
    deferred_initial_notification_date: spec.deferredInitialNotificationDate ?? null,
    conciliation_type: spec.conciliationType,
    customer_name: spec.customer.name,
    customer_tax_document: spec.conciliationType === "cuil" ? (spec.customer.taxDocument ?? null) : null,
    customer_email: spec.customer.email ?? null,
    customer_phone: spec.customer.phoneNumber ? JSON.stringify(spec.customer.phoneNumber) : null,
    webhook_url: spec.webhookUrl ?? null,
    metadata: spec.metadata ? JSON.stringify(spec.metadata) : null,
    expires_in_minutes: spec.expiresInMinutes ?? null,
    batch_id: batchId,
    created_at: context.now,
    updated_at: context.now,
  };
}

export async function createCharge(db: Kysely<Database>, context: ChargeContext, spec: ChargeSpec): Promise<StoredCharge> {
  await checkChargeWebhookUrl(spec.webhookUrl, context.destinationPolicy);
  const payerKey = spec.amountCents !== undefined && spec.conciliationType === "cuil" ? payerKeyOf(spec.customer.taxDocument ?? "") : undefined;
  // The common create (a cuil-mode charge joining a shared CVU, nothing to schedule or count) is one
  // statement, atomic on its own; the rest, or a create with no shared CVU to join, is a transaction.
  if (payerKey !== undefined && !spec.sendWhatsappNotification && !spec.sendEmailNotification) {
    const joined = await createJoiningSharedCvu(db, context, spec, payerKey);
    if (joined) return joined;
  }
  return db.transaction().execute(async (trx) => {
    const bankAccountInfo = await bankAccountInfoForCreate(trx, context);
    let charge: Charge;
    let cvu: string | null = null;
    try {
      ({ charge, cvu } =
        payerKey === undefined
          ? { charge: await insertCharge(trx, context, spec), cvu: null }
          : await insertChargeJoiningSharedCvu(trx, context, spec, payerKey));
      if (charge.state === "pending" && cvu === null) {
        const account =
          payerKey === undefined
            ? await holdCvuForCharge(trx, charge)
            : await holdFreeOrNewCvu(trx, context.merchantAccountId, [{ chargeId: charge.id, payerKey }]);
        charge = await trx.updateTable("charges").set({ cvu_account_id: account.id }).where("id", "=", charge.id).returningAll().executeTakeFirstOrThrow();
        cvu = account.cvu;
      }
    } catch (error) {
      throw referenceTaken(error, spec);
    }
    if (charge.state === "pending") await scheduleChargeNotifications(trx, [charge], context.now);
    if (spec.sendWhatsappNotification) {
      await reserveChatMessages(
        trx,
        { integrationClientId: context.integrationClientId, now: context.now, serviceEnv: context.serviceEnv, globalCap: context.globalMessageCap },
        1,
      );
    }
    return { charge, cvu, bankAccountInfo };
  });
}

/** A clash on the reference key as the documented 409; any other error as it is. */
function referenceTaken(error: unknown, spec: ChargeSpec): unknown {
  if (!isUniqueViolation(error, "charges_reference_key")) return error;
  return new DomainError(
    "ReferenceIdAlreadyExists",
    `A payment request with referenceId ${spec.referenceId} already exists for this integration and merchant account`,
    { referenceId: spec.referenceId },
  );
}

/** What the one-statement create is given: the charge's row and its payer's key, from `chargeRow`. */
export type JoiningCreateInput = { id: string } & ReturnType<typeof chargeRow> & { payer_key: string; payer_keys: string[] };

/** The columns of `chargeRow`, in its order: a record, so that the compiler finds one missing or extra. */
const CHARGE_ROW_COLUMNS = Object.keys({
  integration_client_id: true,
  merchant_account_id: true,
  reference_id: true,
  type: true,
  kind: true,
  state: true,
  amount_cents: true,
  surcharge_cents: true,
  due_dates: true,
  first_due_at: true,
  description: true,
  final_due_at: true,
  surcharge: true,
  send_whatsapp_notification: true,
  send_email_notification: true,
  send_whatsapp_payment_confirmation: true,
  reminder_notification_date: true,
  deferred_initial_notification_date: true,
  conciliation_type: true,
  customer_name: true,
  customer_tax_document: true,
  customer_email: true,
  customer_phone: true,
  webhook_url: true,
  metadata: true,
  expires_in_minutes: true,
  batch_id: true,
  created_at: true,
  updated_at: true,
} satisfies Record<keyof ReturnType<typeof chargeRow>, true>) as Array<keyof ReturnType<typeof chargeRow>>;
const JOINING_CREATE_FIELDS = ["id", ...CHARGE_ROW_COLUMNS, "payer_key", "payer_keys"] as const;

/**
 * The one-statement create, written with Kysely (compiled once below; exported for the test that holds the
 * compiled text and parameters to the builder's).
 */
export function joiningCreateQuery(db: Kysely<Database>, input: JoiningCreateInput) {
  const columns = ["id", ...CHARGE_ROW_COLUMNS] as const;
  const context = { integrationClientId: input.integration_client_id, merchantAccountId: input.merchant_account_id };
  return (
    db
      .with("merchant", (db) => merchantForCreate(db, context))
      .with("shared", () => joinableSharedCvu(db, input.merchant_account_id, input.payer_keys))
      .with("hold", (db) =>
        db
          .insertInto("cvu_holds")
          .columns(["charge_id", "cvu_account_id", "payer_key"])
          .expression((eb) =>
            eb
              .selectFrom("shared")
              .select([sql<string>`${input.id}::uuid`.as("charge_id"), "shared.id", sql<string>`${input.payer_key}::text`.as("payer_key")])
              .where(({ exists, selectFrom }) =>
                exists(selectFrom("merchant").select("merchant.account_holder_name").where("merchant.suspended_at", "is", null)),
              ),
          )
          .returning("cvu_account_id"),
      )
      // INSERT … SELECT: the parameters take their columns' types, and the charge is written only with its hold.
      .with("inserted", (db) =>
        db
          .insertInto("charges")
          .columns([...columns, "cvu_account_id"])
          .expression((eb) => eb.selectFrom("hold").select([...columns.map((column) => eb.val(input[column] as never).as(column)), "hold.cvu_account_id"]))
          .returningAll(),
      )
      .selectFrom("merchant")
      .leftJoin("inserted", (join) => join.onTrue())
      .leftJoin("shared", (join) => join.onTrue())
      .selectAll("inserted")
      .select(["merchant.account_holder_name", "merchant.account_holder_tax_id", "merchant.suspended_at", "shared.cvu"])
  );
}
export const joiningCreate = new CompiledStatement(JOINING_CREATE_FIELDS, joiningCreateQuery);

/**
 * A pending cuil-mode charge joining a shared CVU with room for its payer, in one statement: the
 * integration's suspension and the merchant's account details read, the hold and the charge written,
 * the charge only with its hold. Undefined (nothing written) when no shared CVU has room.
 */
async function createJoiningSharedCvu(db: Kysely<Database>, context: ChargeContext, spec: ChargeSpec, payerKey: string): Promise<StoredCharge | undefined> {
  const input: JoiningCreateInput = { id: randomUUID(), ...chargeRow(context, spec), payer_key: payerKey, payer_keys: [payerKey] };
  const result = await joiningCreate.executeTakeFirstOrThrow(db, input).catch((error: unknown) => {
    if (isUniqueViolation(error, "cvu_holds_payer_key")) throw alreadyAssociated();
    throw referenceTaken(error, spec);
  });
  const { account_holder_name, account_holder_tax_id, suspended_at, cvu, ...charge } = result;
  if (suspended_at) throw integrationSuspended();
  if (charge.id === null || cvu === null) return undefined;
  return {
    charge: charge as Charge,
    cvu,
    bankAccountInfo: { accountHolderName: account_holder_name, accountHolderTaxId: account_holder_tax_id, bankName: BANK_NAME },
  };
}

/** What a create reads first: the merchant's account details and whether its integration is suspended. */
function merchantForCreate(db: QueryCreator<Database>, context: Pick<ChargeContext, "integrationClientId" | "merchantAccountId">) {
  return db
    .selectFrom("merchant_accounts as m")
    .select(["m.account_holder_name", "m.account_holder_tax_id"])
    .select((eb) => eb.selectFrom("integration_clients as i").select("i.suspended_at").where("i.id", "=", context.integrationClientId).as("suspended_at"))
    .where("m.id", "=", context.merchantAccountId);
}

/** One read before a create: the integration may collect (or 404 IntegrationNotReadyToCollectError), and the merchant's account details. */
export async function bankAccountInfoForCreate(trx: Transaction<Database>, context: ChargeContext): Promise<BankAccountInfo> {
  const row = await merchantForCreate(trx, context).executeTakeFirstOrThrow();
  if (row.suspended_at) throw integrationSuspended();
  return { accountHolderName: row.account_holder_name, accountHolderTaxId: row.account_holder_tax_id, bankName: BANK_NAME };
}

async function insertCharge(trx: Transaction<Database>, context: ChargeContext, spec: ChargeSpec): Promise<Charge> {
  return trx.insertInto("charges").values(chargeRow(context, spec)).returningAll().executeTakeFirstOrThrow();
}

/**
 * A pending cuil-mode charge and its hold on a shared CVU that already has room for its payer, in one
 * statement. Without such a CVU the charge is inserted without one (`cvu` null), for the caller to take
 * a free or new CVU.
 */
async function insertChargeJoiningSharedCvu(
  trx: Transaction<Database>,
  context: ChargeContext,
  spec: ChargeSpec,
  payerKey: string,
): Promise<{ charge: Charge; cvu: string | null }> {
  const chargeId = randomUUID();
  try {
    const { cvu, ...charge } = await trx
      .with("shared", () => joinableSharedCvu(trx, context.merchantAccountId, [payerKey]))
      .with("hold", (db) =>
        db
          .insertInto("cvu_holds")
          .columns(["charge_id", "cvu_account_id", "payer_key"])
          .expression((eb) =>
            eb.selectFrom("shared").select([sql<string>`${chargeId}::uuid`.as("charge_id"), "shared.id", sql<string>`${payerKey}::text`.as("payer_key")]),
          )
          .returning("cvu_account_id"),
      )
      .insertInto("charges")
      .values({ id: chargeId, ...chargeRow(context, spec), cvu_account_id: (eb) => eb.selectFrom("hold").select("hold.cvu_account_id") })
      .returningAll()
      .returning((eb) => eb.selectFrom("shared").select("shared.cvu").as("cvu"))
      .executeTakeFirstOrThrow();
    return { charge: charge as Charge, cvu: cvu ?? null };
  } catch (error) {
    if (isUniqueViolation(error, "cvu_holds_payer_key")) throw alreadyAssociated();
    throw error;
  }
}

function chargesOf(db: Executor, context: Pick<ChargeContext, "integrationClientId" | "merchantAccountId">) {
  return db
    .selectFrom("charges as c")
    .leftJoin("cvu_accounts as a", "a.id", "c.cvu_account_id")
    .selectAll("c")
    .select("a.cvu")
    .where("c.integration_client_id", "=", context.integrationClientId)
    .where("c.merchant_account_id", "=", context.merchantAccountId);
}

function split(row: Charge & { cvu: string | null }): { charge: Charge; cvu: string | null } {
  const { cvu, ...charge } = row;
  return { charge, cvu };
}

/** A charge by its referenceId with its CVU and the merchant's account details (compiled once below). */
export function chargeByReferenceQuery(db: Kysely<Database>, input: { integrationClientId: string; merchantAccountId: string; referenceId: string }) {
  return chargesOf(db, input)
    .innerJoin("merchant_accounts as m", "m.id", "c.merchant_account_id")
    .select(["m.account_holder_name", "m.account_holder_tax_id"])
    .where("c.reference_id", "=", input.referenceId);
}
export const chargeByReference = new CompiledStatement(["integrationClientId", "merchantAccountId", "referenceId"], chargeByReferenceQuery);

export async function getCharge(
  db: Kysely<Database>,
  context: Pick<ChargeContext, "integrationClientId" | "merchantAccountId">,
  referenceId: string,
): Promise<StoredCharge> {
  const row = await chargeByReference.executeTakeFirst(db, {
    integrationClientId: context.integrationClientId,
    merchantAccountId: context.merchantAccountId,
    referenceId,
  });
  if (!row) throw paymentRequestNotFound();
  const { account_holder_name, account_holder_tax_id, ...stored } = row;
  return { ...split(stored), bankAccountInfo: { accountHolderName: account_holder_name, accountHolderTaxId: account_holder_tax_id, bankName: BANK_NAME } };
}

/**
 * Charges created in an Argentina-day range (both ends included), oldest first, with the range's total:
 * exact up to EXACT_COUNT_UP_TO, above it a count the process remembers for a while (charge-list-counts.ts).
 */
export async function listCharges(
  db: Kysely<Database>,
  counts: ChargeListCounts,
  context: Pick<ChargeContext, "integrationClientId" | "merchantAccountId">,
  query: { startDate?: string; endDate?: string; limit: number; offset: number },
): Promise<{ items: StoredCharge[] } & ListTotal> {
  let filtered = chargesOf(db, context);
  if (query.startDate) filtered = filtered.where("c.created_at", ">=", startOfArgentinaDay(query.startDate));
  if (query.endDate) filtered = filtered.where("c.created_at", "<", startOfArgentinaDay(addDays(query.endDate, 1)));
  const inRange = filtered.clearSelect().select(sql<number>`1`.as("one"));
  const countOf = async (rows: typeof inRange) =>
    Number(
      (
        await db
          .selectFrom(rows.as("r"))
          .select((eb) => eb.fn.countAll<string>().as("total"))
          .executeTakeFirstOrThrow()
      ).total,
    );
  const key = [context.integrationClientId, context.merchantAccountId, query.startDate ?? "", query.endDate ?? ""].join("|");
  const [rows, total] = await Promise.all([
    filtered.orderBy("c.created_at").orderBy("c.id").limit(query.limit).offset(query.offset).execute(),
    counts.total(
      key,
      (limit) => countOf(inRange.limit(limit)),
      () => countOf(inRange),
    ),
  ]);
  const bankAccountInfo = await bankAccountInfoOf(db, context.merchantAccountId);
  return { items: rows.map((row) => ({ ...split(row), bankAccountInfo })), ...total };
}

/**
 * The charge of this integration and merchant account, locked for the rest of the transaction (or, with
 * `noWait`, failing at once with PostgreSQL's 55P03 when another transaction holds it); 404 otherwise.
 */
export async function lockCharge(
  trx: Transaction<Database>,
  context: Pick<ChargeContext, "integrationClientId" | "merchantAccountId">,
  referenceId: string,
  options: { noWait?: boolean } = {},
): Promise<Charge> {
  const locked = trx
    .selectFrom("charges")
    .selectAll()
    .where("integration_client_id", "=", context.integrationClientId)
    .where("merchant_account_id", "=", context.merchantAccountId)
    .where("reference_id", "=", referenceId)
    .forUpdate();
  const charge = await (options.noWait ? locked.noWait() : locked).executeTakeFirst();
  if (!charge) throw paymentRequestNotFound();
  return charge;
}

function conflictData(charge: Charge) {
  return { referenceId: charge.reference_id, state: charge.state, paidAmount: fromCents(charge.paid_cents) };
}

/** Completes a draft's amount: it becomes pending and takes a CVU. A draft never sends notifications, not even once completed. */
export async function completeDraftAmount(
  db: Kysely<Database>,
  context: ChargeContext,
  referenceId: string,
  amountCents: number,
): Promise<{ charge: Charge; previousAmountCents: number | null }> {
  return db.transaction().execute(async (trx) => {
    const charge = await lockCharge(trx, context, referenceId);
    if (charge.state !== "draft" || charge.paid_cents > 0) {
      throw new DomainError("PaymentRequestCannotBeModified", `Only a draft with no payments can get an amount; this one is ${charge.state}`, {
        data: conflictData(charge),
      });
    }
    const account = await holdCvuForCharge(trx, charge);
    const updated = await trx
      .updateTable("charges")
      .set({ amount_cents: amountCents, state: "pending", cvu_account_id: account.id, updated_at: context.now })
      .where("id", "=", charge.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return { charge: updated, previousAmountCents: charge.amount_cents };
  });
}

/** Cancels a draft or pending charge with no payments; its CVU returns to the pool and its payer notifications are withdrawn. No event. */
export async function cancelCharge(db: Kysely<Database>, context: ChargeContext, referenceId: string): Promise<Charge> {
  return db.transaction().execute(async (trx) => {
    const charge = await lockCharge(trx, context, referenceId);
    if ((charge.state !== "draft" && charge.state !== "pending") || charge.paid_cents > 0) {
      throw new DomainError("PaymentRequestCannotBeCanceled", `Only a draft or pending charge with no payments can be canceled; this one is ${charge.state}`, {
        data: conflictData(charge),
      });
    }
    await releaseCvu(trx, charge.id);
    await withdrawChargeNotifications(trx, charge.id);
    return trx
      .updateTable("charges")
      .set({ state: "canceled", closed_at: context.now, updated_at: context.now })
      .where("id", "=", charge.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}
