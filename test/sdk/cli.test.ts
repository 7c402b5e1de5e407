// `cobro`, the SDK's command line, as an integrator runs it: the package built with tsc (as `npm pack`
// ships it) and its `bin` run with Node as a child process, against the whole service on a fresh
// database, with its config folder in a scratch directory. Every command's --json output; the stored
// session's file modes; one-line errors with the API's code; triggers that produce the events (checked
// with the events list); `listen` forwarding to a local receiver whose requests the SDK's verifier
// accepts, across a dropped stream (a TCP proxy in front of the Admin API cuts it) and a restart of the listener.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyStandardWebhook, verifyWebhook } from "../../sdk/src/standard-webhooks.ts";
import { verifyWebhookSignature } from "../../sdk/src/webhook-signature.ts";
import { sandboxAdmin, type SandboxAdmin } from "../helpers/sandbox-admin.ts";
import { startCuttableProxy, type CuttableProxy } from "../helpers/cuttable-proxy.ts";
import { serviceForFile } from "../helpers/service.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";
import { createIntegratorProject, tearDownIntegratorProject } from "./integrator-project.ts";

// Loopback webhook destinations stay off: `listen` is how a laptop receives the Sandbox's events.
const t = serviceForFile();
let project: string;
let bin: string;
let home: string;
/** The Admin API as the CLI reaches it: through a proxy whose connections the test can cut. */
let adminProxy: CuttableProxy;
let adminUrl: string;
let receiver: WebhookReceiver;
let credentials: { email: string; password: string };
let admin: SandboxAdmin;

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  json: any;
}

function environment(extra: Record<string, string> = {}): Record<string, string> {
  return { PATH: process.env.PATH ?? "", HOME: home, XDG_CONFIG_HOME: join(home, "config"), ...extra };
}

/** Runs `cobro args…` to its end (without blocking: the service lives in this process). */
function cobro(args: string[], options: { env?: Record<string, string>; input?: string } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: environment(options.env), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.stdin.end(options.input ?? "");
    child.on("close", (code) => {
      let json: unknown;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}

/** A command that must succeed with one JSON document. */
async function cobroJson(args: string[], env?: Record<string, string>): Promise<any> {
  const run = await cobro([...args, "--json"], { env });
  expect(run.code, `cobro ${args.join(" ")}: ${run.stderr}`).toBe(0);
  expect(run.json, run.stdout).toBeDefined();
  return run.json;
}

const apiFlags = () => ["--admin-url", adminUrl, "--auth-url", t.authUrl, "--integration-url", t.integrationUrl];

beforeAll(async () => {
  project = await createIntegratorProject("cobro-cli-");
  bin = join(
    project,
    "node_modules",
    "@cobro",
    "sdk",
    JSON.parse(readFileSync(join(project, "node_modules", "@cobro", "sdk", "package.json"), "utf8")).bin.cobro,
  );
  home = mkdtempSync(join(tmpdir(), "cobro-cli-home-"));
  adminProxy = await startCuttableProxy(t.adminUrl);
  adminUrl = adminProxy.connectionString.replace(/\/$/, "");
  receiver = await startWebhookReceiver();
  const sandbox = await t.sandbox();
  credentials = sandbox.integrationAdmin;
  admin = await sandboxAdmin(t, sandbox);
  // Every describe block runs signed in (the login tests sign in again, which ends this session).
  await cobroJson(["login", "--email", credentials.email, ...apiFlags()], { COBRO_PASSWORD: credentials.password });
}, 120_000);

afterAll(async () => {
  await adminProxy?.close();
  await receiver?.close();
  tearDownIntegratorProject(project);
  if (home) rmSync(home, { recursive: true, force: true });
});

describe("cobro login", () => {
  it("signs in with the password from COBRO_PASSWORD and stores the session readable by the user alone", async () => {
    const result = await cobroJson(["login", "--email", credentials.email, ...apiFlags()], { COBRO_PASSWORD: credentials.password });
    const file = join(home, "config", "cobro", "default.json");
    expect(result).toEqual({
      profile: "default",
      email: credentials.email,
      adminUrl,
      authUrl: t.authUrl,
      integrationUrl: t.integrationUrl,
      configFile: file,
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, "config", "cobro")).mode & 0o777).toBe(0o700);
    const stored = JSON.parse(readFileSync(file, "utf8"));
    expect(stored.refreshToken).toMatch(/\S{16,}/);
    // The refresh token is in the file, never on the output.
    expect(JSON.stringify(result)).not.toContain(stored.refreshToken);
  });

  it("--base-url is one address for all three APIs: at a Sandbox on its own ports it says to name each API", async () => {
    const run = await cobro(["login", "--profile", "ports", "--email", credentials.email, "--base-url", t.integrationUrl], {
      env: { COBRO_PASSWORD: credentials.password },
    });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error wrong_address: .*--integration-url, --auth-url and --admin-url/);
    expect(existsSync(join(home, "config", "cobro", "ports.json"))).toBe(false);
    const help = await cobro(["login", "--help"]);
    expect(help.stdout).toMatch(/--base-url VALUE\s+one address that serves all three APIs \(a proxy\)/);
  });

  it("reads the password from stdin, under another profile, and logout revokes that session", async () => {
    const login = await cobro(["login", "--profile", "second", "--email", credentials.email, ...apiFlags(), "--json"], { input: `${credentials.password}\n` });
    expect(login.code, login.stderr).toBe(0);
    const stored = JSON.parse(readFileSync(join(home, "config", "cobro", "second.json"), "utf8"));

    expect(await cobroJson(["logout", "--profile", "second"])).toEqual({ profile: "second", signedOut: true, revoked: true });
    expect(existsSync(join(home, "config", "cobro", "second.json"))).toBe(false);
    // Revoked at the Auth API, not only forgotten here.
    const refreshed = await fetch(`${t.authUrl}/integration/admin/refresh`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ refreshToken: stored.refreshToken }),
    });
    expect(refreshed.status).toBe(401);

    const after = await cobro(["clock", "show", "--profile", "second"]);
    expect(after.code).toBe(1);
    expect(after.stderr).toBe('error not_signed_in: profile "second" is not signed in: run cobro login --profile second\n');
  });

  it("prints the API's code on one line and exits 1 for a wrong password", async () => {
    const run = await cobro(["login", "--profile", "wrong", "--email", credentials.email, ...apiFlags()], { env: { COBRO_PASSWORD: "not-the-password" } });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toBe("error InvalidCredentialsError: Wrong email or password\n");
    expect(existsSync(join(home, "config", "cobro", "wrong.json"))).toBe(false);
  });
});

describe("cobro's Sandbox commands (--json)", () => {
  it("clock show, clock advance and clock reset", async () => {
    const before = await cobroJson(["clock", "show"]);
    expect(before).toMatchObject({ offsetSeconds: 0 });
    expect(Object.keys(before).sort()).toEqual(["now", "offsetSeconds", "today"]);
    const moved = await cobroJson(["clock", "advance", "PT1H"]);
    expect(moved.offsetSeconds).toBe(3600);
    expect((await cobroJson(["clock", "show"])).offsetSeconds).toBe(3600);
    const reset = await cobroJson(["clock", "reset"]);
    expect(reset).toMatchObject({ offsetSeconds: 0, today: before.today });
    expect((await cobroJson(["clock", "show"])).offsetSeconds).toBe(0);
  });

  it("commands of one profile renew an expired session one at a time (each refresh token works once)", async () => {
    const file = join(home, "config", "cobro", "default.json");
    const stored = JSON.parse(readFileSync(file, "utf8"));
    writeFileSync(file, JSON.stringify({ ...stored, idTokenExpiresAt: 0 }));
    const runs = await Promise.all([1, 2, 3].map(() => cobro(["clock", "show", "--json"])));
    for (const run of runs) expect(run.code, run.stderr).toBe(0);
    const renewed = JSON.parse(readFileSync(file, "utf8"));
    expect(renewed.refreshToken).not.toBe(stored.refreshToken);
    expect(renewed.idTokenExpiresAt).toBeGreaterThan(Date.now());
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await cobro(["clock", "show", "--json"])).code).toBe(0);
  });

  it("test-tokens", async () => {
    const tokens = await cobroJson(["test-tokens"]);
    expect(tokens).toMatchObject({ expiresIn: 3600, autoLinkAction: expect.stringMatching(/^(linked|already-linked)$/) });
    const me = await fetch(`${t.integrationUrl}/me`, { headers: { authorization: `Bearer ${tokens.idToken}` } });
    expect(me.status).toBe(200);
  });

  it("charges create, get, list and cancel", async () => {
    const created = await cobroJson(["charges", "create", "--reference", "CLI-JSON-0001", "--amount", "2500.5"]);
    expect(created).toMatchObject({ referenceId: "CLI-JSON-0001", state: "pending", amount: 2500.5, conciliationType: "cvu" });
    expect(created.CVU).toMatch(/^\d{22}$/);
    expect(await cobroJson(["charges", "get", "CLI-JSON-0001"])).toMatchObject({ referenceId: "CLI-JSON-0001", CVU: created.CVU });
    const listed = await cobroJson(["charges", "list"]);
    expect(listed.map((charge: { referenceId: string }) => charge.referenceId)).toContain("CLI-JSON-0001");
    expect(await cobroJson(["charges", "cancel", "CLI-JSON-0001"])).toEqual({ referenceId: "CLI-JSON-0001", state: "canceled" });
  });

  it("prints a table without --json, and no colour when stdout is not a terminal", async () => {
    const run = await cobro(["charges", "list"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.split("\n")[0]).toMatch(/^REFERENCE\s+STATE\s+AMOUNT\s+PAID\s+DUE\s+CVU$/);
    expect(run.stdout).toMatch(/CLI-JSON-0001\s+canceled/);
    expect(run.stdout).not.toContain("\u001b[");
  });

  it("a refused request prints the API's code and message on one line, exit 1", async () => {
    const run = await cobro(["charges", "get", "CLI-NOT-THERE-0001"]);
    expect(run.code).toBe(1);
    // The Integration API's 404 carries a message and no code: the status stands in for it.
    expect(run.stderr).toBe("error HTTP_404: Payment request not found\n");
    const invalid = await cobro(["clock", "advance", "P1M"]);
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toMatch(/^error ValidationError: .+\n$/);
  });

  it("a wrong flag is a usage error, exit 2; every command has --help", async () => {
    const run = await cobro(["charges", "create", "--amonut", "1"]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^error usage: .*--amonut.*\n$/);
    const overview = await cobro(["--help"]);
    expect(overview.code).toBe(0);
    for (const command of [
      "login",
      "logout",
      "listen",
      "trigger payment",
      "trigger unmatched",
      "trigger expiry",
      "clock show",
      "clock advance",
      "clock reset",
      "charges create",
      "charges get",
      "charges list",
      "charges cancel",
      "events list",
      "events resend",
      "unmatched list",
      "unmatched assign",
      "unmatched return",
      "test-tokens",
    ]) {
      expect(overview.stdout).toContain(`  ${command} `);
      const help = await cobro([...command.split(" "), "--help"]);
      expect(help.code).toBe(0);
      expect(help.stdout).toMatch(new RegExp(`^Usage: cobro ${command}`));
      expect(help.stdout).toContain("--json");
    }
  }, 60_000);
});

describe("cobro trigger and cobro events", () => {
  it("trigger payment pays the charge: payment_request.payment_received", async () => {
    await cobroJson(["charges", "create", "--reference", "CLI-PAY-0001", "--amount", "1000"]);
    const paid = await cobroJson(["trigger", "payment", "--reference", "CLI-PAY-0001"]);
    expect(paid).toMatchObject({ referenceId: "CLI-PAY-0001", conciliated: true, amount: 1000, webhookEvent: "payment_request.payment_received" });
    expect((await cobroJson(["charges", "get", "CLI-PAY-0001"])).state).toBe("total_payment");
    const events = await cobroJson(["events", "list", "--event", "payment_request.payment_received"]);
    expect(events.items.map((event: any) => event.payload.referenceId)).toContain("CLI-PAY-0001");
  });

  it("trigger payment with overrides: a partial amount from another payer", async () => {
    await cobroJson(["charges", "create", "--reference", "CLI-PAY-0002", "--amount", "1000"]);
    const partial = await cobroJson([
      "trigger",
      "payment",
      "--reference",
      "CLI-PAY-0002",
      "--amount",
      "400",
      "--payer-cuil",
      "27301234568",
      "--payer-name",
      "Ana Gómez",
    ]);
    expect(partial).toMatchObject({ conciliated: true, amount: 400 });
    expect((await cobroJson(["charges", "get", "CLI-PAY-0002"])).state).toBe("partial_payment");
  });

  it.each(["canceled", "already_paid", "no_cuil_match"])("trigger unmatched --reason %s: payment.unmatched with that reason", async (reason) => {
    const result = await cobroJson(["trigger", "unmatched", "--reason", reason]);
    expect(result).toMatchObject({ conciliated: false, unmatchedReason: reason, webhookEvent: "payment.unmatched" });
    const events = await cobroJson(["events", "list", "--event", "payment.unmatched", "--limit", "100"]);
    expect(events.items.some((event: any) => event.payload.reason === reason)).toBe(true);
  });

  it("trigger expiry moves the clock past a charge due at a time: payment_request.expired", async () => {
    const clock = await cobroJson(["clock", "show"]);
    const due = new Date(new Date(clock.now).getTime() + 2 * 86_400_000 - 3 * 3_600_000).toISOString().slice(0, 16);
    await cobroJson(["charges", "create", "--reference", "CLI-EXP-0001", "--amount", "700", "--due", due]);
    const expired = await cobroJson(["trigger", "expiry", "--reference", "CLI-EXP-0001"]);
    expect(expired).toMatchObject({ referenceId: "CLI-EXP-0001", state: "overdue", dueAt: new Date(`${due}:00-03:00`).toISOString() });
    expect(new Date(expired.clock.now).getTime()).toBeGreaterThan(new Date(expired.dueAt).getTime());
    const events = await cobroJson(["events", "list", "--event", "payment_request.expired"]);
    expect(events.items.map((event: any) => event.payload.referenceId)).toEqual(["CLI-EXP-0001"]);
  });

  it("events resend: 409 with its code when there is nowhere to deliver, the event once there is", async () => {
    const [event] = (await cobroJson(["events", "list", "--event", "payment_request.expired"])).items;
    const refused = await cobro(["events", "resend", event.eventId]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^error EventNotDeliverableError: .+\n$/);

    const registered = await admin.call("POST", "/my-integration/urls", { url: "https://webhooks.example.com/cobro", urlType: "webhook" });
    expect(registered.status, registered.text).toBe(201);
    await admin.call("PUT", "/my-integration/webhook-subscriptions", {
      enabledEvents: ["payment_request.payment_received", "payment_request.expired", "payment.unmatched"],
    });
    const resent = await cobroJson(["events", "resend", event.eventId]);
    expect(resent).toMatchObject({
      eventId: event.eventId,
      event: "payment_request.expired",
      deliveryStatus: "pending",
      targetUrl: "https://webhooks.example.com/cobro",
    });
    await admin.call("DELETE", `/my-integration/urls/${registered.json.clientUrlId}`);
  });
});

describe("cobro unmatched", () => {
  it("lists a transfer to a canceled charge's CVU and assigns it to another charge, which is paid in full; refusals are one line, exit 1 or 2", async () => {
    const late = await cobroJson(["trigger", "unmatched", "--reason", "canceled", "--amount", "1500"]);
    const listed = await cobroJson(["unmatched", "list", "--reason", "canceled", "--state", "unresolved", "--limit", "100"]);
    const money = listed.items.find((item: any) => item.transactionId === late.idTransaccion);
    expect(money).toMatchObject({ reason: "canceled", state: "unresolved", amount: 1500, unresolvedAmount: 1500, referenceId: late.referenceId });
    // The same filters, as a table; days in Argentina (the whole --to day included).
    const today = (await cobroJson(["clock", "show"])).today as string;
    const table = await cobro([
      "unmatched",
      "list",
      "--reason",
      "canceled",
      "--from",
      today,
      "--to",
      today,
      "--merchant",
      money.merchantUserId,
      "--limit",
      "100",
    ]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.split("\n")[0]).toMatch(/^RECEIVED\s+AMOUNT\s+UNRESOLVED\s+REASON\s+STATE\s+REFERENCE\s+PAYER\s+UNMATCHED PAYMENT ID$/);
    expect(table.stdout).toMatch(new RegExp(`1500\\.00\\s+1500\\.00\\s+canceled\\s+unresolved\\s+${late.referenceId}.*${money.unmatchedPaymentId}`));
    expect((await cobroJson(["unmatched", "list", "--reason", "overpaid", "--to", "2000-01-01"])).total).toBe(0);

    const open = await cobroJson(["charges", "create", "--reference", "CLI-UNMATCHED-0001", "--amount", "1500"]);
    // --merchant not the one that received the money: refused before assigning.
    const elsewhere = await cobro(["unmatched", "assign", money.unmatchedPaymentId, "--reference-id", open.referenceId, "--merchant", crypto.randomUUID()]);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toMatch(/^error merchant_mismatch: unmatched payment .* nothing assigned\n$/);
    expect((await cobroJson(["charges", "get", open.referenceId])).state).toBe("pending");

    const assigned = await cobroJson(["unmatched", "assign", money.unmatchedPaymentId, "--reference-id", open.referenceId, "--merchant", money.merchantUserId]);
    expect(assigned).toMatchObject({
      assignedAmount: 1500,
      referenceId: open.referenceId,
      paymentRequestState: "total_payment",
      unmatchedPayment: { state: "assigned", unresolvedAmount: 0 },
    });
    expect((await cobroJson(["charges", "get", open.referenceId])).state).toBe("total_payment");

    // Again: the API's refusal, its code and message on one line.
    const again = await cobro(["unmatched", "assign", money.unmatchedPaymentId, "--payment-request-id", open.paymentRequestId]);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe("");
    expect(again.stderr).toMatch(/^error UnmatchedPaymentNotUnresolvedError: [^\n]+\n$/);

    // Usage errors: exit 2, nothing asked of the API.
    for (const [args, message] of [
      [["unmatched", "assign", money.unmatchedPaymentId], "give either --payment-request-id or --reference-id"],
      [
        ["unmatched", "assign", money.unmatchedPaymentId, "--reference-id", "A", "--payment-request-id", open.paymentRequestId],
        "give either --payment-request-id or --reference-id",
      ],
      [["unmatched", "assign", "not-an-id", "--reference-id", "A"], "UNMATCHED_PAYMENT_ID must be a UUID"],
      [["unmatched", "list", "--state", "lost"], "--state is one of unresolved, assigned, return_requested, returned, return_failed"],
      [["unmatched", "list", "--from", "yesterday"], "--from is a day (YYYY-MM-DD, in Argentina) or an instant with its offset (2026-11-22T12:00:00-03:00)"],
      [["unmatched", "list", "--from", "2026-02-30"], "--from is not a calendar day"],
      [["unmatched", "list", "--to", "2026-13-01"], "--to is not a calendar day"],
    ] as const) {
      const run = await cobro([...args]);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toBe(`error usage: ${message}\n`);
    }
  }, 60_000);

  it("returns a transfer to a canceled charge's CVU with a new Idempotency-Key, printed; the same key asks nothing more; refusals are one line", async () => {
    const late = await cobroJson(["trigger", "unmatched", "--reason", "canceled", "--amount", "800"]);
    const listed = await cobroJson(["unmatched", "list", "--reason", "canceled", "--state", "unresolved", "--limit", "100"]);
    const money = listed.items.find((item: any) => item.transactionId === late.idTransaccion);

    // No key given: a new one, printed with the return.
    const asked = await cobro(["unmatched", "return", money.unmatchedPaymentId]);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stdout).toMatch(/^return state\s+requested$/m);
    expect(asked.stdout).toMatch(/^amount\s+800\.00$/m);
    expect(asked.stdout).toMatch(/^unmatched state\s+return_requested$/m);
    const key = /^idempotency key\s+([0-9a-f-]{36})$/m.exec(asked.stdout)?.[1];
    const returnId = /^returnId\s+([0-9a-f-]{36})$/m.exec(asked.stdout)?.[1];
    expect(key, asked.stdout).toBeDefined();

    // The same key again (a lost answer): the same return, nothing more asked of the bank.
    const replay = await cobroJson(["unmatched", "return", money.unmatchedPaymentId, "--idempotency-key", key!]);
    expect(replay).toMatchObject({ returnId, amount: 800, idempotencyKey: key, unmatchedPayment: { state: "return_requested", unresolvedAmount: 0 } });
    expect(replay.unmatchedPayment.returns).toHaveLength(1);

    // Another key while the bank has it: the API's refusal on one line.
    const again = await cobro(["unmatched", "return", money.unmatchedPaymentId, "--idempotency-key", "cli-return-again"]);
    expect(again.code).toBe(1);
    expect(again.stdout).toBe("");
    expect(again.stderr).toMatch(/^error UnmatchedPaymentReturnInProgressError: [^\n]+\n$/);

    for (const [args, message] of [
      [["unmatched", "return"], "give one UNMATCHED_PAYMENT_ID"],
      [["unmatched", "return", "not-an-id"], "UNMATCHED_PAYMENT_ID must be a UUID"],
      [["unmatched", "return", money.unmatchedPaymentId, "--idempotency-key", "x".repeat(256)], "--idempotency-key is 1 to 255 printable ASCII characters"],
      [["unmatched", "return", money.unmatchedPaymentId, "--idempotency-key", "clave-ñ"], "--idempotency-key is 1 to 255 printable ASCII characters"],
    ] as const) {
      const run = await cobro([...args]);
      expect(run.code, args.join(" ")).toBe(2);
      expect(run.stderr).toBe(`error usage: ${message}\n`);
    }
  }, 60_000);
});

describe("cobro listen", () => {
  let listener: ChildProcess | undefined;
  let listenerOutput = "";

  function startListener(extra: string[] = [], path = "/webhooks", json = true, target = receiver.url(path)): void {
    listenerOutput = "";
    listener = spawn(process.execPath, [bin, "listen", "--forward-to", target, ...(json ? ["--json"] : []), ...extra], {
      env: environment(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    listener.stdout!.on("data", (chunk) => (listenerOutput += chunk));
    listener.stderr!.on("data", (chunk) => (listenerOutput += chunk));
  }

  async function until(condition: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the listener wrote:\n${listenerOutput}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function stopListener(signal: NodeJS.Signals): Promise<void> {
    const stopped = new Promise((resolve) => listener!.once("close", resolve));
    listener!.kill(signal);
    await stopped;
    listener = undefined;
  }

  afterAll(async () => {
    if (listener) await stopListener("SIGKILL");
  });

  it("--print-secret prints the integration's signing secret", async () => {
    const { json } = await cobro(["listen", "--print-secret", "--json"]);
    const secret = await admin.call("GET", "/my-integration/webhook-signing-secret");
    expect(json).toEqual({ webhookSigningSecret: secret.json.webhookSigningSecret, scheme: "standard" });
  });

  it("forwards triggered events signed in both schemes, resumes after a dropped stream and after a restart, each event once", async () => {
    const { webhookSigningSecret: secret } = (await admin.call("GET", "/my-integration/webhook-signing-secret")).json;
    await cobroJson(["charges", "create", "--reference", "CLI-LSN-0001", "--amount", "900"]);
    await cobroJson(["charges", "create", "--reference", "CLI-LSN-0002", "--amount", "900"]);
    const clock = await cobroJson(["clock", "show"]);
    const due = new Date(new Date(clock.now).getTime() + 86_400_000 - 3 * 3_600_000).toISOString().slice(0, 16);
    await cobroJson(["charges", "create", "--reference", "CLI-LSN-0003", "--amount", "900", "--due", due]);
    receiver.requests.length = 0;

    startListener();
    await until(() => listenerOutput.includes("Ready"), "the listener to connect");
    await cobroJson(["trigger", "payment", "--reference", "CLI-LSN-0001"]);
    await until(() => receiver.requests.length >= 1, "the payment");
    const firstEventId = (await admin.events("payment_request.payment_received")).find((event) => event.payload.referenceId === "CLI-LSN-0001")!.eventId;

    // The stream drops; what happens before the listener is back arrives after it reconnects with Last-Event-ID.
    adminProxy.cut();
    adminProxy.restore();
    await cobroJson(["trigger", "unmatched", "--reason", "canceled"]);
    await until(() => listenerOutput.includes("Reconnected"), "the reconnection");
    expect(listenerOutput).toContain(`(after ${firstEventId})`);
    await cobroJson(["trigger", "expiry", "--reference", "CLI-LSN-0003"]);
    await until(() => receiver.requests.length >= 3, "three forwarded events");
    const received = receiver.requests.slice();

    const byEvent = Object.fromEntries(received.map((request) => [request.json.event, request]));
    expect(Object.keys(byEvent).sort()).toEqual(["payment.unmatched", "payment_request.expired", "payment_request.payment_received"]);
    expect(byEvent["payment_request.payment_received"]!.json.referenceId).toBe("CLI-LSN-0001");
    expect(byEvent["payment_request.expired"]!.json.referenceId).toBe("CLI-LSN-0003");
    const listed = (await admin.events()).filter((event) => received.some((request) => request.headers["x-service-webhook-id"] === event.webhookId));
    expect(listed).toHaveLength(3);
    for (const request of received) {
      expect(request.method).toBe("POST");
      expect(request.headers["content-type"]).toBe("application/json");
      expect(verifyWebhook(request.rawBody, request.headers, secret)).toBe(true);
      expect(verifyWebhookSignature(request.rawBody, request.headers["x-service-signature"] as string, secret)).toBe(true);
      expect(verifyStandardWebhook(request.rawBody, request.headers, secret)).toBe(true);
      expect(verifyWebhook(request.rawBody, request.headers, `whsec_${Buffer.alloc(32, 1).toString("base64")}`)).toBe(false);
      expect(request.headers["webhook-id"]).toBe(request.headers["x-service-webhook-id"]);
      const event = listed.find((item) => item.webhookId === request.headers["x-service-webhook-id"])!;
      // The body is the payload the real delivery sends, byte for byte.
      expect(request.rawBody).toBe(JSON.stringify(event.payload));
    }
    // One line per event: time, type, referenceId, the receiver's status, latency.
    const lines = listenerOutput
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line));
    expect(lines).toHaveLength(3);
    for (const line of lines)
      expect(line).toMatchObject({
        time: expect.any(String),
        event: expect.any(String),
        referenceId: expect.any(String),
        status: 200,
        latencyMs: expect.any(Number),
      });

    // Killed: what happens meanwhile arrives once the listener runs again, and nothing twice.
    await stopListener("SIGKILL");
    await cobroJson(["trigger", "payment", "--reference", "CLI-LSN-0002", "--amount", "100"]);
    startListener();
    await until(() => listenerOutput.includes("Ready"), "the restarted listener to connect");
    await until(() => receiver.requests.length >= 4, "the event of the restart");
    const afterRestart = receiver.requests.slice();
    expect(afterRestart[3]!.json).toMatchObject({ event: "payment_request.payment_received", referenceId: "CLI-LSN-0002", paidAmount: 100 });
    expect(verifyWebhook(afterRestart[3]!.rawBody, afterRestart[3]!.headers, secret)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.requests).toHaveLength(4);
    expect(new Set(receiver.requests.map((request) => request.headers["x-service-webhook-id"])).size).toBe(4);
    await stopListener("SIGTERM");
  }, 90_000);

  it("waits as the service asks when the integration's streams are at the server's limit, and Ctrl-C ends the wait at once", async () => {
    // The service's limit (10 by default) taken by other clients of the same integration.
    const others = Array.from({ length: 10 }, () => new AbortController());
    const responses = await Promise.all(
      others.map((controller) =>
        fetch(`${t.adminUrl}/my-integration/events/stream`, { headers: { authorization: `Bearer ${admin.token}` }, signal: controller.signal }),
      ),
    );
    try {
      expect(responses.map((response) => response.status)).toEqual(Array(10).fill(200));
      startListener([], "/limited");
      await until(() => listenerOutput.includes("as many event streams open as the server allows; trying again in 30 s"), "the listener to wait");
      expect(listener!.exitCode).toBeNull();
      const stoppedAt = Date.now();
      await stopListener("SIGINT");
      expect(Date.now() - stoppedAt).toBeLessThan(5_000);
    } finally {
      for (const controller of others) controller.abort();
    }
    // The next listener must find the slots free.
    await expect.poll(() => t.service.eventLog!.openStreams(), { timeout: 5_000 }).toBe(0);
  }, 60_000);

  it("--events forwards only the events named; --from-now skips what happened while no listener ran", async () => {
    await cobroJson(["trigger", "unmatched", "--reason", "canceled"]);
    startListener(["--events", "payment.unmatched,payment_request.expired", "--from-now"], "/filtered");
    await until(() => listenerOutput.includes("Ready"), "the listener to connect");
    await cobroJson(["charges", "create", "--reference", "CLI-LSN-0004", "--amount", "300"]);
    await cobroJson(["trigger", "payment", "--reference", "CLI-LSN-0004"]);
    await cobroJson(["trigger", "unmatched", "--reason", "canceled", "--reference", "CLI-LSN-0004"]);
    await until(() => receiver.at("/filtered").length >= 1, "the unmatched transfer");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.at("/filtered").map((request) => [request.json.event, request.json.referenceId, request.json.reason])).toEqual([
      ["payment.unmatched", "CLI-LSN-0004", "already_paid"],
    ]);
    await stopListener("SIGTERM");
  }, 60_000);
  it("says on one line which event the receiver refused and with what, and --after replays it", async () => {
    await cobroJson(["charges", "create", "--reference", "CLI-LSN-0005", "--amount", "300"]);
    startListener(["--from-now"], "/refusing", false);
    await until(() => listenerOutput.includes("Ready"), "the listener to connect");
    // An event the receiver takes, then the one it refuses: the replay resumes after the first.
    await cobroJson(["trigger", "unmatched", "--reason", "canceled"]);
    await until(() => receiver.at("/refusing").length >= 1, "the first event");
    receiver.answerNext({ status: 500 });
    await cobroJson(["trigger", "payment", "--reference", "CLI-LSN-0005"]);
    await until(() => /refused/.test(listenerOutput), "the refusal's line");
    const refused = (await admin.events("payment_request.payment_received")).find((event) => event.payload.referenceId === "CLI-LSN-0005")!;
    const line = listenerOutput.split("\n").find((text) => text.includes("refused"))!;
    expect(line).toMatch(new RegExp(`^Your receiver refused event ${refused.eventId} \\(payment_request\\.payment_received CLI-LSN-0005\\): HTTP 500\\.`));
    const replay = /cobro listen --forward-to (\S+) --after (\S+)/.exec(line);
    expect(replay, line).not.toBeNull();
    expect(replay![1]).toBe(receiver.url("/refusing"));
    await stopListener("SIGTERM");

    // The replay: every event after the one named, the refused one first.
    startListener(["--after", replay![2]!], "/refusing");
    await until(() => receiver.at("/refusing").length >= 3, "the replayed event");
    expect(receiver.at("/refusing")[2]!.headers["x-service-webhook-id"]).toBe(refused.webhookId);
    await stopListener("SIGTERM");

    // An event the log does not hold: said, not skipped.
    const unknown = await cobro(["listen", "--forward-to", receiver.url("/refusing"), "--after", "00000000-0000-4000-8000-000000000000"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^error EventNotFoundError: .*00000000-0000-4000-8000-000000000000/m);

    // No receiver at all: the same line, with why.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    startListener(["--after", refused.eventId], "/", false, `http://127.0.0.1:${closedPort}/webhooks`);
    await until(() => listenerOutput.includes("Ready"), "the listener to connect");
    await cobroJson(["trigger", "unmatched", "--reason", "canceled"]);
    await until(() => /refused/.test(listenerOutput), "the refusal's line");
    expect(listenerOutput).toMatch(
      new RegExp(`Your receiver refused event [0-9a-f-]{36} \\(payment\\.unmatched[^)]*\\): ECONNREFUSED\\. .*--after ${refused.eventId}\n`),
    );
    await stopListener("SIGTERM");
  }, 60_000);
});

describe("cobro logout", () => {
  it("revokes the session and deletes the profile", async () => {
    expect(await cobroJson(["logout"])).toEqual({ profile: "default", signedOut: true, revoked: true });
    expect(existsSync(join(home, "config", "cobro", "default.json"))).toBe(false);
    expect(existsSync(join(home, "config", "cobro", "default.last-event-id"))).toBe(false);
  });
});
