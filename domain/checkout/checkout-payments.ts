// Checkout charges made through `/v1/payments`: the widget's request becomes the very charge that
// `POST /payment-request` creates with `type: checkout` (same rules, same use case), and the widget
// reads it back without anything about the buyer.
import type { Kysely } from "kysely";
import type { components } from "../../generated/types/integration.ts";
import type { Database } from "../../db/schema.ts";
import type { Charge } from "../../db/tables/charges.table.ts";
import { addDays, argentinaDate } from "../argentina-time.ts";
import { DomainError } from "../errors.ts";
import { fromCents } from "../money.ts";
import { bankAccountInfoOf, paymentRequestNotFound, type StoredCharge } from "../charges/charges.ts";
import type { PaymentRequestCreate } from "../charges/charge-rules.ts";

type Schemas = components["schemas"];
export type CheckoutPaymentCreate = Schemas["CheckoutPaymentCreate"];

/** The payer's name of a checkout charge whose store did not send one. */
export const ANONYMOUS_BUYER_NAME = "Comprador";

/**
 * The charge request of a widget payment: a CVU-mode checkout charge with no payer notifications, due
 * the Argentina day after `now` (it expires within the hour, long before).
 */
export function checkoutChargeRequest(body: CheckoutPaymentCreate, now: Date): PaymentRequestCreate {
  return {
    referenceId: body.referenceId,
    description: body.description,
    amount: body.amount,
    dueDates: [addDays(argentinaDate(now), 1)],
    customer: { name: body.customer?.name ?? ANONYMOUS_BUYER_NAME, ...(body.customer?.email !== undefined ? { email: body.customer.email } : {}) },
    sendWhatsappNotification: false,
    sendEmailNotification: false,
    conciliationType: "cvu",
    type: "checkout",
    expiresInMinutes: body.expiresInMinutes ?? null,
    ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
  };
}

/** Refuses a `merchantUserId` that is not an active merchant account linked (and not unlinked) to the integration. */
export async function requireLinkedMerchant(db: Kysely<Database>, integrationClientId: string, merchantAccountId: string): Promise<void> {
  const link = await db
    .selectFrom("merchant_links as l")
    .innerJoin("merchant_accounts as m", "m.id", "l.merchant_account_id")
    .select("l.id")
    .where("l.integration_client_id", "=", integrationClientId)
    .where("l.merchant_account_id", "=", merchantAccountId)
    .where("l.unlinked_at", "is", null)
    // A suspended or closed account collects nothing new.
    .where("m.status", "=", "active")
    .executeTakeFirst();
  if (!link) throw new DomainError("MerchantUserNotLinkedError", `merchantUserId ${merchantAccountId} is not a merchant account linked to this integration`);
}

/** A checkout charge of the integration by its id (any merchant account); 404 for any other charge. */
export async function checkoutChargeOf(db: Kysely<Database>, integrationClientId: string, paymentRequestId: string): Promise<StoredCharge> {
  const row = await db
    .selectFrom("charges as c")
    .leftJoin("cvu_accounts as a", "a.id", "c.cvu_account_id")
    .selectAll("c")
    .select("a.cvu")
    .where("c.id", "=", paymentRequestId)
    .where("c.integration_client_id", "=", integrationClientId)
    .where("c.type", "=", "checkout")
    .executeTakeFirst();
  if (!row) throw paymentRequestNotFound();
  const { cvu, ...charge } = row;
  return { charge, cvu, bankAccountInfo: await bankAccountInfoOf(db, charge.merchant_account_id) };
}

/** A checkout charge expires at its last due instant (its expiry, which comes before its due date). */
export function checkoutExpiresAt(charge: Charge): string {
  return charge.final_due_at.toISOString();
}

/** What the widget shows: no payer data. */
export function checkoutPaymentStatusView({ charge, cvu, bankAccountInfo }: StoredCharge, now: Date): Schemas["CheckoutPaymentStatus"] {
  return {
    paymentRequestId: charge.id,
    referenceId: charge.reference_id,
    description: charge.description,
    amount: fromCents(charge.amount_cents ?? 0),
    paidAmount: fromCents(charge.paid_cents),
    state: charge.state,
    ...(cvu ? { CVU: cvu } : {}),
    bankAccountInfo,
    expiresAt: checkoutExpiresAt(charge),
    secondsUntilExpiry: Math.max(0, Math.ceil((charge.final_due_at.getTime() - now.getTime()) / 1000)),
  };
}
