// The authorization code flow over plain HTTP (the browser test drives the real page): the merchant's
// side (open /authorize, read the form's hidden fields and CSRF cookie, post the sign-in) and the
// integrator's code exchange.
import { expect } from "vitest";
import { postJson, read } from "./service.ts";
import type { SandboxCredentials } from "../../domain/sandbox/sandbox-bootstrap.ts";

export interface SignInAttempt {
  status: number;
  location: string | null;
  page: string;
}

export function authorizeUrl(authUrl: string, params: Record<string, string | undefined>): string {
  const url = new URL("/integration/oauth2/authorize", authUrl);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

export async function openSignInForm(url: string): Promise<{ transaction: string; csrf: string; cookie: string; page: string }> {
  const response = await fetch(url);
  const page = await response.text();
  expect(response.status, page).toBe(200);
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(page)?.[1] ?? "";
  const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0]!;
  return { transaction: field("transaction"), csrf: field("csrf"), cookie, page };
}

export async function submitSignIn(
  authUrl: string,
  form: { transaction: string; csrf: string; cookie?: string },
  email: string,
  password: string,
): Promise<SignInAttempt> {
  const response = await fetch(`${authUrl}/integration/oauth2/complete-login`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(form.cookie ? { cookie: form.cookie } : {}) },
    body: new URLSearchParams({ transaction: form.transaction, csrf: form.csrf, email, password }).toString(),
  });
  return { status: response.status, location: response.headers.get("location"), page: await response.text() };
}

/** The integrator's exchange of a code with the seed's JSON POST /token; `overrides` replace fields of the body. */
export async function exchangeCode(
  authUrl: string,
  integration: { clientId: string; clientSecret: string; redirectUri: string },
  code: string,
  overrides: Record<string, string> = {},
): Promise<Awaited<ReturnType<typeof read>>> {
  return read(
    await postJson(`${authUrl}/integration/oauth2/token`, {
      grantType: "authorization_code",
      code,
      clientId: integration.clientId,
      clientSecret: integration.clientSecret,
      redirectUri: integration.redirectUri,
      ...overrides,
    }),
  );
}

/** What GET /me answers with the tokens of a Sandbox set's merchant, once linked through the flow. */
export function linkedSandboxMerchant(sandbox: SandboxCredentials) {
  return {
    merchantUserId: sandbox.merchant.merchantUserId,
    email: sandbox.merchant.email,
    fantasyName: "Almacén de Prueba",
    accountHolderName: "Almacén de Prueba S.R.L.",
    accountHolderTaxId: "30712345671",
    integration: { name: sandbox.integration.name },
    linkedAt: expect.stringMatching(/Z$/),
  };
}

/** Authorize and sign in; returns the code from the redirect. */
export async function obtainCode(
  authUrl: string,
  client: { clientId: string; redirectUri: string },
  merchant: { email: string; password: string },
  extra: Record<string, string> = {},
): Promise<string> {
  const form = await openSignInForm(
    authorizeUrl(authUrl, { response_type: "code", client_id: client.clientId, redirect_uri: client.redirectUri, state: "st-1", ...extra }),
  );
  const attempt = await submitSignIn(authUrl, form, merchant.email, merchant.password);
  expect(attempt.status, attempt.page).toBe(303);
  return new URL(attempt.location!).searchParams.get("code")!;
}
