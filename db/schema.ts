// The Kysely view of Cobro's database: one `<name>.table.ts` per table under db/tables/, one line per table
// here. Column names are the SQL names (snake_case), with no renaming plugin, so raw SQL and typed queries
// read alike. Keep it in step with db/migrations/.
import type { InstallationTable } from "./tables/installation.table.ts";
import type {
  AdminSessionsTable,
  AdminUsersTable,
  IntegrationClientsTable,
  MerchantAccountsTable,
  MerchantLinksTable,
  OAuthAuthorizationRequestsTable,
  OAuthCodesTable,
  OAuthGrantsTable,
  SigningKeysTable,
} from "./tables/identity.table.ts";

export interface Database {
  installation: InstallationTable;
  integration_clients: IntegrationClientsTable;
  admin_users: AdminUsersTable;
  merchant_accounts: MerchantAccountsTable;
  merchant_links: MerchantLinksTable;
  oauth_authorization_requests: OAuthAuthorizationRequestsTable;
  oauth_codes: OAuthCodesTable;
  oauth_grants: OAuthGrantsTable;
  admin_sessions: AdminSessionsTable;
  signing_keys: SigningKeysTable;
}
