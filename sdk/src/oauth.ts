// Linking a merchant account to an integration with OAuth 2.0 (authorization code, PKCE S256), and the
// token calls of the Auth API in the JSON form Cobro documents (`POST /integration/oauth2/token`,
// `/refresh`, `/revoke` with camelCase bodies and the client secret in the body). These run on the
// integrator's backend: the client secret never goes to a browser.
import { createHash, randomBytes } from "node:crypto";
import { Configuration, OAuthApi, type FetchAPI, type RefreshedToken, type TokenSet } from "./generated/auth/index.js";

export interface CobroOAuthOptions {
  /** The Auth API's base URL, e.g. `https://auth.sandbox.cobro.example` (no trailing path). */
  authUrl: string;
  clientId: string;
  clientSecret: string;
  /** A fetch implementation; default: the global `fetch`. */
  fetchApi?: FetchAPI;
}

export interface AuthorizationRequest {
  /** Must be identical to a registered redirect URI (protocol, host, path, trailing slash). */
  redirectUri: string;
  /** Default on the service: `openid email profile`. */
  scope?: string;
  /** A random one is made when omitted. Keep it (e.g. in the session) and compare it on return. */
  state?: string;
  /** A random one is made when omitted. Keep it for the code exchange. */
  codeVerifier?: string;
}

export interface AuthorizationStart {
  /** Where to send the merchant's browser. */
  url: string;
  state: string;
  codeVerifier: string;
}

export interface CodeExchangeRequest {
  /** The `code` query parameter of the redirect. */
  code: string;
  /** The same `redirectUri` as in the authorization URL. */
  redirectUri: string;
  /** The PKCE verifier kept from `authorizationUrl`. */
  codeVerifier?: string;
}

/** 32 random bytes, base64url: a `state` or a PKCE verifier (43 characters, as RFC 7636 asks). */
export function randomToken(): string {
  return randomBytes(32).toString("base64url");
}

/** The S256 PKCE challenge of a verifier: base64url(SHA-256(verifier)). */
export function pkceChallenge(codeVerifier: string): string {
  return createHash("sha256").update(codeVerifier, "ascii").digest("base64url");
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

/**
 * The OAuth side of an integration. One instance per integration (client id and secret):
 *
 * ```ts
 * const oauth = new CobroOAuth({ authUrl, clientId, clientSecret });
 * const { url, state, codeVerifier } = oauth.authorizationUrl({ redirectUri });   // keep state and verifier
 * // … the merchant signs in and comes back to redirectUri?code=…&state=…
 * const tokens = await oauth.exchangeCode({ code, redirectUri, codeVerifier });   // store tokens.refreshToken
 * ```
 */
export class CobroOAuth {
  readonly authUrl: string;
  readonly clientId: string;
  readonly #clientSecret: string;
  readonly #api: OAuthApi;

  constructor(options: CobroOAuthOptions) {
    this.authUrl = trimSlash(options.authUrl);
    this.clientId = options.clientId;
    this.#clientSecret = options.clientSecret;
    this.#api = new OAuthApi(new Configuration({ basePath: this.authUrl, fetchApi: options.fetchApi }));
  }

  /** The authorization URL with `state` and a PKCE S256 challenge; keep the returned `state` and `codeVerifier`. */
  authorizationUrl(request: AuthorizationRequest): AuthorizationStart {
    const state = request.state ?? randomToken();
    const codeVerifier = request.codeVerifier ?? randomToken();
    const url = new URL(`${this.authUrl}/integration/oauth2/authorize`);
    url.searchParams.set("response_type", "code");
    url.searchParams.set("client_id", this.clientId);
    url.searchParams.set("redirect_uri", request.redirectUri);
    url.searchParams.set("state", state);
    if (request.scope !== undefined) url.searchParams.set("scope", request.scope);
    url.searchParams.set("code_challenge", pkceChallenge(codeVerifier));
    url.searchParams.set("code_challenge_method", "S256");
    return { url: url.toString(), state, codeVerifier };
  }

  /**
   * Exchanges the authorization code for tokens. Store the `refreshToken` (180 days, not rotated); the
   * `idToken` lasts `expiresIn` seconds. `CobroClient` keeps both and refreshes for you.
   */
  async exchangeCode(request: CodeExchangeRequest, init?: RequestInit): Promise<TokenSet> {
    const answer = await this.#api.exchangeToken(
      {
        codeExchange: {
          grantType: "authorization_code",
          code: request.code,
          clientId: this.clientId,
          clientSecret: this.#clientSecret,
          redirectUri: request.redirectUri,
          ...(request.codeVerifier !== undefined ? { codeVerifier: request.codeVerifier } : {}),
        },
      },
      init,
    );
    // The endpoint answers the JSON form (TokenSet) to a JSON request; the standard form belongs to
    // form-encoded requests of generic OAuth clients.
    if (!("refreshToken" in answer) || !("idToken" in answer) || typeof answer.refreshToken !== "string") {
      throw new Error("the token endpoint did not answer a TokenSet");
    }
    return answer as TokenSet;
  }

  /** A new `idToken` for a stored `refreshToken`. */
  async refresh(refreshToken: string, init?: RequestInit): Promise<RefreshedToken> {
    return this.#api.refreshToken(
      { refreshRequest: { grantType: "refresh_token", refreshToken, clientId: this.clientId, clientSecret: this.#clientSecret } },
      init,
    );
  }

  /** Revokes a refresh token (and the idTokens issued from it). Succeeds for unknown or already revoked tokens too. */
  async revoke(token: string, tokenTypeHint: "refresh_token" | "id_token" = "refresh_token", init?: RequestInit): Promise<void> {
    await this.#api.revokeToken({ revokeRequest: { token, tokenTypeHint, clientId: this.clientId, clientSecret: this.#clientSecret } }, init);
  }
}
