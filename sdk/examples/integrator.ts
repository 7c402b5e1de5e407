// An integrator's backend against a local Cobro Sandbox, end to end, with @cobro/sdk as an integrator
// uses it (imported by its package name, so it runs the built package: dist/, not the sources):
//
//   1. link the merchant account through OAuth (authorization URL with state and PKCE, code exchange);
//   2. start a webhook receiver and register it with the Admin API (the integration admin's side);
//   3. create a charge (createOrGet: the retry guidance), for a due date the Sandbox's clock allows;
//   4. simulate the payer's transfer (Admin API, POST /my-integration/simulate-payment);
//   5. receive the payment_received webhook and verify its signature (verifyWebhookSignature);
//   6. read the charge back and print its state;
//   7. delete the webhook URL it registered (in a `finally`): left behind, it would keep receiving the
//      integration's events (the most recently registered webhook URL receives them) after the receiver is gone.
//
// Run it (Node 22.18 or later runs TypeScript as is; see README.md in this folder):
//   npm run build --prefix sdk
//   node sdk/examples/integrator.ts .data/sandbox.json     # or COBRO_SANDBOX_FILE=…, or COBRO_SANDBOX_JSON='{…}'
// The Sandbox file is what `npm start` writes on its first start, or `npm run sandbox:bootstrap -- --json`
// prints. For step 5 the Sandbox must accept a webhook URL on loopback: start it with
// COBRO_ALLOW_LOOPBACK_URLS=true (otherwise that step is skipped, and said so).
//
// The last line printed is a JSON summary: {"referenceId", "state", "webhook"}.
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import {
  admin,
  auth,
  CobroClient,
  CobroOAuth,
  createOrGet,
  errorBodyOf,
  httpStatusOf,
  verifyWebhookSignature,
  webhookSignatureProblem,
  WEBHOOK_ID_HEADER,
  WEBHOOK_SIGNATURE_HEADER,
} from "@cobro/sdk";

interface SandboxFile {
  integrationApiUrl: string;
  authApiUrl: string;
  adminApiUrl: string;
  integration: { clientId: string; clientSecret: string; redirectUri: string };
  integrationAdmin: { email: string; password: string };
  merchant: { email: string; password: string };
}

interface WebhookDelivery {
  id: string | undefined;
  rawBody: Buffer;
  signature: string | undefined;
  event: { event?: string; referenceId?: string; stateType?: string };
}

const say = (message: string) => console.log(`[integrator] ${message}`);

function readSandbox(): SandboxFile {
  const path = process.argv[2] ?? process.env.COBRO_SANDBOX_FILE;
  const text = path ? readFileSync(path, "utf8") : process.env.COBRO_SANDBOX_JSON;
  if (!text) throw new Error("pass the Sandbox file (node integrator.ts sandbox.json), or set COBRO_SANDBOX_FILE or COBRO_SANDBOX_JSON");
  return JSON.parse(text) as SandboxFile;
}

/**
 * WHAT THE MERCHANT'S BROWSER DOES, not the integrator's code: open the authorization URL, sign in on
 * Cobro's screen, follow the redirect back to the integration's redirect URI. Done here over plain HTTP
 * so that the example runs unattended: read the form's hidden fields and its CSRF cookie, post the
 * merchant's email and password, and take the `Location` of the 303 instead of following it.
 */
async function browserSignsIn(authorizationUrl: string, merchant: { email: string; password: string }): Promise<URL> {
  const screen = await fetch(authorizationUrl);
  const page = await screen.text();
  if (screen.status !== 200) throw new Error(`the authorization screen answered ${screen.status}: ${page.slice(0, 200)}`);
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page)?.[1] ?? "";
  const action = new URL(/<form[^>]*action="([^"]+)"/.exec(page)?.[1] ?? "/integration/oauth2/complete-login", authorizationUrl);
  const cookie = (screen.headers.get("set-cookie") ?? "").split(";")[0]!;
  const signIn = await fetch(action, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie },
    body: new URLSearchParams({ transaction: field("transaction"), csrf: field("csrf"), email: merchant.email, password: merchant.password }),
  });
  const location = signIn.headers.get("location");
  if (signIn.status !== 303 || !location) throw new Error(`the sign-in answered ${signIn.status}: ${(await signIn.text()).slice(0, 200)}`);
  return new URL(location);
}

/** The integrator's webhook endpoint: keeps the raw body (the signature is over the exact bytes). */
async function startWebhookReceiver(onDelivery: (delivery: WebhookDelivery) => void): Promise<{ url: string; close: () => void }> {
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const rawBody = Buffer.concat(chunks);
      let event: WebhookDelivery["event"] = {};
      try {
        event = JSON.parse(rawBody.toString("utf8")) as WebhookDelivery["event"];
      } catch {
        // not JSON: answered below, and never trusted
      }
      onDelivery({
        id: req.headers[WEBHOOK_ID_HEADER.toLowerCase()] as string | undefined,
        rawBody,
        signature: req.headers[WEBHOOK_SIGNATURE_HEADER.toLowerCase()] as string | undefined,
        event,
      });
      res.writeHead(200).end(); // answer fast; do the work after (here: in main)
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/webhooks/cobro`, close: () => server.close() };
}

/** The Sandbox's "today" for this integration (its clock may have been moved), plus `days`. */
function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

async function main(): Promise<void> {
  const sandbox = readSandbox();
  const { clientId, clientSecret, redirectUri } = sandbox.integration;

  // 1. Link the merchant account (OAuth 2.0 authorization code with PKCE).
  const oauth = new CobroOAuth({ authUrl: sandbox.authApiUrl, clientId, clientSecret });
  const { url, state, codeVerifier } = oauth.authorizationUrl({ redirectUri });
  say(`send the merchant's browser to ${url}`);
  const callback = await browserSignsIn(url, sandbox.merchant);
  if (callback.searchParams.get("state") !== state) throw new Error("the state that came back is not ours: refuse the callback");
  const code = callback.searchParams.get("code");
  if (!code) throw new Error(`no code in the callback: ${callback}`);
  const tokens = await oauth.exchangeCode({ code, redirectUri, codeVerifier });
  say(`merchant linked: idToken for ${tokens.expiresIn} s; keep the refreshToken`);
  const cobro = new CobroClient({ integrationUrl: sandbox.integrationApiUrl, authUrl: sandbox.authApiUrl, clientId, clientSecret, tokens });
  const me = await cobro.merchant.getMe();
  say(`acting for merchant account ${me.merchantUserId} (${me.fantasyName ?? me.email})`);

  // The integration admin's side (usually done once, in the Admin API's console): an admin session.
  const session = await new auth.AdminSessionApi(new auth.Configuration({ basePath: sandbox.authApiUrl })).adminLogin({ adminLogin: sandbox.integrationAdmin });
  const adminConfiguration = new admin.Configuration({ basePath: sandbox.adminApiUrl, accessToken: session.idToken });
  const sandboxTools = new admin.SandboxApi(adminConfiguration);

  // 2. The webhook endpoint, registered as the integration's webhook URL (Cobro pings it on registration).
  const deliveries: WebhookDelivery[] = [];
  let arrived: () => void = () => {};
  const receiver = await startWebhookReceiver((delivery) => {
    deliveries.push(delivery);
    arrived();
  });
  const clientUrls = new admin.ClientURLsApi(adminConfiguration);
  let registeredUrlId: string | undefined;
  let signingSecret: string | undefined;
  let summary: { referenceId: string; state: string | undefined; webhook: string } | undefined;
  try {
    try {
      const registered = await clientUrls.createClientUrl({ clientUrlCreate: { url: receiver.url, urlType: "webhook" } });
      registeredUrlId = registered.clientUrlId;
      signingSecret = (await new admin.WebhooksApi(adminConfiguration).getWebhookSigningSecret()).webhookSigningSecret;
      say(`webhook URL ${receiver.url} registered (ping: ${registered.verification?.status ?? "not sent"}, receives the events: ${registered.receivesEvents})`);
    } catch (error) {
      const status = httpStatusOf(error);
      const body = (await errorBodyOf(error)) as { code?: string; message?: string } | undefined;
      if (status === 501) say("SKIPPED the webhook step: this Cobro does not deliver webhooks yet (registering a URL answers 501)");
      else if (status === 400)
        say(`SKIPPED the webhook step: the Sandbox refused a loopback URL (${body?.code}); start it with COBRO_ALLOW_LOOPBACK_URLS=true`);
      else throw error;
    }

    // 3. A charge, due 5 days after the Sandbox's today. createOrGet is safe to call again after a
    //    timeout or a 5xx: the referenceId is the idempotency key.
    const clock = await sandboxTools.getSandboxClock();
    const referenceId = `EXAMPLE-${Date.now().toString(36)}`;
    const { outcome, paymentRequest } = await createOrGet(cobro.paymentRequests, {
      referenceId,
      description: "Cuota de diciembre",
      dueDates: [addDays(clock.today, 5)],
      amount: 1500.5,
      // Reconciled by the payer's CUIL (recommended): the transfer below comes from this CUIL.
      conciliationType: "cuil",
      customer: { name: "Juan Pérez", taxDocument: "20301234563" },
      sendWhatsappNotification: false,
      sendEmailNotification: false,
    });
    const cvu = paymentRequest.cVU; // the generator's name for the contract's `CVU`
    if (!cvu) throw new Error(`charge ${referenceId} holds no CVU`);
    say(`charge ${referenceId} ${outcome}: ${paymentRequest.state}, pay ${paymentRequest.amount} to CVU ${cvu}`);

    // 4. The payer transfers (simulated: the Sandbox's stand-in for the bank).
    const webhookArrived = new Promise<void>((resolve) => {
      arrived = () => deliveries.some((delivery) => delivery.event.referenceId === referenceId) && resolve();
    });
    const transfer = await sandboxTools.simulatePayment({
      simulatePaymentRequest: {
        cvu,
        amount: 1500.5,
        externalAccountCvu: "0000003100000000000017",
        externalAccountCuil: "20301234563",
        externalAccountName: "Juan Pérez",
      },
    });
    say(
      `transfer ${transfer.idTransaccion}: conciliated ${transfer.conciliated}, webhook ${transfer.webhookEvent ?? "none"}${transfer.webhookWillFire ? " will fire" : ""}`,
    );

    // 5. The webhook: verify the signature over the raw body before trusting anything in it.
    let webhook = "skipped";
    if (signingSecret !== undefined) {
      const timeoutMs = Number(process.env.COBRO_WEBHOOK_TIMEOUT_MS ?? 15_000);
      const timedOut = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), timeoutMs).unref());
      if ((await Promise.race([webhookArrived, timedOut])) === "timeout") throw new Error(`no webhook for ${referenceId} within ${timeoutMs} ms`);
      const delivery = deliveries.find((item) => item.event.referenceId === referenceId)!;
      const problem = webhookSignatureProblem(delivery.rawBody, delivery.signature, signingSecret);
      if (!verifyWebhookSignature(delivery.rawBody, delivery.signature, signingSecret)) throw new Error(`webhook ${delivery.id}: bad signature (${problem})`);
      say(`webhook ${delivery.id} verified: ${delivery.event.event}, stateType ${delivery.event.stateType} (deduplicate by ${WEBHOOK_ID_HEADER})`);
      webhook = "verified";
    }

    // 6. Read the charge back.
    const charge = await cobro.paymentRequests.getPaymentRequest({ referenceId });
    say(`charge ${referenceId} is ${charge.state}`);
    summary = { referenceId, state: charge.state, webhook };
  } finally {
    receiver.close();
    // 7. The receiver is gone: delete its URL, or it would keep the integration's events from the
    //    webhook URL registered before it (which receives them again once this one is deleted).
    if (registeredUrlId !== undefined) {
      await clientUrls.deleteClientUrl({ clientUrlId: registeredUrlId });
      say(`webhook URL ${receiver.url} deleted`);
    }
  }
  console.log(JSON.stringify(summary));
}

main().catch(async (error: unknown) => {
  const body = await errorBodyOf(error);
  console.error(`[integrator] failed: ${error instanceof Error ? error.message : String(error)}${body ? ` ${JSON.stringify(body)}` : ""}`);
  process.exit(1);
});
