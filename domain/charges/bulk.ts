// A bulk of charges (`POST /payment-request/bulk`): 1 to 100 standard charges that reconcile by CUIL on
// ONE shared CVU, created all or nothing in one transaction. Every failing item is reported at once
// (422); notification flags apply to the whole batch, and each charge's payer notifications are written
// with it; the chat-message cap counts the whole batch.
import { randomUUID } from "node:crypto";
import { sql, type Kysely, type Transaction } from "kysely";
import type { Database } from "../../db/schema.ts";
import type { ChargeState } from "../../db/tables/charges.table.ts";
import { chooseSharedCvu, holdOnChosenCvu } from "../cvu-pool/cvu-pool.ts";
import { DomainError, ValidationError } from "../errors.ts";
import { reserveChatMessages } from "../limits/message-caps.ts";
import { scheduleChargeNotifications } from "../notifications/charge-notifications.ts";
import { payerKeyOf } from "../tax-id.ts";
import { bankAccountInfoForCreate, chargeRow, type ChargeContext } from "./charges.ts";
import type { BankAccountInfo } from "./charge-view.ts";
import { BULK_REFUSAL_REASONS, batchNotificationFlags, bulkRefusals, type BulkRefusal, type ChargeSpec } from "./charge-rules.ts";
import { isUniqueViolation } from "../../db/errors.ts";

export interface CreatedBatch {
  batchId: string;
  sharedCvu: string;
  accountInfo: BankAccountInfo;
  /** In request order. */
  charges: Array<{ referenceId: string; state: ChargeState }>;
}

/** How often a batch is tried again when a simultaneous create for one of its payers took the chosen CVU. */
const HOLD_ATTEMPTS = 3;

/**
 * Every bulk item needs an amount: a bulk charge takes the shared CVU when it is created, and a draft
 * holds no CVU (it would take its own one on completion, outside the batch's).
 */
export function requireBulkAmounts(specs: ChargeSpec[]): void {
  const problems = specs.flatMap((spec, index) =>
    spec.amountCents === undefined
      ? [
          {
            field: `paymentRequests[${index}].amount`,
            rule: "required" as const,
            message: `paymentRequests[${index}].amount is required in a bulk item (every bulk charge takes the batch's shared CVU; a draft cannot)`,
          },
        ]
      : [],
  );
  if (problems.length > 0) throw new ValidationError(problems);
}

/**
 * The notification flags each charge of the batch gets: the batch-wide ones (a channel is on if any item
 * turns it on; the payment confirmation is `false` when items differ).
 */
export function withBatchFlags(specs: ChargeSpec[]): ChargeSpec[] {
  const flags = batchNotificationFlags(specs);
  return specs.map((spec) => ({ ...spec, ...flags }));
}

/**
 * Creates the batch, all or nothing. `specs` are the items as `validateBulkItems` returned them, in
 * request order. Throws the 422 `BulkPaymentRequestValidationError` with every failing item, 400
 * `InsufficientActiveAccountsError` when no CVU of the pool can hold the whole batch, and the 429/503 of the
 * chat-message caps; in every case nothing is created.
 */
export async function createChargeBatch(db: Kysely<Database>, context: ChargeContext, items: ChargeSpec[]): Promise<CreatedBatch> {
  requireBulkAmounts(items);
  const inBatch = bulkRefusals(items);
  const existing = await existingReferenceIds(db, context, items);
  if (inBatch.length > 0 || existing.length > 0) throw batchRefused(items.length, inBatch, existing);

  const specs = withBatchFlags(items);
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction().execute((trx) => insertBatch(trx, context, specs));
    } catch (error) {
      if (isUniqueViolation(error, "charges_reference_key")) {
        // A create or another batch with one of these referenceIds committed first (the unique key made
        // this insert wait for it): the same answer as if it had been there before.
        const existingNow = await existingReferenceIds(db, context, items);
        if (existingNow.length > 0) throw batchRefused(items.length, [], existingNow);
      }
      // A simultaneous create for one of the batch's payers took a hold on the CVU this batch chose: the
      // transaction is gone, so the batch is tried again from the start (it then sees that hold).
      if (error instanceof DomainError && error.code === "CustomerAlreadyAssociatedError" && attempt < HOLD_ATTEMPTS) continue;
      throw error;
    }
  }
}

async function insertBatch(trx: Transaction<Database>, context: ChargeContext, specs: ChargeSpec[]): Promise<CreatedBatch> {
  const accountInfo = await bankAccountInfoForCreate(trx, context);
  const batchId = randomUUID();
  const holds = specs.map((spec) => ({ chargeId: randomUUID(), payerKey: payerKeyOf(spec.customer.taxDocument ?? "")! }));
  // The CVU first (locked as a single create locks it), so that the charges are written with it.
  const chosen = await chooseSharedCvu(
    trx,
    context.merchantAccountId,
    holds.map((hold) => hold.payerKey),
  );
  const cvuAccountId = "joined" in chosen ? chosen.joined.id : chosen.taken.id;
  const rows = await insertCharges(
    trx,
    specs.map((spec, index) => ({ id: holds[index]!.chargeId, ...chargeRow(context, spec, batchId) })),
    cvuAccountId,
  );
  const account = await holdOnChosenCvu(trx, chosen, holds);
  // RETURNING's order is not promised: map back by id.
  const byId = new Map(rows.map((row) => [row.id, row]));
  const inOrder = holds.map((hold) => byId.get(hold.chargeId)!);
  await scheduleChargeNotifications(trx, inOrder, context.now);
  const messages = specs.filter((spec) => spec.sendWhatsappNotification).length;
  await reserveChatMessages(
    trx,
    { integrationClientId: context.integrationClientId, now: context.now, serviceEnv: context.serviceEnv, globalCap: context.globalMessageCap },
    messages,
  );
  return {
    batchId,
    sharedCvu: account.cvu,
    accountInfo,
    charges: inOrder.map((row) => ({ referenceId: row.reference_id, state: row.state })),
  };
}

type BatchRow = ReturnType<typeof chargeRow> & { id: string };

/**
 * The batch's charges in one insert of array parameters, one array per column: the statement's text is the
 * same whatever the batch's size, so it runs prepared (db/prepared-statements.ts). The values are
 * `chargeRow`'s, as a single create writes them; what is the same for the whole batch is one parameter.
 */
function insertCharges(trx: Transaction<Database>, rows: BatchRow[], cvuAccountId: string) {
  const first = rows[0]!;
  const column = <K extends keyof BatchRow>(key: K) => rows.map((row) => row[key]);
  return trx
    .insertInto("charges")
    .columns([
      "id",
      "integration_client_id",
      "merchant_account_id",
      "reference_id",
      "type",
      "kind",
      "state",
      "amount_cents",
      "surcharge_cents",
      "due_dates",
      "first_due_at",
      "description",
      "final_due_at",
      "surcharge",
      "send_whatsapp_notification",
      "send_email_notification",
      "send_whatsapp_payment_confirmation",
      "reminder_notification_date",
      "deferred_initial_notification_date",
      "conciliation_type",
      "customer_name",
      "customer_tax_document",
      "customer_email",
      "customer_phone",
      "webhook_url",
      "metadata",
      "expires_in_minutes",
      "cvu_account_id",
      "batch_id",
      "created_at",
      "updated_at",
    ])
    .expression(
      sql`select r.id, ${first.integration_client_id}::uuid, ${first.merchant_account_id}::uuid, r.reference_id, r.type, r.kind, r.state,
                 r.amount_cents, r.surcharge_cents,
                 -- A charge's due dates are an array each: carried as JSON, kept in their order.
                 array(select d.value from jsonb_array_elements_text(r.due_dates) with ordinality as d(value, n) order by d.n),
                 r.first_due_at, r.description, r.final_due_at, r.surcharge, r.send_whatsapp_notification, r.send_email_notification,
                 r.send_whatsapp_payment_confirmation, r.reminder_notification_date, r.deferred_initial_notification_date, r.conciliation_type,
                 r.customer_name, r.customer_tax_document, r.customer_email, r.customer_phone, r.webhook_url, r.metadata, r.expires_in_minutes,
                 ${cvuAccountId}::uuid, ${first.batch_id}::uuid, ${first.created_at}::timestamptz, ${first.updated_at}::timestamptz
            from unnest(${column("id")}::uuid[], ${column("reference_id")}::text[], ${column("type")}::text[], ${column("kind")}::text[],
                        ${column("state")}::text[], ${column("amount_cents")}::int8[], ${column("surcharge_cents")}::int8[],
                        ${rows.map((row) => JSON.stringify(row.due_dates))}::jsonb[], ${column("first_due_at")}::timestamptz[],
                        ${column("description")}::text[], ${column("final_due_at")}::timestamptz[], ${column("surcharge")}::jsonb[],
                        ${column("send_whatsapp_notification")}::bool[], ${column("send_email_notification")}::bool[],
                        ${column("send_whatsapp_payment_confirmation")}::bool[], ${column("reminder_notification_date")}::date[],
                        ${column("deferred_initial_notification_date")}::date[], ${column("conciliation_type")}::text[],
                        ${column("customer_name")}::text[], ${column("customer_tax_document")}::text[], ${column("customer_email")}::text[],
                        ${column("customer_phone")}::jsonb[], ${column("webhook_url")}::text[], ${column("metadata")}::jsonb[],
                        ${column("expires_in_minutes")}::int4[])
              as r(id, reference_id, type, kind, state, amount_cents, surcharge_cents, due_dates, first_due_at, description, final_due_at,
                   surcharge, send_whatsapp_notification, send_email_notification, send_whatsapp_payment_confirmation,
                   reminder_notification_date, deferred_initial_notification_date, conciliation_type, customer_name, customer_tax_document,
                   customer_email, customer_phone, webhook_url, metadata, expires_in_minutes)`,
    )
    .returningAll()
    .execute();
}

/** The items whose referenceId this integration and merchant account already have (one query). */
async function existingReferenceIds(db: Kysely<Database>, context: ChargeContext, specs: ChargeSpec[]): Promise<BulkRefusal[]> {
  const referenceIds = [...new Set(specs.map((spec) => spec.referenceId))];
  // An array: one statement text whatever the batch's size, prepared once. Each referenceId is looked up
  // by the unique key: with `reference_id = any(…)` the plan read every charge of the merchant account
  // (hundreds of milliseconds a batch once it had a few hundred thousand).
  const { rows } = await sql<{ reference_id: string }>`
    select c.reference_id from unnest(${referenceIds}::text[]) as r(reference_id)
      join charges c on c.integration_client_id = ${context.integrationClientId} and c.merchant_account_id = ${context.merchantAccountId}
                    and c.reference_id = r.reference_id`.execute(db);
  const taken = new Set(rows.map((row) => row.reference_id));
  return specs.flatMap((spec, index) =>
    taken.has(spec.referenceId) ? [{ index, referenceId: spec.referenceId, reason: BULK_REFUSAL_REASONS.existingReferenceId }] : [],
  );
}

/** The 422: every refusal, in item order (an item's in-batch refusals before the existing-referenceId one). */
function batchRefused(total: number, inBatch: BulkRefusal[], existing: BulkRefusal[]): DomainError {
  const errors = [...inBatch, ...existing]
    .map((refusal, position) => ({ refusal, position }))
    .sort((a, b) => a.refusal.index - b.refusal.index || a.position - b.position)
    .map(({ refusal }) => ({ index: refusal.index, referenceId: refusal.referenceId, reason: refusal.reason }));
  const failing = new Set(errors.map((error) => error.index)).size;
  return new DomainError(
    "BulkPaymentRequestValidationError",
    `${failing} of the ${total} payment requests of the batch cannot be created; nothing was created`,
    { errors },
  );
}
