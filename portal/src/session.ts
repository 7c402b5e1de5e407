// The admin's session in the portal. The idToken lives in memory only; the refreshToken in this tab's
// sessionStorage, so a reload stays signed in (it is never put in a URL nor logged). Each refresh token
// works once: every refresh stores the new one. The idToken is renewed a minute before it expires, and
// once when the page loads.
import { AdminSessionApi, Configuration, type AdminSession } from "@cobro/sdk/auth";

const REFRESH_TOKEN_KEY = "cobro.portal.refreshToken";
const REFRESH_MARGIN_MS = 60_000;

export type AdminRole = "INTEGRATION_ADMIN" | "PLATFORM_ADMIN";

/** Who is signed in, as the idToken's claims say (the Admin API verifies the token; the portal only reads it). */
export interface SignedInAdmin {
  email: string;
  role: AdminRole;
  integrationClientId: string | null;
}

export type SessionState =
  | { status: "restoring" }
  | { status: "signed-out"; notice?: string }
  | { status: "signed-in"; admin: SignedInAdmin; passwordChangeRequired: boolean };

/** The claims of an admin idToken (domain/sign-in/tokens.ts names them), without verifying it. */
export function adminOfIdToken(idToken: string): SignedInAdmin {
  const payload = idToken.split(".")[1] ?? "";
  const bytes = Uint8Array.from(atob(payload.replace(/-/g, "+").replace(/_/g, "/")), (char) => char.charCodeAt(0));
  const claims = JSON.parse(new TextDecoder().decode(bytes)) as { email?: unknown; role?: unknown; integration_client_id?: unknown };
  return {
    email: typeof claims.email === "string" ? claims.email : "",
    role: claims.role === "PLATFORM_ADMIN" ? "PLATFORM_ADMIN" : "INTEGRATION_ADMIN",
    integrationClientId: typeof claims.integration_client_id === "string" ? claims.integration_client_id : null,
  };
}

export class PortalSession {
  readonly #auth = new AdminSessionApi(new Configuration({ basePath: "/portal/auth-api", accessToken: () => this.idToken() }));
  #state: SessionState = { status: "restoring" };
  #idToken: string | undefined;
  #expiresAt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #refreshing: Promise<string> | undefined;
  readonly #listeners = new Set<(state: SessionState) => void>();

  get state(): SessionState {
    return this.#state;
  }

  subscribe(listener: (state: SessionState) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #set(state: SessionState): void {
    this.#state = state;
    for (const listener of this.#listeners) listener(state);
  }

  /** On page load: a stored refresh token gives a new session, or the sign-in screen. */
  async restore(): Promise<void> {
    if (sessionStorage.getItem(REFRESH_TOKEN_KEY) === null) return this.#set({ status: "signed-out" });
    try {
      await this.#refresh();
    } catch {
      this.#end("Tu sesión terminó. Ingresá de nuevo.");
    }
  }

  async signIn(email: string, password: string): Promise<void> {
    this.#start(await this.#auth.adminLogin({ adminLogin: { email, password } }));
  }

  async changePassword(currentPassword: string, newPassword: string): Promise<void> {
    await this.#auth.adminChangePassword({ adminPasswordChange: { currentPassword, newPassword } });
    if (this.#state.status === "signed-in") this.#set({ ...this.#state, passwordChangeRequired: false });
  }

  /** Answers the same whether or not the account exists. */
  async requestPasswordReset(email: string): Promise<void> {
    await this.#auth.requestAdminPasswordReset({ adminPasswordResetRequest: { email } });
  }

  async signOut(): Promise<void> {
    const refreshToken = sessionStorage.getItem(REFRESH_TOKEN_KEY);
    this.#end();
    if (refreshToken !== null) await this.#auth.adminLogout({ adminRefresh: { refreshToken } }).catch(() => undefined);
  }

  /** The Bearer of the Admin API: the current idToken, renewed first when it is about to expire. */
  async idToken(): Promise<string> {
    if (this.#idToken !== undefined && Date.now() < this.#expiresAt - REFRESH_MARGIN_MS) return this.#idToken;
    return this.#refresh().catch((error: unknown) => {
      this.#end("Tu sesión terminó. Ingresá de nuevo.");
      throw error;
    });
  }

  #refresh(): Promise<string> {
    this.#refreshing ??= (async () => {
      try {
        const refreshToken = sessionStorage.getItem(REFRESH_TOKEN_KEY);
        if (refreshToken === null) throw new Error("no session to renew");
        return this.#start(await this.#auth.adminRefresh({ adminRefresh: { refreshToken } }));
      } finally {
        this.#refreshing = undefined;
      }
    })();
    return this.#refreshing;
  }

  #start(session: AdminSession): string {
    this.#idToken = session.idToken;
    this.#expiresAt = Date.now() + session.expiresIn * 1000;
    sessionStorage.setItem(REFRESH_TOKEN_KEY, session.refreshToken);
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.idToken().catch(() => undefined), Math.max(0, this.#expiresAt - REFRESH_MARGIN_MS - Date.now()));
    this.#set({ status: "signed-in", admin: adminOfIdToken(session.idToken), passwordChangeRequired: session.passwordChangeRequired });
    return session.idToken;
  }

  #end(notice?: string): void {
    clearTimeout(this.#timer);
    this.#idToken = undefined;
    this.#expiresAt = 0;
    sessionStorage.removeItem(REFRESH_TOKEN_KEY);
    this.#set({ status: "signed-out", notice });
  }
}

export const session = new PortalSession();
