import type { Timestamp } from "./column-types.ts";

// Earnings: how each received payment splits between the integration, the service and the merchant account.

/**
 * The split of one received payment, written once when it is received (migration 2026_11_23_0015_merchant_commissions):
 * one per transfer and charge (an unmatched payment assigned to a charge is a payment of it too, migration
 * 2026_11_28_0038_unmatched_payment_assignments).
 */
export interface PaymentBreakdownsTable {
  transfer_id: string;
  charge_id: string;
  integration_client_id: string;
  merchant_account_id: string;
  received_at: Timestamp;
  gross_cents: number;
  integration_commission_cents: number;
  service_commission_cents: number;
  merchant_net_cents: number;
  /** numeric: a decimal string. */
  integration_commission_percentage: string;
  integration_commission_fixed_cents: number;
  /** numeric: a decimal string; null when no service commission deal applied. */
  service_commission_percentage: string | null;
}
