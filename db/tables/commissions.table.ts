import type { ColumnType, Generated } from "kysely";
import type { Timestamp } from "./column-types.ts";

// What a merchant account consents to through an emailed link: receiving an integration's commissions
// (the payout link) and a new commission percentage (migration 2026_11_23_0017_payout_link_and_commission_proposals).

/** An integration's payout link: its current invitation and, once accepted, the recipient. */
export interface PayoutLinksTable {
  integration_client_id: string;
  /** The `invitationId` of the Admin API; a new invitation gets a new one, a resend keeps it. */
  invitation_id: string;
  invited_email: string;
  /** SHA-256 of the emailed link's token; null once accepted (the link is used up). */
  token_hash: string | null;
  invited_at: Timestamp;
  /** When the emailed link stops working (a resend mails a new one). */
  link_expires_at: Timestamp;
  accepted_at: Timestamp | null;
  recipient_merchant_account_id: string | null;
}

export type CommissionProposalStatus = "pending" | "accepted" | "rejected" | "superseded" | "withdrawn" | "expired";

export interface CommissionProposalsTable {
  /** The `invitationId` of the Admin API. */
  id: Generated<string>;
  merchant_link_id: string;
  /** numeric(5,2): a decimal string. */
  percentage: string;
  /** SHA-256 of the emailed link's token. */
  token_hash: string;
  created_at: Timestamp;
  expires_at: Timestamp;
  status: ColumnType<CommissionProposalStatus, CommissionProposalStatus | undefined, CommissionProposalStatus>;
  ended_at: Timestamp | null;
}
