// docs/sandbox-walkthrough.md, run as a reader runs it: its first shell block starts Cobro (here a Cobro
// process on a fresh embedded PostgreSQL whose data folder is `.data/` of a scratch directory, started with
// the block's own environment), its second is the webhook receiver (run in the background), and the rest
// are the calls, run in order in one bash from that scratch directory. Only the receiver's port is
// replaced by a free one. The charge must end `total_payment` and the receiver must print its webhook. A
// webhook URL left from an earlier try is registered first: the walkthrough's clean-up must delete it.
// The calls run twice on the one Sandbox, its clock moved weeks ahead in between as the short path's
// `cobro trigger expiry` leaves it: a reader runs the walkthrough again, and its dates are the clock's.
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, startCobro, waitForOutput, type StartedCobro } from "../../scripts/cobro-process.ts";
import { codeBlocks } from "./code-blocks.ts";
import { postJson, read } from "../helpers/service.ts";

const DOC = join(ROOT, "docs", "sandbox-walkthrough.md");
const DOCUMENTED_RECEIVER_PORT = "8081";

const blocks = codeBlocks(DOC, "sh");
const [startBlock, receiverBlock, ...callBlocks] = blocks;

let scratch: string;
let cobro: StartedCobro | undefined;
let receiver: ChildProcess | undefined;
let receiverOutput = "";

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** `A=1 B=2 npm start` → {A: "1", B: "2"}; anything but variables before `npm start` fails. */
function environmentOfStart(block: string): Record<string, string> {
  const words = block.trim().split(/\s+/);
  expect(words.slice(-2), "the first shell block starts Cobro").toEqual(["npm", "start"]);
  return Object.fromEntries(
    words.slice(0, -2).map((word) => {
      const match = /^([A-Z_]+)=(.*)$/.exec(word);
      expect(match, `a variable assignment: ${word}`).not.toBeNull();
      return [match![1]!, match![2]!];
    }),
  );
}

function runBash(script: string, cwd: string, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", script], {
      cwd,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

async function waitFor(condition: () => boolean, what: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "cobro-walkthrough-"));
  chmodSync(scratch, 0o711); // the embedded PostgreSQL's own user must enter it to reach .data/
  cobro = startCobro({ ...environmentOfStart(startBlock!), COBRO_DATA_DIR: join(scratch, ".data") });
  await waitForOutput(cobro, /A new Sandbox/);
}, 120_000);

afterAll(async () => {
  // The receiver runs in its own process group (bash and its node): end the group.
  if (receiver?.pid !== undefined && receiver.exitCode === null) process.kill(-receiver.pid, "SIGTERM");
  if (cobro && cobro.child.exitCode === null) {
    cobro.child.kill("SIGTERM");
    const stopped = await Promise.race([cobro.exited.then(() => true), new Promise((resolve) => setTimeout(() => resolve(false), 20_000))]);
    if (!stopped) cobro.child.kill("SIGKILL");
  }
  if (scratch) rmSync(scratch, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}, 30_000);

describe("docs/sandbox-walkthrough.md", () => {
  it("starts Cobro, a receiver, then runs every call twice, the clock moved weeks ahead in between: each charge is paid and its webhook arrives", async () => {
    expect(receiverBlock, "the second shell block is the webhook receiver").toContain(`.listen(${DOCUMENTED_RECEIVER_PORT}`);
    expect(callBlocks.length).toBeGreaterThan(5);
    const port = String(await freePort());
    const withPort = (block: string) => block.replaceAll(`:${DOCUMENTED_RECEIVER_PORT}`, `:${port}`).replaceAll(`(${DOCUMENTED_RECEIVER_PORT},`, `(${port},`);

    receiver = spawn("bash", ["-c", withPort(receiverBlock!)], {
      cwd: scratch,
      detached: true,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    receiver.stdout!.on("data", (chunk) => (receiverOutput += chunk));
    receiver.stderr!.on("data", (chunk) => (receiverOutput += chunk));
    await waitFor(() => receiverOutput.includes(`listening on http://127.0.0.1:${port}/webhooks`), "the receiver to listen", 10_000);

    const sandbox = JSON.parse(readFileSync(join(scratch, ".data", "sandbox.json"), "utf8"));
    const login = await read(await postJson(`${sandbox.authApiUrl}/integration/admin/login`, sandbox.integrationAdmin));
    const admin = { authorization: `Bearer ${login.json.idToken}` };
    const calls = ["set -euo pipefail", ...callBlocks.map(withPort)].join("\n");
    expect(calls).toContain(`http://127.0.0.1:${port}/webhooks`);

    const walkthrough = async (): Promise<void> => {
      // An earlier try's receiver, registered before the walkthrough's (so not receiving the events), on a port where nothing listens.
      const stale = await read(
        await postJson(`${sandbox.adminApiUrl}/my-integration/urls`, { url: `http://127.0.0.1:${await freePort()}/webhooks`, urlType: "webhook" }, admin),
      );
      expect(stale.status, stale.text).toBe(201);
      const staleId: string = stale.json.clientUrlId;

      const { code, output } = await runBash(calls, scratch, 60_000);
      expect(code, output).toBe(0);

      const reference = /"referenceId": "(WALK-\d+-\d+)"/.exec(output)?.[1];
      expect(reference, output).toBeDefined();
      expect(output).toContain('"verification": {\n    "status": "ok"');
      expect(output).toContain('"conciliated": true');
      // The form the walkthrough's Standard Webhooks snippets take with their default constructor.
      expect(output).toMatch(/"webhookSigningSecret": "whsec_[A-Za-z0-9+/]{43}=",\n {2}"scheme": "standard"/);
      // The list said which URL receives the events, and the clean-up deleted the other one.
      expect(output).toContain(`"url": "http://127.0.0.1:${port}/webhooks",\n  "receivesEvents": true`);
      expect(output).toContain(`deleted ${staleId}`);
      const left = await read(await fetch(`${sandbox.adminApiUrl}/my-integration/urls`, { headers: admin }));
      expect(left.json.items.map((item: { data: { url: string }; receivesEvents: boolean }) => [item.data.url, item.receivesEvents])).toEqual([
        [`http://127.0.0.1:${port}/webhooks`, true],
      ]);
      // The charge read back.
      expect(output).toContain(`{\n  "referenceId": "${reference}",\n  "state": "total_payment",\n  "amount": 1500.5\n}`);
      // Further: the clock shown and moved a day, the test webhook delivered, the Integration API's OpenAPI document.
      expect(output).toMatch(/"offsetSeconds": \d+,\n {2}"today": "\d{4}-\d{2}-\d{2}"\n\}\n\{\n {2}"now": /);
      expect(output).toContain('{\n  "status": "delivered",\n  "delivered": true,');
      expect(output).toMatch(/^openapi: 3\./m);

      await waitFor(() => receiverOutput.includes(`"referenceId":"${reference}"`), "the webhook of the charge", 15_000);
      expect(receiverOutput).toContain('{"event":"ping"}');
      const webhook = receiverOutput.split("\n").find((line) => line.includes(`"referenceId":"${reference}"`))!;
      expect(JSON.parse(webhook)).toMatchObject({
        event: "payment_request.payment_received",
        stateType: "total_payment",
        referenceId: reference,
        paidAmount: 1500.5,
      });
      expect(receiverOutput).toMatch(/^POST \/webhooks [0-9a-f-]{36} t=\d+,v1=[0-9a-f]{64}$/m);
      expect(receiverOutput).toContain('"reason":"no_cuil_match"');
    };

    await walkthrough();
    // What the short path's `cobro trigger expiry` leaves: the integration's clock weeks ahead of the computer's.
    const moved = await read(await postJson(`${sandbox.adminApiUrl}/my-integration/sandbox-clock`, { advanceBy: "P5W" }, admin));
    expect(moved.status, moved.text).toBe(200);
    await walkthrough();

    // The short path's due date is the Sandbox's today plus three days, at 18:00, by its jq filter.
    const commands = codeBlocks(DOC, "console").flatMap((block) =>
      block
        .split("\n")
        .filter((line) => line.startsWith("$ "))
        .map((line) => line.slice(2)),
    );
    const dueFilter = /^DUE=\$\(npx cobro clock show --json \| jq -r '([^']+)'\)$/.exec(commands.find((line) => line.startsWith("DUE=")) ?? "")?.[1];
    expect(dueFilter, "the short path computes its due date from `cobro clock show --json`").toBeDefined();
    const clock = await read(await fetch(`${sandbox.adminApiUrl}/my-integration/sandbox-clock`, { headers: admin }));
    const due = await runBash(`jq -r '${dueFilter}' <<'JSON'\n${clock.text}\nJSON`, scratch, 10_000);
    const threeDaysLater = new Date(Date.parse(`${clock.json.today}T00:00:00Z`) + 3 * 86_400_000).toISOString().slice(0, 10);
    expect(due.output.trim()).toBe(`${threeDaysLater}T18:00`);

    // Starting over, with the documented curl: the clock is back at real time.
    const reset = commands.find((line) => line.includes("/my-integration/sandbox-clock/reset"));
    expect(reset).toBeDefined();
    const { code, output } = await runBash(`ADMIN_API=${sandbox.adminApiUrl}\nADMIN_TOKEN=${login.json.idToken}\n${reset}`, scratch, 10_000);
    expect(code, output).toBe(0);
    expect(JSON.parse(output)).toMatchObject({ offsetSeconds: 0 });
  }, 180_000);
});
