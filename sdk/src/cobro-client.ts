// The Integration API for one linked merchant account: the generated clients, authenticated with the
// merchant's idToken, which is refreshed with the refreshToken shortly before it expires.
import {
  Configuration,
  HealthApi,
  MerchantApi,
  PayerLookupApi,
  PaymentRequestsApi,
  TenantApi,
  type FetchAPI,
  type Middleware,
} from "./generated/integration/index.js";
import { CobroOAuth } from "./oauth.js";

/** The tokens of one merchant account, as the code exchange gives them. */
export interface MerchantTokens {
  idToken: string;
  refreshToken: string;
  /**
   * When the idToken expires: a Date or milliseconds since the epoch. When omitted it is read from the
   * idToken's `exp` claim (the token is not verified; the service does that).
   */
  expiresAt?: Date | number;
  /** Seconds the idToken lasts from now (the `expiresIn` of the token endpoints); used when `expiresAt` is absent. */
  expiresIn?: number;
}

export interface CobroClientOptions {
  /** The Integration API's base URL. */
  integrationUrl: string;
  /** The Auth API's base URL (for the refresh). */
  authUrl: string;
  clientId: string;
  clientSecret: string;
  tokens: MerchantTokens;
  /** Refresh this many seconds before the idToken expires. Default 60. */
  refreshMarginSeconds?: number;
  /** Called after every refresh, e.g. to store the new idToken. */
  onTokensRefreshed?: (tokens: { idToken: string; refreshToken: string; expiresAt: Date }) => void | Promise<void>;
  /** A fetch implementation; default: the global `fetch`. */
  fetchApi?: FetchAPI;
  /** Middleware of the generated clients (logging, tracing). */
  middleware?: Middleware[];
  /** The clock, in milliseconds since the epoch. Default `Date.now`. */
  now?: () => number;
}

/** The `exp` claim of a JWT, in milliseconds, without verifying it; `undefined` when it has none. */
export function jwtExpiry(token: string): number | undefined {
  const payload = token.split(".")[1];
  if (payload === undefined) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { exp?: unknown };
    return typeof claims.exp === "number" ? claims.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * ```ts
 * const cobro = new CobroClient({ integrationUrl, authUrl, clientId, clientSecret, tokens: { idToken, refreshToken } });
 * const charge = await cobro.paymentRequests.createPaymentRequest({ paymentRequestCreate: { … } });
 * ```
 * Every request asks `getIdToken()` for the token, which refreshes it (once, however many requests wait)
 * when it is within `refreshMarginSeconds` of expiring.
 */
export class CobroClient {
  readonly paymentRequests: PaymentRequestsApi;
  readonly payerLookup: PayerLookupApi;
  readonly merchant: MerchantApi;
  readonly tenant: TenantApi;
  /** Health and readiness. */
  readonly service: HealthApi;
  readonly oauth: CobroOAuth;

  #idToken: string;
  #refreshToken: string;
  #expiresAt: number;
  #refreshing: Promise<string> | undefined;
  readonly #marginMs: number;
  readonly #now: () => number;
  readonly #onTokensRefreshed: CobroClientOptions["onTokensRefreshed"];

  constructor(options: CobroClientOptions) {
    this.#now = options.now ?? Date.now;
    this.#marginMs = (options.refreshMarginSeconds ?? 60) * 1000;
    this.#onTokensRefreshed = options.onTokensRefreshed;
    this.#idToken = options.tokens.idToken;
    this.#refreshToken = options.tokens.refreshToken;
    this.#expiresAt = CobroClient.#expiryOf(options.tokens, this.#now());
    this.oauth = new CobroOAuth({ authUrl: options.authUrl, clientId: options.clientId, clientSecret: options.clientSecret, fetchApi: options.fetchApi });
    const configuration = new Configuration({
      basePath: options.integrationUrl.replace(/\/+$/, ""),
      fetchApi: options.fetchApi,
      middleware: options.middleware,
      accessToken: () => this.getIdToken(),
    });
    this.paymentRequests = new PaymentRequestsApi(configuration);
    this.payerLookup = new PayerLookupApi(configuration);
    this.merchant = new MerchantApi(configuration);
    this.tenant = new TenantApi(configuration);
    this.service = new HealthApi(configuration);
  }

  static #expiryOf(tokens: MerchantTokens, now: number): number {
    if (tokens.expiresAt !== undefined) return tokens.expiresAt instanceof Date ? tokens.expiresAt.getTime() : tokens.expiresAt;
    if (tokens.expiresIn !== undefined) return now + tokens.expiresIn * 1000;
    // Unknown expiry: refresh before the first request.
    return jwtExpiry(tokens.idToken) ?? 0;
  }

  /** The current tokens (to store them). */
  get tokens(): { idToken: string; refreshToken: string; expiresAt: Date } {
    return { idToken: this.#idToken, refreshToken: this.#refreshToken, expiresAt: new Date(this.#expiresAt) };
  }

  /** A valid idToken: the current one, or a fresh one when it expires within the margin. */
  async getIdToken(): Promise<string> {
    if (this.#now() < this.#expiresAt - this.#marginMs) return this.#idToken;
    return this.refresh();
  }

  /** Refreshes the idToken now. Concurrent callers share one refresh. */
  refresh(): Promise<string> {
    this.#refreshing ??= this.#doRefresh().finally(() => {
      this.#refreshing = undefined;
    });
    return this.#refreshing;
  }

  async #doRefresh(): Promise<string> {
    const refreshed = await this.oauth.refresh(this.#refreshToken);
    this.#idToken = refreshed.idToken;
    this.#expiresAt = this.#now() + refreshed.expiresIn * 1000;
    await this.#onTokensRefreshed?.(this.tokens);
    return this.#idToken;
  }
}
