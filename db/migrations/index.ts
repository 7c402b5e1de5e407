// Every migration, by name, in order. A static list rather than Kysely's FileMigrationProvider: it needs no
// directory scan or dynamic import of absolute paths (which behave differently under node, vitest and any
// bundler), and tsc checks each module's shape. test/db/migrations.test.ts fails if a file is left out.
import type { Migration } from "kysely/migration";
import * as initial from "./2026_11_22_0001_initial.ts";
import * as identity from "./2026_11_22_0002_identity.ts";
import * as charges from "./2026_11_22_0003_charges.ts";
import * as payments from "./2026_11_22_0004_payments.ts";
import * as webhooks from "./2026_11_22_0005_webhooks.ts";
import * as offers from "./2026_11_22_0006_offers.ts";
import * as notifications from "./2026_11_23_0007_notifications.ts";
import * as eventsWhileUnlinked from "./2026_11_23_0008_events_while_unlinked.ts";
import * as adminOnboarding from "./2026_11_23_0009_admin_onboarding.ts";
import * as clientSecretRotation from "./2026_11_23_0010_client_secret_rotation.ts";
import * as integrationLogos from "./2026_11_23_0011_integration_logos.ts";
import * as goingLive from "./2026_11_23_0012_going_live.ts";
import * as adminPasswordResets from "./2026_11_23_0013_admin_password_resets.ts";
import * as messageCapRequestsAndSuspension from "./2026_11_23_0014_message_cap_requests_and_suspension.ts";
import * as merchantCommissions from "./2026_11_23_0015_merchant_commissions.ts";
import * as widgetKeys from "./2026_11_23_0016_widget_keys.ts";
import * as payoutLinkAndCommissionProposals from "./2026_11_23_0017_payout_link_and_commission_proposals.ts";
import * as cvuPoolSharedHolds from "./2026_11_23_0018_cvu_pool_shared_holds.ts";
import * as credentialFailures from "./2026_11_23_0020_credential_failures.ts";
import * as sealedSecrets from "./2026_11_23_0021_sealed_secrets.ts";
import * as workerHeartbeats from "./2026_11_23_0022_worker_heartbeats.ts";
import * as authChangedNotify from "./2026_11_23_0023_auth_changed_notify.ts";
import * as cvuAccountsHotUpdates from "./2026_11_23_0024_cvu_accounts_hot_updates.ts";
import * as authChangedNotice from "./2026_11_23_0025_auth_changed_notice.ts";
import * as credentialAttemptsCountedFirst from "./2026_11_25_0026_credential_attempts_counted_first.ts";
import * as authorizationCompletions from "./2026_11_25_0027_authorization_completions.ts";
import * as adminRefreshTokenReuse from "./2026_11_27_0028_admin_refresh_token_reuse.ts";
import * as webhookSigningSecretScheme from "./2026_11_27_0029_webhook_signing_secret_scheme.ts";
import * as providerMerchantAccounts from "./2026_11_27_0030_provider_merchant_accounts.ts";
import * as merchantStatusAuthChanged from "./2026_11_27_0031_merchant_status_auth_changed.ts";
import * as scrapeTimeReads from "./2026_11_27_0032_scrape_time_reads.ts";
import * as auditLog from "./2026_11_27_0033_audit_log.ts";
import * as chargeDeadlines from "./2026_11_27_0034_charge_deadlines.ts";
import * as eventLogOrder from "./2026_11_27_0035_event_log_order.ts";
import * as webhookUrlVerified from "./2026_11_28_0036_webhook_url_verified.ts";
import * as unmatchedPayments from "./2026_11_28_0037_unmatched_payments.ts";
import * as unmatchedPaymentAssignments from "./2026_11_28_0038_unmatched_payment_assignments.ts";
import * as unmatchedPaymentReturns from "./2026_11_28_0039_unmatched_payment_returns.ts";
import * as transfersByRecordedTime from "./2026_11_28_0040_transfers_by_recorded_time.ts";
import * as chargesNewestOfCvu from "./2026_11_30_0041_charges_newest_of_cvu.ts";
import * as sharedCvuHoldsNotCounted from "./2026_11_30_0042_shared_cvu_holds_not_counted.ts";

/**
 * Whether a migration may run while the previous release still serves (a rolling release: the schema
 * changes first, then the processes are replaced one at a time). Each migration module says so in
 * `export const releaseSafety` (docs/operations.md, "Migrations across a release"):
 * - "expand": it only adds (a table, a nullable or defaulted column, an index, a trigger that fills what the
 *   new release reads): the previous release works on the schema after it.
 * - "contract": it removes what no release since the previous one uses (the second half of a change that an
 *   earlier release expanded): the previous release works on the schema after it too.
 * - "breaking": the previous release fails on the schema after it (a rename, a removal of what it still
 *   uses, a NOT NULL column it does not write): stop it first, or split the change into an expand and a
 *   later contract.
 * Migrations written before the marker have none: "unmarked", taken as breaking while a release serves.
 */
export type ReleaseSafety = "expand" | "contract" | "breaking";

export const migrations: Record<string, Migration> = {
  "2026_11_22_0001_initial": initial,
  "2026_11_22_0002_identity": identity,
  "2026_11_22_0003_charges": charges,
  "2026_11_22_0004_payments": payments,
  "2026_11_22_0005_webhooks": webhooks,
  "2026_11_22_0006_offers": offers,
  "2026_11_23_0007_notifications": notifications,
  "2026_11_23_0008_events_while_unlinked": eventsWhileUnlinked,
  "2026_11_23_0009_admin_onboarding": adminOnboarding,
  "2026_11_23_0010_client_secret_rotation": clientSecretRotation,
  "2026_11_23_0011_integration_logos": integrationLogos,
  "2026_11_23_0012_going_live": goingLive,
  "2026_11_23_0013_admin_password_resets": adminPasswordResets,
  "2026_11_23_0014_message_cap_requests_and_suspension": messageCapRequestsAndSuspension,
  "2026_11_23_0015_merchant_commissions": merchantCommissions,
  "2026_11_23_0016_widget_keys": widgetKeys,
  "2026_11_23_0017_payout_link_and_commission_proposals": payoutLinkAndCommissionProposals,
  "2026_11_23_0018_cvu_pool_shared_holds": cvuPoolSharedHolds,
  "2026_11_23_0020_credential_failures": credentialFailures,
  "2026_11_23_0021_sealed_secrets": sealedSecrets,
  "2026_11_23_0022_worker_heartbeats": workerHeartbeats,
  "2026_11_23_0023_auth_changed_notify": authChangedNotify,
  "2026_11_23_0024_cvu_accounts_hot_updates": cvuAccountsHotUpdates,
  "2026_11_23_0025_auth_changed_notice": authChangedNotice,
  "2026_11_25_0026_credential_attempts_counted_first": credentialAttemptsCountedFirst,
  "2026_11_25_0027_authorization_completions": authorizationCompletions,
  "2026_11_27_0028_admin_refresh_token_reuse": adminRefreshTokenReuse,
  "2026_11_27_0029_webhook_signing_secret_scheme": webhookSigningSecretScheme,
  "2026_11_27_0030_provider_merchant_accounts": providerMerchantAccounts,
  "2026_11_27_0031_merchant_status_auth_changed": merchantStatusAuthChanged,
  "2026_11_27_0032_scrape_time_reads": scrapeTimeReads,
  "2026_11_27_0033_audit_log": auditLog,
  "2026_11_27_0034_charge_deadlines": chargeDeadlines,
  "2026_11_27_0035_event_log_order": eventLogOrder,
  "2026_11_28_0036_webhook_url_verified": webhookUrlVerified,
  "2026_11_28_0037_unmatched_payments": unmatchedPayments,
  "2026_11_28_0038_unmatched_payment_assignments": unmatchedPaymentAssignments,
  "2026_11_28_0039_unmatched_payment_returns": unmatchedPaymentReturns,
  "2026_11_28_0040_transfers_by_recorded_time": transfersByRecordedTime,
  "2026_11_30_0041_charges_newest_of_cvu": chargesNewestOfCvu,
  "2026_11_30_0042_shared_cvu_holds_not_counted": sharedCvuHoldsNotCounted,
};
