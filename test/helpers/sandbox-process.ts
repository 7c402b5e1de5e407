// A Sandbox run as `npm start` runs it (scripts/cobro-process.ts), reached over HTTP only: the URLs it
// prints, its integration admin and test merchant signed in from its sandbox.json, and charges made and
// paid through its APIs.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { servedUrls, startCobro, waitForOutput, type StartedCobro } from "../../scripts/cobro-process.ts";
import { postJson, read } from "./service.ts";

export interface SandboxUrls {
  integration: string;
  auth: string;
  admin: string;
}

/** Started on `dataDir` and serving: the URLs it prints. */
export async function startServingSandbox(dataDir: string, extra: Record<string, string> = {}): Promise<{ cobro: StartedCobro; urls: SandboxUrls }> {
  const cobro = startCobro({ COBRO_DATA_DIR: dataDir, ...extra });
  await waitForOutput(cobro, /worker\s+running/);
  return { cobro, urls: allServedUrls(cobro.output()) };
}

/** The three APIs' URLs a Sandbox serving them all printed (servedUrls), each required. */
export function allServedUrls(output: string): SandboxUrls {
  const urls = servedUrls(output);
  expect(Object.keys(urls).sort()).toEqual(["admin", "auth", "integration"]);
  return urls as SandboxUrls;
}

/** The integration admin of `<dataDir>/sandbox.json` and the integration's test merchant, signed in: their bearer tokens. */
export async function signInSandbox(dataDir: string, urls: SandboxUrls): Promise<{ admin: string; merchant: string }> {
  const sandbox = JSON.parse(readFileSync(join(dataDir, "sandbox.json"), "utf8")) as { integrationAdmin: { email: string; password: string } };
  const login = await read(await postJson(`${urls.auth}/integration/admin/login`, sandbox.integrationAdmin));
  expect(login.status, login.text).toBe(200);
  const admin = login.json.idToken as string;
  const tokens = await read(await fetch(`${urls.admin}/my-integration/test-tokens`, { method: "POST", headers: { authorization: `Bearer ${admin}` } }));
  expect(tokens.status, tokens.text).toBe(200);
  return { admin, merchant: tokens.json.idToken as string };
}

/** A due date `days` after the integration's Sandbox day. */
export async function sandboxDueDate(urls: SandboxUrls, admin: string, days: number): Promise<string> {
  const clock = await read(await fetch(`${urls.admin}/my-integration/sandbox-clock`, { headers: { authorization: `Bearer ${admin}` } }));
  expect(clock.status, clock.text).toBe(200);
  return new Date(Date.parse(`${clock.json.today as string}T12:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/** A POST /payment-request body: $1500.50 from Juan Pérez, without notifications. */
export function sandboxChargeBody(referenceId: string, dueDate: string) {
  return {
    referenceId,
    description: "Cuota",
    dueDates: [dueDate],
    amount: 1500.5,
    customer: { name: "Juan Pérez" },
    sendWhatsappNotification: false,
    sendEmailNotification: false,
  };
}

/** A POST /my-integration/simulate-payment body: the whole $1500.50 to the CVU. */
export function simulatedPaymentBody(cvu: string) {
  return { cvu, amount: 1500.5, externalAccountCvu: "0000003100000000000017", externalAccountCuil: "20301234563", externalAccountName: "Juan Pérez" };
}

export async function createSandboxCharge(urls: SandboxUrls, merchant: string, referenceId: string, dueDate: string): Promise<{ CVU: string }> {
  const created = await read(
    await postJson(`${urls.integration}/payment-request`, sandboxChargeBody(referenceId, dueDate), { authorization: `Bearer ${merchant}` }),
  );
  expect(created.status, created.text).toBe(201);
  return created.json;
}

export async function paySandboxCharge(urls: SandboxUrls, admin: string, cvu: string): Promise<void> {
  const payment = await read(await postJson(`${urls.admin}/my-integration/simulate-payment`, simulatedPaymentBody(cvu), { authorization: `Bearer ${admin}` }));
  expect(payment.status, payment.text).toBe(200);
  expect(payment.json.conciliated).toBe(true);
}

export async function readSandboxCharge(urls: SandboxUrls, merchant: string, referenceId: string) {
  return read(await fetch(`${urls.integration}/payment-request/${referenceId}`, { headers: { authorization: `Bearer ${merchant}` } }));
}
