// The integration client as the Admin API shows it: to its own admins, and to platform admins (with the
// platform's commission).
import type { components } from "../../generated/types/admin.ts";
import type { IntegrationClient } from "../../db/tables/integration-clients.table.ts";

type Schemas = components["schemas"];

export function integrationClientDetail(client: IntegrationClient): Schemas["IntegrationClientDetail"] {
  return {
    integrationClientId: client.id,
    providerClientId: client.provider_client_id,
    name: client.name,
    companyName: client.company_name,
    contactEmail: client.contact_email,
    description: client.description,
    logoUrl: client.logo_url,
    scopes: client.scopes,
    type: client.type,
    createDate: client.created_at.toISOString(),
    suspended: client.suspended_at !== null,
    suspendedAt: client.suspended_at?.toISOString() ?? null,
    suspensionReason: client.suspension_reason,
  };
}

export function platformIntegrationClientDetail(client: IntegrationClient): Schemas["PlatformIntegrationClientDetail"] {
  return {
    ...integrationClientDetail(client),
    serviceCommissionPercentage: client.service_commission_percentage === null ? null : Number(client.service_commission_percentage),
    logoutUrls: client.logout_urls,
  };
}
