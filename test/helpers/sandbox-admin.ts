// The integration admin's side in tests: simulated transfers and the Sandbox clock, through the Admin API.
import { postJson, read, type TestService } from "./service.ts";
import type { SandboxCredentials } from "../../domain/identity/sandbox-bootstrap.ts";

export interface SandboxAdmin {
  simulate(body: { cvu: string; amount: number; cuil?: string; fechaOperacion?: string; forcePspFailure?: boolean }): Promise<Awaited<ReturnType<typeof read>>>;
  advanceClock(body: { advanceBy?: string; advanceTo?: string }): Promise<Awaited<ReturnType<typeof read>>>;
  clock(): Promise<Awaited<ReturnType<typeof read>>>;
  token: string;
}

export async function sandboxAdmin(t: TestService, sandbox: SandboxCredentials): Promise<SandboxAdmin> {
  const login = await read(await postJson(`${t.authUrl}/integration/admin/login`, sandbox.integrationAdmin));
  const token: string = login.json.idToken;
  const headers = { authorization: `Bearer ${token}` };
  return {
    token,
    simulate: async ({ cvu, amount, cuil = "20301234563", fechaOperacion, forcePspFailure }) =>
      read(
        await postJson(
          `${t.adminUrl}/my-integration/simulate-payment`,
          {
            externalAccountCvu: "0000003100000000000017",
            externalAccountCuil: cuil,
            externalAccountName: "Juan Pérez",
            cvu,
            amount,
            ...(fechaOperacion ? { fechaOperacion } : {}),
            ...(forcePspFailure !== undefined ? { forcePspFailure } : {}),
          },
          headers,
        ),
      ),
    advanceClock: async (body) => read(await postJson(`${t.adminUrl}/my-integration/sandbox-clock`, body, headers)),
    clock: async () => read(await fetch(`${t.adminUrl}/my-integration/sandbox-clock`, { headers })),
  };
}
