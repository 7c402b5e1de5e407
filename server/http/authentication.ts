// The security handlers of each API's contract schemes, bound to the service's database and keys.
import { authenticateAdmin, authenticateMerchant, authenticateMerchantToken } from "../../domain/sign-in/authentication.ts";
import { authenticateWidgetKey } from "../../domain/checkout/widget-keys.ts";
import { authenticatePlatformApiKey } from "../../domain/sign-in/platform-api-keys.ts";
import type { AdminApiCaller, AuthCaller, IntegrationCaller } from "../../domain/sign-in/callers.ts";
import type { SecurityHandler } from "./security-handlers.ts";
import type { Services } from "../../handlers/handler-types.ts";
import { checkBankFeedSignature } from "../../domain/reconciliation/bank-feed.ts";
import { DomainError } from "../../domain/errors.ts";
import { TokenCheckCache } from "../../domain/sign-in/token-check-cache.ts";

/** The process's remembered token checks; without one (an app built for a test), one that never remembers. */
function tokenChecksOf(services: Services): TokenCheckCache {
  services.tokenChecks ??= new TokenCheckCache();
  return services.tokenChecks;
}

export function integrationSecurity(services: Services): Record<string, SecurityHandler<IntegrationCaller>> {
  return {
    MerchantBearer: ({ headers }) => authenticateMerchant(services.db, services.tokens, tokenChecksOf(services), headers.authorization),
    // The checkout widget's `/v1/payments`: the secret key creates, the publishable key reads.
    WidgetSecretKey: ({ headers }) => authenticateWidgetKey(services.db, headers.authorization, "secret"),
    WidgetPublishableKey: ({ headers }) => authenticateWidgetKey(services.db, headers.authorization, "publishable"),
  };
}

/** `/integration-admin/**` is the platform admin's; `/my-integration/**` the integration admin's. */
export function adminSecurity(services: Services): Record<string, SecurityHandler<AdminApiCaller>> {
  return {
    AdminBearer: ({ headers, path }) =>
      authenticateAdmin(
        services.db,
        services.tokens,
        tokenChecksOf(services),
        headers.authorization,
        path.startsWith("/integration-admin/") ? "PLATFORM_ADMIN" : "INTEGRATION_ADMIN",
      ),
    // Declared only by the operation another deployment calls (creating an integration that went live).
    PlatformApiKey: ({ headers }) => authenticatePlatformApiKey(services.db, headers["x-cobro-api-key"], services.clock.now()),
    BankFeedSignature: async ({ headers, rawBody }) => {
      try {
        const header = headers["x-bank-feed-signature"];
        checkBankFeedSignature(typeof header === "string" ? header : undefined, rawBody, services.config.bankFeedSecret, services.clock.now());
        return { caller: { kind: "anonymous" } };
      } catch (error) {
        if (error instanceof DomainError) return { refused: error };
        throw error;
      }
    },
  };
}

export function authSecurity(services: Services): Record<string, SecurityHandler<AuthCaller>> {
  return {
    BearerAuth: async ({ headers, operationId }) =>
      operationId === "adminChangePassword"
        ? authenticateAdmin(services.db, services.tokens, tokenChecksOf(services), headers.authorization, undefined, { forPasswordChange: true })
        : authenticateMerchantToken(services.db, services.tokens, tokenChecksOf(services), headers.authorization),
    // Client credentials in HTTP Basic are checked by the token endpoints themselves (they also accept
    // them in the body); the scheme is only declared so that standard clients know they may use it.
    BasicAuth: async () => ({ caller: { kind: "anonymous" } }),
  };
}
