// The admin session of a profile: the Admin API's bearer token from the stored refresh token, renewed
// under the profile's lock, and the SDK's generated clients configured with it.
import * as admin from "../generated/admin/index.js";
import * as auth from "../generated/auth/index.js";
import * as integration from "../generated/integration/index.js";
import { httpStatusOf } from "../errors.js";
import { readProfile, withProfileLock, writeProfile, type StoredProfile } from "./config.js";
import { CliError } from "./output.js";

/** The Sandbox that `npm start` runs. */
export const DEFAULT_URLS = { adminUrl: "http://localhost:3002", authUrl: "http://localhost:3001", integrationUrl: "http://localhost:3000" };

export type Endpoints = typeof DEFAULT_URLS;

/** The APIs' addresses: a flag, then the environment, then the profile, then the Sandbox defaults. */
export function endpointsOf(values: Record<string, unknown>, stored: Partial<Endpoints> = {}, env: NodeJS.ProcessEnv = process.env): Endpoints {
  const base = (values["base-url"] as string | undefined) ?? env.COBRO_BASE_URL;
  const pick = (flag: string, variable: string, key: keyof Endpoints) =>
    ((values[flag] as string | undefined) ?? env[variable] ?? base ?? stored[key] ?? DEFAULT_URLS[key]).replace(/\/+$/, "");
  return {
    adminUrl: pick("admin-url", "COBRO_ADMIN_URL", "adminUrl"),
    authUrl: pick("auth-url", "COBRO_AUTH_URL", "authUrl"),
    integrationUrl: pick("integration-url", "COBRO_INTEGRATION_URL", "integrationUrl"),
  };
}

/** Renew this long before the idToken expires. */
const MARGIN_MS = 60_000;

export class Session {
  constructor(
    readonly profile: string,
    private readonly values: Record<string, unknown>,
  ) {}

  authApiAt(authUrl: string): auth.AdminSessionApi {
    return new auth.AdminSessionApi(new auth.Configuration({ basePath: authUrl }));
  }

  /** The stored profile; fails when the profile never signed in or signed out. */
  signedIn(): StoredProfile & { refreshToken: string } {
    const stored = readProfile(this.profile);
    if (!stored?.refreshToken)
      throw new CliError(
        "not_signed_in",
        `profile "${this.profile}" is not signed in: run cobro login${this.profile === "default" ? "" : ` --profile ${this.profile}`}`,
      );
    return stored as StoredProfile & { refreshToken: string };
  }

  /** The Admin API's bearer token: the stored one while it lasts, else a refresh (each refresh token works once). */
  async accessToken(): Promise<string> {
    this.signedIn();
    return withProfileLock(this.profile, async () => {
      const stored = this.signedIn();
      if (stored.idToken && (stored.idTokenExpiresAt ?? 0) - MARGIN_MS > Date.now()) return stored.idToken;
      let fresh: auth.AdminSession;
      try {
        fresh = await this.authApiAt(stored.authUrl).adminRefresh({
          adminRefresh: { refreshToken: stored.refreshToken },
        });
      } catch (error) {
        if (httpStatusOf(error) === 401) {
          writeProfile(this.profile, { ...stored, refreshToken: undefined, idToken: undefined, idTokenExpiresAt: undefined });
        }
        throw error;
      }
      writeProfile(this.profile, {
        ...stored,
        refreshToken: fresh.refreshToken,
        idToken: fresh.idToken,
        idTokenExpiresAt: Date.now() + fresh.expiresIn * 1000,
      });
      return fresh.idToken;
    });
  }

  /** Forgets the idToken the API refused (unless another command renewed it since), so that the next call refreshes. */
  async forgetAccessToken(refused: string): Promise<void> {
    await withProfileLock(this.profile, async () => {
      const stored = readProfile(this.profile);
      if (stored?.idToken === refused) writeProfile(this.profile, { ...stored, idToken: undefined, idTokenExpiresAt: undefined });
    });
  }

  /** The profile's API addresses, unless a flag or the environment names others. */
  urls(): Endpoints {
    return endpointsOf(this.values, this.signedIn());
  }

  adminConfiguration(): admin.Configuration {
    return new admin.Configuration({ basePath: this.urls().adminUrl, accessToken: () => this.accessToken() });
  }

  /** The Integration API as the integration's test merchant account (its test tokens). */
  async testMerchantConfiguration(): Promise<integration.Configuration> {
    const tokens = await new admin.SandboxApi(this.adminConfiguration()).createTestTokens();
    return new integration.Configuration({ basePath: this.urls().integrationUrl, accessToken: tokens.idToken });
  }
}
