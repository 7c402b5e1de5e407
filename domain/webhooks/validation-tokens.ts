// The `validation-token` a webhook receiver expects with each delivery (an integration's webhook URL, a
// tenant's URL): chosen by the integrator, sent as is, never returned by the API. Stored sealed
// (domain/secrets), bound to its client URL or tenant row.
import { secretKeyring } from "../secrets/process-keyring.ts";
import { CLIENT_URL_VALIDATION_TOKEN, openStoredOrNull, sealOrNull, TENANT_VALIDATION_TOKEN } from "../secrets/sealed-columns.ts";
import type { Sealed } from "../../db/tables/sealed.ts";

export function sealClientUrlToken(clientUrlId: string, token: string | null): Sealed | null {
  return sealOrNull(secretKeyring(), CLIENT_URL_VALIDATION_TOKEN, clientUrlId, token);
}

export function openClientUrlToken(clientUrlId: string, stored: Sealed | null): string | null {
  return openStoredOrNull(secretKeyring(), CLIENT_URL_VALIDATION_TOKEN, clientUrlId, stored);
}

export function sealTenantToken(tenantId: string, token: string | null): Sealed | null {
  return sealOrNull(secretKeyring(), TENANT_VALIDATION_TOKEN, tenantId, token);
}

export function openTenantToken(tenantId: string, stored: Sealed | null): string | null {
  return openStoredOrNull(secretKeyring(), TENANT_VALIDATION_TOKEN, tenantId, stored);
}
