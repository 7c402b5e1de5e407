// The split of every payment received, written once when it arrives, in integer cents:
//   gross = the integration's commission + the platform's service commission + the merchant's net.
// - The integration's commission is what the merchant account accepted (the offer when it linked, or a
//   commission proposal since): its percentage of the gross, rounded to the nearest cent (half a cent
//   up), plus the offer's fixed fee per payment; never more than the gross.
// - The platform's service commission is the deal applied to the merchant's link: its percentage of the
//   gross, rounded the same way; never more than what the integration's commission left.
// - The merchant's net is the rest, so the three parts always add up to the gross, to the cent.
// The terms are read when the payment arrives (with the charge, domain/reconciliation/reconcile.ts) and
// stored with it: a later change never rewrites history.
import { sql, type Insertable, type RawBuilder } from "kysely";
import type { PaymentBreakdownsTable } from "../../db/tables/earnings.table.ts";
import { percentOfCents } from "../money.ts";

export interface CommissionTerms {
  /** numeric(5,2) text, e.g. "1.50". */
  integrationPercentage: string;
  integrationFixedCents: number;
  /** numeric(5,2) text, or null when no service commission deal applies. */
  servicePercentage: string | null;
}

export interface PaymentSplit {
  integrationCommissionCents: number;
  serviceCommissionCents: number;
  merchantNetCents: number;
}

export function splitPayment(grossCents: number, terms: CommissionTerms): PaymentSplit {
  const integrationCommissionCents = Math.min(grossCents, percentOfCents(grossCents, Number(terms.integrationPercentage)) + terms.integrationFixedCents);
  const afterIntegration = grossCents - integrationCommissionCents;
  const serviceCommissionCents = terms.servicePercentage === null ? 0 : Math.min(afterIntegration, percentOfCents(grossCents, Number(terms.servicePercentage)));
  return { integrationCommissionCents, serviceCommissionCents, merchantNetCents: afterIntegration - serviceCommissionCents };
}

/** The terms of a charge's merchant link (unlinked or not) as read with the charge: none is all zero. */
export function termsOfLink(link: {
  commission_percentage: string | null;
  commission_fixed_cents: number | null;
  service_commission_percentage: string | null;
}): CommissionTerms {
  return {
    integrationPercentage: link.commission_percentage ?? "0",
    integrationFixedCents: link.commission_fixed_cents ?? 0,
    servicePercentage: link.service_commission_percentage ?? null,
  };
}

/**
 * The payment_breakdowns row of a payment to `charge` under `terms` (the charge's merchant link's, read
 * when the payment arrives), for the caller to insert in the payment's own statement.
 */
export function paymentBreakdownRow(
  payment: { transferId: string; grossCents: number; receivedAt: Date },
  charge: { id: string; integration_client_id: string; merchant_account_id: string },
  terms: CommissionTerms,
): Insertable<PaymentBreakdownsTable> {
  const split = splitPayment(payment.grossCents, terms);
  return {
    transfer_id: payment.transferId,
    charge_id: charge.id,
    integration_client_id: charge.integration_client_id,
    merchant_account_id: charge.merchant_account_id,
    received_at: payment.receivedAt,
    gross_cents: payment.grossCents,
    integration_commission_cents: split.integrationCommissionCents,
    service_commission_cents: split.serviceCommissionCents,
    merchant_net_cents: split.merchantNetCents,
    integration_commission_percentage: terms.integrationPercentage,
    integration_commission_fixed_cents: terms.integrationFixedCents,
    service_commission_percentage: terms.servicePercentage,
  };
}

/**
 * The CTE `breakdowns`, inserting `rows` (paymentBreakdownRow's) within the payments' own statement: over
 * arrays, so the statement's text is the same whatever their number (one plan for a batch of any size).
 */
export function insertBreakdownsCte(rows: readonly Insertable<PaymentBreakdownsTable>[]): RawBuilder<unknown> {
  const b = <T>(pick: (row: Insertable<PaymentBreakdownsTable>) => T) => rows.map(pick);
  return sql`
    breakdowns as (
      insert into payment_breakdowns (transfer_id, charge_id, integration_client_id, merchant_account_id, received_at, gross_cents, integration_commission_cents,
                                      service_commission_cents, merchant_net_cents, integration_commission_percentage, integration_commission_fixed_cents,
                                      service_commission_percentage)
      select * from unnest(${b((r) => r.transfer_id)}::uuid[], ${b((r) => r.charge_id)}::uuid[], ${b((r) => r.integration_client_id)}::uuid[],
                           ${b((r) => r.merchant_account_id)}::uuid[], ${b((r) => r.received_at)}::timestamptz[], ${b((r) => r.gross_cents)}::bigint[],
                           ${b((r) => r.integration_commission_cents)}::bigint[], ${b((r) => r.service_commission_cents)}::bigint[], ${b((r) => r.merchant_net_cents)}::bigint[],
                           ${b((r) => r.integration_commission_percentage)}::numeric[], ${b((r) => r.integration_commission_fixed_cents)}::bigint[],
                           ${b((r) => r.service_commission_percentage)}::numeric[])
    )`;
}
