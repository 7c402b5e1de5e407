// The admins' side in tests: sign in, call the Admin API; for the integration admin, simulated transfers
// and the Sandbox clock.
import { bearerCaller, postJson, read, type ApiCall, type TestService } from "./service.ts";
import type { SandboxCredentials } from "../../domain/identity/sandbox-bootstrap.ts";

export interface SignedInAdmin {
  /** The admin's idToken. */
  token: string;
  /** A call to the Admin API as this admin. */
  call: ApiCall;
}

export interface SandboxAdmin extends SignedInAdmin {
  simulate(body: { cvu: string; amount: number; cuil?: string; fechaOperacion?: string; forcePspFailure?: boolean }): Promise<Awaited<ReturnType<typeof read>>>;
  advanceClock(body: { advanceBy?: string; advanceTo?: string }): Promise<Awaited<ReturnType<typeof read>>>;
  clock(): Promise<Awaited<ReturnType<typeof read>>>;
}

/** Signs in an integration or platform admin of `t`. */
export async function signedInAdmin(t: TestService, credentials: { email: string; password: string }): Promise<SignedInAdmin> {
  const login = await read(await postJson(`${t.authUrl}/integration/admin/login`, credentials));
  const token: string = login.json.idToken;
  return { token, call: bearerCaller(t.adminUrl, () => token) };
}

/** The integration admin of a Sandbox set. */
export async function sandboxAdmin(t: TestService, sandbox: SandboxCredentials): Promise<SandboxAdmin> {
  const { token, call } = await signedInAdmin(t, sandbox.integrationAdmin);
  return {
    token,
    call,
    simulate: ({ cvu, amount, cuil = "20301234563", fechaOperacion, forcePspFailure }) =>
      call("POST", "/my-integration/simulate-payment", {
        externalAccountCvu: "0000003100000000000017",
        externalAccountCuil: cuil,
        externalAccountName: "Juan Pérez",
        cvu,
        amount,
        ...(fechaOperacion ? { fechaOperacion } : {}),
        ...(forcePspFailure !== undefined ? { forcePspFailure } : {}),
      }),
    advanceClock: (body) => call("POST", "/my-integration/sandbox-clock", body),
    clock: () => call("GET", "/my-integration/sandbox-clock"),
  };
}
