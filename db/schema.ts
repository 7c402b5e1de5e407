// The Kysely view of Cobro's database: the row types are under db/tables/, one `<concept>.table.ts` per
// concept of domain/ (its tables, with every column later migrations added; column-types.ts has the
// shapes they share), and one line per table here. Column names are the SQL names (snake_case), with no
// renaming plugin, so raw SQL and typed queries read alike. Keep it in step with db/migrations/.
import type { InstallationTable } from "./tables/installation.table.ts";
import type { IntegrationClientsTable, IntegrationLogosTable } from "./tables/integration-clients.table.ts";
import type { AdminUsersTable } from "./tables/admins.table.ts";
import type { MerchantAccountsTable, MerchantLinksTable } from "./tables/merchants.table.ts";
import type {
  AdminSessionsTable,
  AdminSessionUsedRefreshTokensTable,
  CredentialFailuresTable,
  OAuthAuthorizationRequestsTable,
  OAuthCodesTable,
  OAuthGrantsTable,
  PasswordLinksTable,
  PlatformApiKeysTable,
  SigningKeysTable,
} from "./tables/sign-in.table.ts";
import type { IntegrationTenantsTable } from "./tables/tenants.table.ts";
import type { CvuAccountsTable, CvuHoldsTable } from "./tables/cvu-pool.table.ts";
import type { ChargeDeadlinesTable, ChargesTable } from "./tables/charges.table.ts";
import type { DailyMessageUsageTable, IntegrationLimitsTable, MessageCapRequestsTable } from "./tables/limits.table.ts";
import type { PayerLookupUsageTable } from "./tables/payer-lookup.table.ts";
import type { TransfersTable, UnmatchedPaymentAssignmentsTable, UnmatchedPaymentReturnsTable, UnmatchedPaymentsTable } from "./tables/transfers.table.ts";
import type { PaymentBreakdownsTable } from "./tables/earnings.table.ts";
import type { EventsTable } from "./tables/events.table.ts";
import type { ClientUrlsTable, DeliveryAttemptsTable, EventDeliveriesTable, WebhookSigningSecretsTable } from "./tables/webhooks.table.ts";
import type { NotificationsTable } from "./tables/notifications.table.ts";
import type { GoLiveRequestsTable } from "./tables/going-live.table.ts";
import type { WidgetKeysTable } from "./tables/checkout.table.ts";
import type { CommissionProposalsTable, PayoutLinksTable } from "./tables/commissions.table.ts";
import type { WorkerHeartbeatsTable } from "./tables/worker-heartbeats.table.ts";
import type { AuditLogTable } from "./tables/audit-log.table.ts";

export interface Database {
  installation: InstallationTable;
  integration_clients: IntegrationClientsTable;
  integration_logos: IntegrationLogosTable;
  admin_users: AdminUsersTable;
  merchant_accounts: MerchantAccountsTable;
  merchant_links: MerchantLinksTable;
  oauth_authorization_requests: OAuthAuthorizationRequestsTable;
  oauth_codes: OAuthCodesTable;
  oauth_grants: OAuthGrantsTable;
  admin_sessions: AdminSessionsTable;
  admin_session_used_refresh_tokens: AdminSessionUsedRefreshTokensTable;
  password_links: PasswordLinksTable;
  signing_keys: SigningKeysTable;
  integration_tenants: IntegrationTenantsTable;
  cvu_accounts: CvuAccountsTable;
  charges: ChargesTable;
  cvu_holds: CvuHoldsTable;
  charge_deadlines: ChargeDeadlinesTable;
  daily_message_usage: DailyMessageUsageTable;
  integration_limits: IntegrationLimitsTable;
  message_cap_requests: MessageCapRequestsTable;
  payer_lookup_usage: PayerLookupUsageTable;
  transfers: TransfersTable;
  unmatched_payments: UnmatchedPaymentsTable;
  unmatched_payment_assignments: UnmatchedPaymentAssignmentsTable;
  unmatched_payment_returns: UnmatchedPaymentReturnsTable;
  payment_breakdowns: PaymentBreakdownsTable;
  events: EventsTable;
  webhook_signing_secrets: WebhookSigningSecretsTable;
  client_urls: ClientUrlsTable;
  event_deliveries: EventDeliveriesTable;
  delivery_attempts: DeliveryAttemptsTable;
  notifications: NotificationsTable;
  go_live_requests: GoLiveRequestsTable;
  platform_api_keys: PlatformApiKeysTable;
  widget_keys: WidgetKeysTable;
  payout_links: PayoutLinksTable;
  commission_proposals: CommissionProposalsTable;
  credential_failures: CredentialFailuresTable;
  worker_heartbeats: WorkerHeartbeatsTable;
  audit_log: AuditLogTable;
}
