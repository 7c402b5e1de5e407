// The admins' side in tests: sign in, call the Admin API; for the integration admin, simulated transfers
// and the Sandbox clock.
import { expect } from "vitest";
import { bearerCaller, linkedMerchant, postJson, read, type ApiCall, type TestService } from "./service.ts";
import type { SandboxCredentials } from "../../domain/sandbox/sandbox-bootstrap.ts";
import type { components } from "../../generated/types/admin.ts";

export type EventRecord = components["schemas"]["EventRecord"];

export interface SignedInAdmin {
  /** The admin's idToken. */
  token: string;
  /** A call to the Admin API as this admin. */
  call: ApiCall;
}

export type SimulatedTransfer = { cvu: string; amount: number; cuil?: string; fechaOperacion?: string; forcePspFailure?: boolean };

export interface SandboxAdmin extends SignedInAdmin {
  simulate(body: SimulatedTransfer): Promise<Awaited<ReturnType<typeof read>>>;
  advanceClock(body: { advanceBy?: string; advanceTo?: string }): Promise<Awaited<ReturnType<typeof read>>>;
  clock(): Promise<Awaited<ReturnType<typeof read>>>;
  /**
   * The integration's events as GET /my-integration/events lists them (`event` filters by name), oldest
   * first; events of the same instant come in no set order. Fails if they do not fit one page of 100.
   */
  events(event?: string): Promise<EventRecord[]>;
}

/** Signs in an integration or platform admin of `t`. */
export async function signedInAdmin(t: TestService, credentials: { email: string; password: string }): Promise<SignedInAdmin> {
  const login = await read(await postJson(`${t.authUrl}/integration/admin/login`, credentials));
  const token: string = login.json.idToken;
  return { token, call: bearerCaller(t.adminUrl, () => token) };
}

/** A transfer simulated in the Sandbox (`POST /my-integration/simulate-payment`) by an integration admin's `call`, from Juan Pérez's account. */
export function simulatePayment(call: ApiCall, { cvu, amount, cuil = "20301234563", fechaOperacion, forcePspFailure }: SimulatedTransfer) {
  return call("POST", "/my-integration/simulate-payment", {
    externalAccountCvu: "0000003100000000000017",
    externalAccountCuil: cuil,
    externalAccountName: "Juan Pérez",
    cvu,
    amount,
    ...(fechaOperacion ? { fechaOperacion } : {}),
    ...(forcePspFailure !== undefined ? { forcePspFailure } : {}),
  });
}

/** The integration admin of a Sandbox set. */
export async function sandboxAdmin(t: TestService, sandbox: SandboxCredentials): Promise<SandboxAdmin> {
  const { token, call } = await signedInAdmin(t, sandbox.integrationAdmin);
  return {
    token,
    call,
    simulate: (body) => simulatePayment(call, body),
    advanceClock: (body) => call("POST", "/my-integration/sandbox-clock", body),
    clock: () => call("GET", "/my-integration/sandbox-clock"),
    events: async (event) => {
      const listed = await call("GET", `/my-integration/events?limit=100${event === undefined ? "" : `&event=${encodeURIComponent(event)}`}`);
      if (listed.status !== 200 || listed.json.total > 100) throw new Error(`GET /my-integration/events: ${listed.status} ${listed.text.slice(0, 500)}`);
      return (listed.json.items as EventRecord[]).reverse();
    },
  };
}

/**
 * A fresh Sandbox integration (its own Sandbox clock): its linked merchant, its admin, and a charge create
 * that expects 201 and answers the created charge.
 */
export async function sandboxIntegration(t: TestService) {
  const merchant = await linkedMerchant(t);
  const admin = await sandboxAdmin(t, merchant.sandbox);
  const createCharge = async (body: object) => {
    const result = await merchant.call("POST", "/payment-request", body);
    expect(result.status, JSON.stringify(result.json)).toBe(201);
    return result.json;
  };
  return { merchant, admin, createCharge };
}

/** The URLs registered for an integration (its client_urls), by its clientId: an example must leave none of its own behind. */
export async function registeredUrlsOf(t: TestService, clientId: string): Promise<string[]> {
  const rows = await t.database.db
    .selectFrom("client_urls as u")
    .innerJoin("integration_clients as c", "c.id", "u.integration_client_id")
    .select("u.url")
    .where("c.provider_client_id", "=", clientId)
    .execute();
  return rows.map((row) => row.url);
}
