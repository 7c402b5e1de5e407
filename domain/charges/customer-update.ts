// PATCH /payment-request/{referenceId}/customer: a CUIL-mode charge that has received no money may change
// its payer. A new document may not fit the CVU the charge holds (the payer already has an open charge
// there): the charge then moves to another CVU of the pool, or nothing changes. Messages not sent yet go
// to the new contacts.
import type { Kysely } from "kysely";
import type { components } from "../../generated/types/integration.ts";
import type { Database } from "../../db/schema.ts";
import type { Charge } from "../../db/tables/charges.table.ts";
import { holdSharedCvu, releaseCvu } from "../cvu-pool/cvu-pool.ts";
import { DomainError, ValidationError } from "../errors.ts";
import { classifyDocument, payerKeyOf } from "../tax-id.ts";
import { requireIntegrationCollecting } from "../integration-clients/client-suspension.ts";
import { readdressChargeNotifications } from "../notifications/charge-notifications.ts";
import { bankAccountInfoOf, lockCharge, type ChargeContext, type StoredCharge } from "./charges.ts";

type CustomerUpdate = components["schemas"]["CustomerUpdate"];
type Refusal = components["schemas"]["CustomerUpdateRefusal"];

const FINAL_STATES = new Set(["total_payment", "overdue", "partial_overdue", "canceled"]);

function refuse(reason: Refusal, message: string): DomainError {
  return new DomainError("PaymentRequestCustomerCannotBeModified", message, { data: { reason } });
}

export async function updateChargeCustomer(db: Kysely<Database>, context: ChargeContext, referenceId: string, update: CustomerUpdate): Promise<StoredCharge> {
  if (Object.keys(update).length === 0)
    throw ValidationError.of("body", "minProperties", "body must change at least one of taxDocument, name, email, phoneNumber");
  if (update.taxDocument !== undefined && classifyDocument(update.taxDocument) === undefined) {
    throw ValidationError.of("taxDocument", "taxDocument", "taxDocument must be a valid 11-digit CUIL (check digit) or a 7- or 8-digit DNI");
  }
  try {
    return await db.transaction().execute(async (trx) => {
      await requireIntegrationCollecting(trx, context.integrationClientId);
      const charge = await lockCharge(trx, context, referenceId, { noWait: true });
      if (charge.conciliation_type !== "cuil")
        throw refuse("conciliation_type_not_cuil", "The charge reconciles by CVU: its payer is not identified by document");
      if (FINAL_STATES.has(charge.state)) throw refuse("state_not_modifiable", `The charge is ${charge.state}: its payer can no longer change`);
      if (charge.paid_cents > 0) throw refuse("payment_already_received", "The charge has already received money");
      if (!charge.customer_tax_document) throw refuse("incomplete_payment_request_data", "The charge has no associated payer");

      const newPayer = update.taxDocument !== undefined && payerKeyOf(update.taxDocument) !== payerKeyOf(charge.customer_tax_document);
      // A different payer does not inherit the previous one's contacts: what the notifications need must come with it.
      const email = update.email ?? (newPayer ? null : charge.customer_email);
      const phone = update.phoneNumber ?? (newPayer ? null : charge.customer_phone);
      if ((charge.send_email_notification && !email) || (charge.send_whatsapp_notification && !phone)) {
        throw refuse("missing_notification_contact", "The new payer lacks the email or phone number that this charge's notifications need");
      }

      let cvuAccountId = charge.cvu_account_id;
      if (newPayer && charge.cvu_account_id !== null) {
        const newKey = payerKeyOf(update.taxDocument!)!;
        const taken = await trx
          .selectFrom("cvu_holds")
          .select("charge_id")
          .where("cvu_account_id", "=", charge.cvu_account_id)
          .where("payer_key", "=", newKey)
          .executeTakeFirst();
        if (!taken) {
          await trx.updateTable("cvu_holds").set({ payer_key: newKey }).where("charge_id", "=", charge.id).execute();
        } else {
          await releaseCvu(trx, charge.id);
          try {
            cvuAccountId = (await holdSharedCvu(trx, context.merchantAccountId, [{ chargeId: charge.id, payerKey: newKey }])).id;
          } catch (error) {
            if (error instanceof DomainError && error.code === "InsufficientActiveAccountsError") {
              throw refuse("no_collision_free_account", "No CVU of the pool can hold the new document; nothing changed");
            }
            throw error;
          }
        }
      }
      const updated: Charge = await trx
        .updateTable("charges")
        .set({
          customer_tax_document: update.taxDocument ?? charge.customer_tax_document,
          customer_name: update.name ?? charge.customer_name,
          customer_email: email,
          customer_phone: phone === null ? null : JSON.stringify(phone),
          cvu_account_id: cvuAccountId,
          updated_at: context.now,
        })
        .where("id", "=", charge.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await readdressChargeNotifications(trx, updated);
      const account = updated.cvu_account_id
        ? await trx.selectFrom("cvu_accounts").select("cvu").where("id", "=", updated.cvu_account_id).executeTakeFirstOrThrow()
        : undefined;
      return { charge: updated, cvu: account?.cvu ?? null, bankAccountInfo: await bankAccountInfoOf(trx, context.merchantAccountId) };
    });
  } catch (error) {
    // FOR UPDATE NOWAIT: another request is changing this charge right now.
    if ((error as { code?: string }).code === "55P03")
      throw refuse("concurrent_modification", "The charge is being changed by another request; read it again and retry");
    throw error;
  }
}
