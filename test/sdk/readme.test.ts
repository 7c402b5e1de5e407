// Every ```ts block of sdk/README.md, compiled and run as an integrator's code against a live Sandbox, so
// that the README cannot drift from the SDK or the service. The blocks are stitched into a few programs of
// an integrator's project (test/sdk/integrator-project.ts: the SDK built from its sources into
// node_modules/@cobro/sdk): each program gets the variables the README says the integrator has
// (readme-context.ts, filled from a fresh Sandbox set), runs its blocks in the README's order with the
// stand-ins the blocks leave to the reader between them (the merchant's browser, a web server for the
// webhook handler, a payment to trigger a webhook), and reports what happened on `RESULT` lines. The
// programs are typechecked (strict, nodenext) against the package's declarations, then run with Node.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_CATALOG } from "../../domain/events/catalog.ts";
import { codeBlocks } from "../docs/code-blocks.ts";
import { openSignInForm, submitSignIn } from "../helpers/oauth.ts";
import { ROOT } from "../../scripts/cobro-process.ts";
import { postJson, read, serviceForFile } from "../helpers/service.ts";
import { createIntegratorProject, tearDownIntegratorProject, typecheckIntegratorProject } from "./integrator-project.ts";

const README = join(ROOT, "sdk", "README.md");
const blocks = codeBlocks(README, "ts");

/** The README block that contains `phrase` (exactly one must). */
function block(phrase: string): string {
  const matching = blocks.filter((text) => text.includes(phrase));
  expect(matching, `exactly one \`\`\`ts block of sdk/README.md contains ${JSON.stringify(phrase)}`).toHaveLength(1);
  return matching[0]!;
}

// What the README tells the reader they have, and the stand-ins for what a block leaves to them.
const CONTEXT_MODULE = `// The integrator's configuration for the README's blocks (filled by test/sdk/readme.test.ts).
import { errorBodyOf, httpStatusOf } from "@cobro/sdk";

// A failed call shows the service's answer, not only the client's stack.
process.on("uncaughtException", async (error) => {
  console.error(error, httpStatusOf(error), JSON.stringify(await errorBodyOf(error)));
  process.exit(1);
});

export interface ReadmeContext {
  integrationUrl: string;
  authUrl: string;
  adminUrl: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  adminEmail: string;
  adminPassword: string;
  idToken: string;
  refreshToken: string;
  expiresIn: number;
}

export const context = JSON.parse(process.env.COBRO_README_CONTEXT ?? "") as ReadmeContext;

/** One line the test reads. */
export function report(result: Record<string, unknown>): void {
  console.log("RESULT " + JSON.stringify(result));
}

/** The merchant's browser: the test opens the URL, signs in and answers the URL it was redirected to. */
export async function browserVisits(url: string): Promise<URL> {
  console.log("AUTHORIZE " + url);
  let answer = "";
  for await (const chunk of process.stdin) answer += String(chunk);
  return new URL(answer.trim());
}

export async function waitUntil(condition: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting for " + what);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
`;

interface Program {
  file: string;
  source: string;
}

function programs(): Program[] {
  const oauth = [
    `import { httpStatusOf } from "@cobro/sdk";`,
    `import { browserVisits, context, report } from "./readme-context.ts";`,
    `const { authUrl, clientId, clientSecret, redirectUri } = context;`,
    block("oauth.authorizationUrl("),
    `const callback = await browserVisits(url);`,
    block("oauth.exchangeCode("),
    `const refreshAfterRevoke = await oauth.refresh(tokens.refreshToken).then(() => 200, (error: unknown) => httpStatusOf(error));`,
    `report({ tokenType: tokens.tokenType, expiresIn: tokens.expiresIn, refreshAfterRevoke });`,
  ];
  const merchant = [
    `import { context, report } from "./readme-context.ts";`,
    `const { integrationUrl, authUrl, clientId, clientSecret, idToken, refreshToken, expiresIn } = context;`,
    `const stored: Array<{ idToken: string }> = [];`,
    `const store = (tokens: { idToken: string }) => void stored.push(tokens);`,
    block("new CobroClient("),
    `report({ created: { state: charge.state, cvu: charge.cVU, conciliationType: charge.conciliationType, customer: charge.customer }, readBack: again.referenceId });`,
    `await cobro.refresh();`,
    `report({ refreshed: stored.length, refreshedIdToken: stored[0]?.idToken !== idToken });`,
    block("isNoAnswerError(error)"),
    block("createOrGet(cobro.paymentRequests"),
    `report({ first: first.outcome, retried: retried.outcome, same: first.paymentRequest.paymentRequestId === retried.paymentRequest.paymentRequestId });`,
  ];
  const webhooks = [
    `import { once } from "node:events";`,
    `import type { AddressInfo } from "node:net";`,
    `import { integration, signWebhookPayload } from "@cobro/sdk";`,
    `import { context, report, waitUntil } from "./readme-context.ts";`,
    `const { integrationUrl, authUrl, adminUrl, adminEmail, adminPassword } = context;`,
    `// The integrator's web server, listening before the webhook URL is registered (Cobro pings it).`,
    `const app = express();`,
    `const answered: number[] = [];`,
    `app.use((_req, res, next) => { res.on("finish", () => answered.push(res.statusCode)); next(); });`,
    `// The deliveries as received, to hand the same request to the Standard Webhooks route afterwards.`,
    `const received: { headers: Record<string, string>; body: Buffer }[] = [];`,
    `app.use("/webhooks/cobro", express.raw({ type: "application/json" }), (req, _res, next) => { received.push({ headers: req.headers as Record<string, string>, body: req.body }); next(); });`,
    `const server = app.listen(0, "127.0.0.1");`,
    `await once(server, "listening");`,
    `const webhookUrl = "http://127.0.0.1:" + (server.address() as AddressInfo).port + "/webhooks/cobro";`,
    block("replaceWebhookSubscriptions("),
    `process.env.COBRO_WEBHOOK_SECRET = webhookSigningSecret;`,
    block("verifyWebhookSignature(req.body"),
    `// A charge paid by a simulated transfer: its webhook must pass the block's check (answered 200).`,
    `const sandboxTools = new admin.SandboxApi(adminApi);`,
    `const merchantTokens = await sandboxTools.createTestTokens();`,
    `const { today } = await sandboxTools.getSandboxClock();`,
    `const due = new Date(Date.parse(today + "T00:00:00Z") + 5 * 86_400_000).toISOString().slice(0, 10);`,
    `const payments = new integration.PaymentRequestsApi(new integration.Configuration({ basePath: integrationUrl, accessToken: merchantTokens.idToken }));`,
    `const charge = await payments.createPaymentRequest({ paymentRequestCreate: { referenceId: "README-" + Date.now(), description: "Cuota", dueDates: [due], amount: 2500, customer: { name: "Juan Pérez" }, sendWhatsappNotification: false, sendEmailNotification: false } });`,
    `const before = answered.length;`,
    `await sandboxTools.simulatePayment({ simulatePaymentRequest: { cvu: charge.cVU!, amount: 2500, externalAccountCvu: "0000003100000000000017", externalAccountCuil: "20301234563", externalAccountName: "Juan Pérez" } });`,
    `await waitUntil(() => answered.length > before, "the webhook", 15_000);`,
    `const forged = await fetch(webhookUrl, { method: "POST", headers: { "content-type": "application/json", "X-Service-Signature": signWebhookPayload("{}", "not-the-secret") }, body: "{}" });`,
    `report({ referenceId: charge.referenceId, webhookAnswers: answered.slice(before, before + 1), forged: forged.status });`,
    block("new Webhook(process.env.COBRO_WEBHOOK_SECRET"),
    `// The delivery again, as it was received, to the Standard Webhooks route; then with one byte of its body changed.`,
    `const delivery = received.find((request) => request.body.toString("utf8").includes(charge.referenceId))!;`,
    `const replay = (body: string) => fetch(webhookUrl + "-standard", { method: "POST", headers: { "content-type": "application/json", "webhook-id": delivery.headers["webhook-id"]!, "webhook-timestamp": delivery.headers["webhook-timestamp"]!, "webhook-signature": delivery.headers["webhook-signature"]! }, body });`,
    `report({ standard: (await replay(delivery.body.toString("utf8"))).status, standardAltered: (await replay(delivery.body.toString("utf8") + " ")).status });`,
    block("deleteClientUrl("),
    `report({ urls: (await clientUrls.listClientUrls()).items.map((item) => ({ url: item.data.url, receivesEvents: item.receivesEvents })) });`,
    `server.closeAllConnections();`,
    `server.close();`,
  ];
  const stream = [
    `import { admin, auth, integration } from "@cobro/sdk";`,
    `import { context, report, waitUntil } from "./readme-context.ts";`,
    `const { integrationUrl, authUrl, adminUrl, adminEmail, adminPassword } = context;`,
    `const session = await new auth.AdminSessionApi(new auth.Configuration({ basePath: authUrl })).adminLogin({ adminLogin: { email: adminEmail, password: adminPassword } });`,
    `const adminApi = new admin.Configuration({ basePath: adminUrl, accessToken: session.idToken });`,
    `// Charges paid by simulated transfers: one payment_request.payment_received each.`,
    `const sandboxTools = new admin.SandboxApi(adminApi);`,
    `const merchantTokens = await sandboxTools.createTestTokens();`,
    `const { today } = await sandboxTools.getSandboxClock();`,
    `const due = new Date(Date.parse(today + "T00:00:00Z") + 5 * 86_400_000).toISOString().slice(0, 10);`,
    `const payments = new integration.PaymentRequestsApi(new integration.Configuration({ basePath: integrationUrl, accessToken: merchantTokens.idToken }));`,
    `const events = new admin.EventsApi(adminApi);`,
    `async function pay(referenceId: string): Promise<string> {`,
    `  const charge = await payments.createPaymentRequest({ paymentRequestCreate: { referenceId, description: "Cuota", dueDates: [due], amount: 700, customer: { name: "Juan Pérez" }, sendWhatsappNotification: false, sendEmailNotification: false } });`,
    `  await sandboxTools.simulatePayment({ simulatePaymentRequest: { cvu: charge.cVU!, amount: 700, externalAccountCvu: "0000003100000000000017", externalAccountCuil: "20301234563", externalAccountName: "Juan Pérez" } });`,
    `  // The Sandbox clock may stand still: events of one instant are listed in no set order.`,
    `  const event = (await events.listEvents({ limit: 20 })).items.find((item) => item.payload.referenceId === referenceId);`,
    `  if (!event) throw new Error("no event for the payment of " + referenceId);`,
    `  return event.eventId;`,
    `}`,
    `// The last event an earlier run handled, then one it has not seen: the block resumes after the first.`,
    `const handled = "STREAM-A-" + Date.now();`,
    `const unseen = "STREAM-B-" + Date.now();`,
    `let savedLastEventId: string | undefined = await pay(handled);`,
    `const unseenEventId = await pay(unseen);`,
    `void waitUntil(() => savedLastEventId === unseenEventId, "the unseen event", 15_000).then(() => stopFollowing.abort());`,
    block("new EventStream("),
    `report({ handled, unseen, resumedTo: savedLastEventId === unseenEventId });`,
  ];
  const unmatched = [
    `import { admin, auth, integration } from "@cobro/sdk";`,
    `import { context, report } from "./readme-context.ts";`,
    `const { integrationUrl, authUrl, adminUrl, adminEmail, adminPassword } = context;`,
    `const session = await new auth.AdminSessionApi(new auth.Configuration({ basePath: authUrl })).adminLogin({ adminLogin: { email: adminEmail, password: adminPassword } });`,
    `const adminApi = new admin.Configuration({ basePath: adminUrl, accessToken: session.idToken });`,
    `// A transfer to a canceled charge's CVU, and the open charge INV-2026-000125 it was meant for, of the same merchant account.`,
    `const sandboxTools = new admin.SandboxApi(adminApi);`,
    `const merchantTokens = await sandboxTools.createTestTokens();`,
    `const { today } = await sandboxTools.getSandboxClock();`,
    `const due = new Date(Date.parse(today + "T00:00:00Z") + 5 * 86_400_000).toISOString().slice(0, 10);`,
    `const payments = new integration.PaymentRequestsApi(new integration.Configuration({ basePath: integrationUrl, accessToken: merchantTokens.idToken }));`,
    `const charge = (referenceId: string) => payments.createPaymentRequest({ paymentRequestCreate: { referenceId, description: "Cuota", dueDates: [due], amount: 1800, customer: { name: "Juan Pérez" }, sendWhatsappNotification: false, sendEmailNotification: false } });`,
    `const canceled = await charge("README-CANCELED-" + Date.now());`,
    `await payments.cancelPaymentRequest({ referenceId: canceled.referenceId });`,
    `await sandboxTools.simulatePayment({ simulatePaymentRequest: { cvu: canceled.cVU!, amount: 1800, externalAccountCvu: "0000003100000000000017", externalAccountCuil: "20301234563", externalAccountName: "Juan Pérez" } });`,
    `await charge("INV-2026-000125");`,
    `// An overpayment: $2000 to a $1800 charge, whose $200 excess the return block sends back.`,
    `const overpaid = await charge("README-OVERPAID-" + Date.now());`,
    `await sandboxTools.simulatePayment({ simulatePaymentRequest: { cvu: overpaid.cVU!, amount: 2000, externalAccountCvu: "0000003100000000000017", externalAccountCuil: "20301234563", externalAccountName: "Juan Pérez" } });`,
    block("new admin.UnmatchedPaymentsApi(adminApi)"),
    `const after = await payments.getPaymentRequest({ referenceId: "INV-2026-000125" });`,
    block("returnUnmatchedPayment("),
    `const again = await unmatched.returnUnmatchedPayment({ unmatchedPaymentId: excess!.unmatchedPaymentId, idempotencyKey, unmatchedPaymentReturnRequest: {} });`,
    `report({ listed: page.items.map((item) => ({ reason: item.reason, amount: item.amount, referenceId: item.referenceId })), assigned: assignment.assignedAmount, chargeState: after.state, unresolved: assignment.unmatchedPayment.unresolvedAmount, returned: { state: returned.state, amount: returned.amount, toCvu: returned.toCvu, unmatchedState: returned.unmatchedPayment.state, sameReturnAgain: again.returnId === returned.returnId, returns: again.unmatchedPayment.returns.length } });`,
  ];
  return [
    { file: "link-merchant.ts", source: oauth.join("\n") },
    { file: "call-integration-api.ts", source: merchant.join("\n") },
    { file: "webhooks.ts", source: webhooks.join("\n") },
    { file: "event-stream.ts", source: stream.join("\n") },
    { file: "unmatched-payments.ts", source: unmatched.join("\n") },
  ];
}

// The service runs on the real date: the README's blocks compute their dates from today, and a block that
// hard-coded one would fail here once that day passed.
const t = serviceForFile({ env: { COBRO_ALLOW_LOOPBACK_URLS: "true" }, parts: ["integration", "auth", "admin", "worker"] });
const DAY_MS = 86_400_000;
let project: string;
let context: Record<string, unknown>;
let merchant: { email: string; password: string };

/**
 * Loaded before a program to run it as if it were `COBRO_CLOCK_OFFSET_MS` later: `Date.now()` and
 * `new Date()` are shifted, as the test service's clock is.
 */
const SHIFTED_CLOCK_MODULE = `const offset = Number(process.env.COBRO_CLOCK_OFFSET_MS ?? 0);
const RealDate = Date;
globalThis.Date = class ShiftedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + offset);
    else super(...args);
  }
  static now() {
    return RealDate.now() + offset;
  }
};
`;

/** A fresh Sandbox set's values, as the README says the integrator has them, with the test merchant's tokens. */
async function sandboxContext(): Promise<{ context: Record<string, unknown>; merchant: { email: string; password: string } }> {
  const sandbox = await t.sandbox();
  const login = await read(await postJson(`${t.authUrl}/integration/admin/login`, sandbox.integrationAdmin));
  const tokens = await read(
    await fetch(`${t.adminUrl}/my-integration/test-tokens`, { method: "POST", headers: { authorization: `Bearer ${login.json.idToken}` } }),
  );
  expect(tokens.status, tokens.text).toBe(200);
  return {
    merchant: sandbox.merchant,
    context: {
      integrationUrl: t.integrationUrl,
      authUrl: t.authUrl,
      adminUrl: t.adminUrl,
      clientId: sandbox.integration.clientId,
      clientSecret: sandbox.integration.clientSecret,
      redirectUri: sandbox.integration.redirectUri,
      adminEmail: sandbox.integrationAdmin.email,
      adminPassword: sandbox.integrationAdmin.password,
      idToken: tokens.json.idToken,
      refreshToken: tokens.json.refreshToken,
      expiresIn: tokens.json.expiresIn,
    },
  };
}

/**
 * Runs a program of the project (with the file's Sandbox set, or `options.context`; `options.clockOffsetMs`
 * later than now); when it asks for the merchant's browser, signs in and answers the redirect.
 */
function runProgram(
  file: string,
  options: { context?: Record<string, unknown>; clockOffsetMs?: number } = {},
): Promise<{ code: number | null; output: string; results: Array<Record<string, any>> }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "./shifted-clock.mjs", file], {
      cwd: project,
      env: {
        PATH: process.env.PATH ?? "",
        COBRO_README_CONTEXT: JSON.stringify(options.context ?? context),
        COBRO_CLOCK_OFFSET_MS: String(options.clockOffsetMs ?? 0),
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let output = "";
    let browsed = false;
    child.stdout.on("data", (chunk) => {
      output += chunk;
      const authorize = /^AUTHORIZE (\S+)$/m.exec(output);
      if (authorize && !browsed) {
        browsed = true;
        void (async () => {
          const url = authorize[1]!;
          const form = await openSignInForm(url);
          const signIn = await submitSignIn(new URL(url).origin, form, merchant.email, merchant.password);
          child.stdin.end(`${signIn.location ?? `http://sign-in.failed/?status=${signIn.status}`}\n`);
        })();
      }
    });
    child.stderr.on("data", (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      const results = [...output.matchAll(/^RESULT (.*)$/gm)].map((match) => JSON.parse(match[1]!) as Record<string, any>);
      resolve({ code, output, results });
    });
  });
}

beforeAll(async () => {
  project = await createIntegratorProject("cobro-sdk-readme-");
  // The webhook blocks' web framework and Standard Webhooks library, as the integrator's project would have them.
  mkdirSync(join(project, "node_modules", "@types"));
  symlinkSync(realpathSync(join(ROOT, "node_modules", "express")), join(project, "node_modules", "express"));
  symlinkSync(realpathSync(join(ROOT, "node_modules", "@types", "express")), join(project, "node_modules", "@types", "express"));
  symlinkSync(realpathSync(join(ROOT, "node_modules", "standardwebhooks")), join(project, "node_modules", "standardwebhooks"));
  writeFileSync(join(project, "readme-context.ts"), CONTEXT_MODULE);
  writeFileSync(join(project, "shifted-clock.mjs"), SHIFTED_CLOCK_MODULE);
  for (const program of programs()) writeFileSync(join(project, program.file), `${program.source}\n`);
  ({ context, merchant } = await sandboxContext());
}, 120_000);

afterAll(() => tearDownIntegratorProject(project));

describe("sdk/README.md", () => {
  it("runs every ts block: each belongs to one program", () => {
    const used = programs()
      .map((program) => program.source)
      .join("\n");
    for (const text of blocks) expect(used, `a block of sdk/README.md that no program runs:\n${text}`).toContain(text);
    expect(blocks.length).toBeGreaterThanOrEqual(7);
  });

  it("lists every event of the catalog", () => {
    const readme = readFileSync(README, "utf8");
    for (const { event } of EVENT_CATALOG) expect(readme).toContain(`| \`${event}\` |`);
  });

  it("typechecks against the package's declarations (strict, nodenext)", async () => {
    await typecheckIntegratorProject(project, ["readme-context.ts", ...programs().map((program) => program.file)]);
  }, 60_000);

  it("links a merchant account through the authorization screen, then revokes its refresh token", async () => {
    const { code, output, results } = await runProgram("link-merchant.ts");
    expect(code, output).toBe(0);
    expect(results[0]).toMatchObject({ tokenType: "Bearer", expiresIn: 3600 });
    expect(results[0]!.refreshAfterRevoke, output).toBeGreaterThanOrEqual(400);
  }, 60_000);

  it("creates a CUIL-mode charge, reads it back, refreshes the token, reads a 404 and retries a create", async () => {
    const { code, output, results } = await runProgram("call-integration-api.ts");
    expect(code, output).toBe(0);
    expect(results[0]).toEqual({
      created: {
        state: "pending",
        cvu: expect.stringMatching(/^\d{22}$/),
        conciliationType: "cuil",
        customer: { name: "Juan Pérez", taxDocument: "20301234563", email: "juan.perez@example.com" },
      },
      readBack: "INV-2026-000123",
    });
    expect(results[1]).toEqual({ refreshed: 1, refreshedIdToken: true });
    expect(output).toContain("no such charge: { message: 'Payment request not found' }");
    expect(results[2]).toEqual({ first: "created", retried: "existing", same: true });
  }, 60_000);

  it("still creates, reads and retries charges 60 days later: no block hard-codes a date", async () => {
    t.clock.advance(60 * DAY_MS);
    try {
      const later = await sandboxContext();
      const { code, output, results } = await runProgram("call-integration-api.ts", { context: later.context, clockOffsetMs: 60 * DAY_MS });
      expect(code, output).toBe(0);
      expect(results[0]).toMatchObject({ created: { state: "pending" }, readBack: "INV-2026-000123" });
      expect(results[2]).toEqual({ first: "created", retried: "existing", same: true });
    } finally {
      t.clock.advance(-60 * DAY_MS);
    }
  }, 60_000);

  it("sets up webhooks with the Admin API and verifies a real delivery in the Express handler", async () => {
    // Webhook signatures carry the service's time, which the handler checks against its own clock.
    t.clock.set(new Date());
    // A webhook URL left from earlier (registered before the README's, so not receiving the events): the clean-up block deletes it.
    const login = await read(await postJson(`${t.authUrl}/integration/admin/login`, { email: context.adminEmail, password: context.adminPassword }));
    const stale = await read(
      await postJson(
        `${t.adminUrl}/my-integration/urls`,
        { url: "http://127.0.0.1:9/old-receiver", urlType: "webhook" },
        { authorization: `Bearer ${login.json.idToken}` },
      ),
    );
    expect(stale.status, stale.text).toBe(201);
    t.clock.advance(1000);
    const { code, output, results } = await runProgram("webhooks.ts");
    expect(code, output).toBe(0);
    const [result, standard, cleaned] = results;
    expect(result).toMatchObject({ webhookAnswers: [200], forged: 400 });
    expect(output).toContain(`payment_request.payment_received ${result!.referenceId} total_payment`);
    // The Standard Webhooks block, built with the library's default constructor and the secret as returned.
    expect(standard).toEqual({ standard: 200, standardAltered: 400 });
    expect(output).toContain("standard payment_request.payment_received");
    expect(cleaned).toEqual({ urls: [{ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/webhooks\/cobro$/), receivesEvents: true }] });
  }, 60_000);

  it("lists a transfer to a canceled charge's CVU as unmatched money and assigns it to the charge it was meant for; returns an overpayment's excess, once for its key", async () => {
    const { code, output, results } = await runProgram("unmatched-payments.ts");
    expect(code, output).toBe(0);
    expect(results).toEqual([
      {
        listed: [{ reason: "canceled", amount: 1800, referenceId: expect.stringMatching(/^README-CANCELED-/) }],
        assigned: 1800,
        chargeState: "total_payment",
        unresolved: 0,
        returned: { state: "requested", amount: 200, toCvu: "0000003100000000000017", unmatchedState: "return_requested", sameReturnAgain: true, returns: 1 },
      },
    ]);
  }, 60_000);

  it("follows the event stream from the last event handled: the later one arrives, the handled one not again", async () => {
    const { code, output, results } = await runProgram("event-stream.ts");
    expect(code, output).toBe(0);
    const [result] = results;
    expect(result).toMatchObject({ resumedTo: true });
    expect(output).toContain(`streamed payment_request.payment_received ${result!.unseen}`);
    expect(output).not.toContain(`streamed payment_request.payment_received ${result!.handled}`);
  }, 60_000);
});
