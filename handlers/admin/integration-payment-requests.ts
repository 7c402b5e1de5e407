// The integration's charges across all its merchant accounts (/my-integration/payment-requests).
import type { components } from "../../generated/types/admin.ts";
import { calculatedAmounts } from "../../domain/amount-owed.ts";
import { getIntegrationCharge, listIntegrationCharges } from "../../domain/charges/integration-charges.ts";
import { fromCents } from "../../domain/money.ts";
import { requireIntegrationAdmin } from "./caller.ts";
import { pageOf } from "./page-query.ts";
import type { Handler } from "./handler.ts";

type Schemas = components["schemas"];
type IntegrationCharge = Awaited<ReturnType<typeof listIntegrationCharges>>["items"][number];

function integrationChargeView(row: Pick<IntegrationCharge, keyof IntegrationCharge>): Schemas["IntegrationPaymentRequest"] {
  return {
    paymentRequestId: row.id,
    integrationReferenceId: row.reference_id,
    paidAmount: fromCents(row.paid_cents),
    ...(row.customer_email ? { payerEmail: row.customer_email } : {}),
    description: row.description,
    createdAt: row.created_at.toISOString(),
    status: row.state,
  };
}

export const listIntegrationPaymentRequests: Handler<"listIntegrationPaymentRequests"> = async ({ caller, query, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const page = pageOf(query);
  const { items, total } = await listIntegrationCharges(services.db, admin.integrationClientId, {
    state: query.status,
    open: query.open,
    merchantAccountId: query.merchantUserId,
    search: query.search,
    ...page,
  });
  return { status: 200, body: { items: items.map(integrationChargeView), total, ...page } };
};

/** One charge with its payer, CVU, amounts by due date and payments (the detail the list leaves out). */
export function integrationChargeDetailView({
  charge,
  cvu,
  payments,
}: Awaited<ReturnType<typeof getIntegrationCharge>>): Schemas["IntegrationPaymentRequestDetail"] {
  // Two due dates: the second with the surcharge; one: the amount; a draft: nothing asked yet.
  const dueAmounts: Array<{ dueDate: string; amount: number; surchargeApplied?: number }> =
    calculatedAmounts(charge) ??
    (charge.amount_cents === null ? [] : charge.due_dates.map((dueDate) => ({ dueDate, amount: fromCents(charge.amount_cents!) })));
  return {
    ...integrationChargeView(charge),
    customerName: charge.customer_name,
    ...(charge.conciliation_type === "cuil" && charge.customer_tax_document ? { customerTaxDocument: charge.customer_tax_document } : {}),
    conciliationType: charge.conciliation_type,
    ...(charge.amount_cents !== null ? { amount: fromCents(charge.amount_cents) } : {}),
    dueDates: charge.due_dates,
    dueAmounts: dueAmounts.map(({ dueDate, amount, surchargeApplied }) => ({
      dueDate,
      amount,
      ...(surchargeApplied !== undefined && surchargeApplied > 0 ? { surchargeApplied } : {}),
    })),
    ...(cvu ? { cvu } : {}),
    payments: payments.map((payment) => ({
      transactionId: payment.transaction_id,
      amount: fromCents(payment.amount_cents),
      operatedAt: payment.operated_at.toISOString(),
      ...(payment.sender_name ? { payerName: payment.sender_name } : {}),
      ...(payment.sender_cuil ? { payerCuil: payment.sender_cuil } : {}),
    })),
  };
}

export const getIntegrationPaymentRequest: Handler<"getIntegrationPaymentRequest"> = async ({ caller, params, services }) => {
  const admin = requireIntegrationAdmin(caller);
  const stored = await getIntegrationCharge(services.db, admin.integrationClientId, params.paymentRequestId);
  return { status: 200, body: integrationChargeDetailView(stored) };
};
