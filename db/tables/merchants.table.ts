import type { ColumnType, Generated, Selectable } from "kysely";
import type { Timestamp, DefaultedTimestamp } from "./column-types.ts";

// Merchant accounts and their links to integrations (migration 2026_11_22_0002_identity).

export interface MerchantAccountsTable {
  id: Generated<string>;
  email: string;
  password_hash: string;
  fantasy_name: string;
  account_holder_name: string;
  account_holder_tax_id: string;
  /** Set on the Sandbox test merchant account of an integration (one per integration). */
  test_for_integration_client_id: string | null;
  created_at: DefaultedTimestamp;
  /** The payment provider's id of the account (migration 0030), unique; null for the Sandbox's own merchants. */
  provider_merchant_id: ColumnType<string | null, string | null | undefined, string | null>;
  status: ColumnType<MerchantAccountStatus, MerchantAccountStatus | undefined, MerchantAccountStatus>;
  /** False until the merchant chooses a password through an emailed link (a provisioned account starts without one). */
  password_set: ColumnType<boolean, boolean | undefined, boolean>;
  /** When the invitation email was accepted by the mail server. */
  invitation_sent_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  updated_at: DefaultedTimestamp;
}

export type MerchantAccountStatus = "active" | "suspended" | "closed";

export interface MerchantLinksTable {
  /** The `integrationClientUserId` of the Admin API. */
  id: Generated<string>;
  integration_client_id: string;
  merchant_account_id: string;
  /** The first authorization; unchanged by unlinking and re-authorizing. */
  linked_at: Timestamp;
  unlinked_at: Timestamp | null;
  /** The merchant's tenant (location) in this integration, if any. */
  tenant_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The integration's commission the merchant account accepted (numeric, a decimal string; "0.00" when none). */
  commission_percentage: ColumnType<string, string | undefined, string>;
  /** The fixed fee per payment of the offer the merchant account accepted when linking (bigint cents). */
  commission_fixed_cents: ColumnType<number, number | undefined, number>;
  /** The platform's service commission deal applied to this link (numeric), null when none. */
  service_commission_percentage: ColumnType<string | null, string | null | undefined, string | null>;
}

export type MerchantAccount = Selectable<MerchantAccountsTable>;
export type MerchantLink = Selectable<MerchantLinksTable>;
