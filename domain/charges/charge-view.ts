// The charge as the Integration API returns it (the contract's PaymentRequest), from its stored row.
import type { components } from "../../generated/types/integration.ts";
import type { Charge } from "../../db/tables/charges.table.ts";
import { fromCents } from "../money.ts";
import { calculatedAmounts } from "../amount-owed.ts";

type PaymentRequest = components["schemas"]["PaymentRequest"];

export interface BankAccountInfo {
  accountHolderName: string;
  accountHolderTaxId: string;
  bankName: string;
}

/** The bank behind the CVUs this service issues. */
export const BANK_NAME = "Banco Cobro S.A.";

export function paymentRequestView(charge: Charge, cvu: string | null, bankAccountInfo: BankAccountInfo): PaymentRequest {
  const calculated = calculatedAmounts(charge);
  // In the documented order, optional fields only when they have a value.
  return {
    type: charge.type,
    paymentRequestId: charge.id,
    referenceId: charge.reference_id,
    ...(charge.amount_cents !== null ? { amount: fromCents(charge.amount_cents) } : {}),
    description: charge.description,
    dueDates: charge.due_dates,
    ...(charge.surcharge ? { surcharge: charge.surcharge } : {}),
    ...(charge.metadata ? { metadata: charge.metadata } : {}),
    customer: {
      name: charge.customer_name,
      ...(charge.conciliation_type === "cuil" && charge.customer_tax_document ? { taxDocument: charge.customer_tax_document } : {}),
      ...(charge.customer_email ? { email: charge.customer_email } : {}),
      ...(charge.customer_phone ? { phoneNumber: { countryCode: charge.customer_phone.countryCode, number: charge.customer_phone.number } } : {}),
    },
    sendWhatsappNotification: charge.send_whatsapp_notification,
    sendEmailNotification: charge.send_email_notification,
    ...(charge.send_whatsapp_payment_confirmation !== null ? { sendWhatsappPaymentConfirmation: charge.send_whatsapp_payment_confirmation } : {}),
    ...(charge.reminder_notification_date ? { reminderNotificationDate: charge.reminder_notification_date } : {}),
    ...(charge.deferred_initial_notification_date ? { deferredInitialNotificationDate: charge.deferred_initial_notification_date } : {}),
    conciliationType: charge.conciliation_type,
    ...(charge.webhook_url ? { webhookUrl: charge.webhook_url } : {}),
    ...(charge.expires_in_minutes !== null ? { expiresInMinutes: charge.expires_in_minutes } : {}),
    state: charge.state,
    ...(calculated ? { calculatedAmounts: calculated } : {}),
    ...(cvu ? { CVU: cvu } : {}),
    bankAccountInfo,
  };
}
