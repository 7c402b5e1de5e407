// The Sandbox's client of the Production deployment's Admin API: the one call that creates an approved
// integration there, authenticated with a platform API key. Production is configured by the operator
// (COBRO_PRODUCTION_ADMIN_URL), so this is not an integrator's URL and the webhook SSRF guard does not apply.

export interface ProductionClientProfile {
  name: string;
  companyName: string;
  contactEmail: string;
  description?: string;
  type: "api_direct" | "widget" | "both" | "multitenant";
  scopes: string[];
  redirectUrls: string[];
  logoutUrls: string[];
  firstAdminEmail: string;
  firstAdminName?: string;
}

export interface ProvisionedClient {
  integrationClientId: string;
  providerClientId: string;
  firstAdminEmailSent: boolean;
}

/** Why Production did not create the integration. `permanent`: asking again will not help (a 4xx other than 408 and 429). */
export class ProvisioningFailure extends Error {
  readonly permanent: boolean;
  constructor(message: string, permanent: boolean) {
    super(message);
    this.name = "ProvisioningFailure";
    this.permanent = permanent;
  }
}

export interface ProductionAdminApi {
  /** Creates the Sandbox integration `sandboxClientId` in Production, or answers the one already created from it. */
  provisionClient(sandboxClientId: string, profile: ProductionClientProfile): Promise<ProvisionedClient>;
}

const REQUEST_DEADLINE_MS = 15_000;

export function productionAdminApi(deployment: { adminUrl: string; apiKey: string }): ProductionAdminApi {
  return {
    async provisionClient(sandboxClientId, profile) {
      let response: Response;
      try {
        response = await fetch(`${deployment.adminUrl}/integration-admin/production-clients/${encodeURIComponent(sandboxClientId)}`, {
          method: "PUT",
          headers: { "content-type": "application/json", "x-cobro-api-key": deployment.apiKey },
          body: JSON.stringify(profile),
          redirect: "error",
          signal: AbortSignal.timeout(REQUEST_DEADLINE_MS),
        });
      } catch (error) {
        throw new ProvisioningFailure(`Production's Admin API could not be reached: ${(error as Error).message}`, false);
      }
      const text = await response.text();
      if (response.status === 200 || response.status === 201) return JSON.parse(text) as ProvisionedClient;
      const permanent = response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429;
      throw new ProvisioningFailure(`Production answered ${response.status}: ${errorSummary(text)}`, permanent);
    },
  };
}

/** The error body's code and message (never more than a line of it). */
function errorSummary(text: string): string {
  try {
    const body = JSON.parse(text) as { code?: string; message?: string };
    if (body.code || body.message) return `${body.code ?? "error"}: ${body.message ?? ""}`.slice(0, 300);
  } catch {
    // not JSON
  }
  return text.slice(0, 200);
}
