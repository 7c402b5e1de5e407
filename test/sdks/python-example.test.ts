// sdks/python/examples/quickstart.py as an integrator runs it, with the SDK installed from its folder
// (.venv-sdk-python), against the whole service on a fresh database: the merchant linked through the
// sign-in screen's HTTP flow, a charge, a simulated transfer, the webhook received on a loopback
// http.server and verified with the SDK's verifier, the charge read back as total_payment, and the webhook
// URL it registered deleted. The README's Python blocks are excerpts of it, checked here too.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { serviceForFile } from "../helpers/service.ts";
import { registeredUrlsOf } from "../helpers/sandbox-admin.ts";
import { pythonWithSdk } from "../helpers/python-venv.ts";

const sdk = resolve(import.meta.dirname, "../../sdks/python");
const t = serviceForFile({ env: { COBRO_ALLOW_LOOPBACK_URLS: "true" }, parts: ["integration", "auth", "admin", "worker"] });
const scratch = mkdtempSync(join(tmpdir(), "cobro-python-quickstart-"));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function runExample(python: string, sandboxFile: string): Promise<{ code: number | null; output: string; stdout: string }> {
  // Run from the scratch folder: the example imports the installed package, not sdks/python's sources.
  const child = execFile(python, [join(sdk, "examples", "quickstart.py"), sandboxFile], {
    cwd: scratch,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
    timeout: 120_000,
  });
  let output = "";
  let stdout = "";
  child.stdout!.on("data", (chunk) => {
    output += chunk;
    stdout += chunk;
  });
  child.stderr!.on("data", (chunk) => (output += chunk));
  return new Promise((done) => child.on("close", (code) => done({ code, output, stdout })));
}

describe("sdks/python/examples/quickstart.py", () => {
  it("links the merchant, charges, pays, verifies the webhook and reads the charge back as total_payment", async ({ skip }) => {
    const python = await pythonWithSdk(skip);
    if (!python) return;
    const sandbox = { integrationApiUrl: t.integrationUrl, authApiUrl: t.authUrl, adminApiUrl: t.adminUrl, ...(await t.sandbox()) };
    const sandboxFile = join(scratch, "sandbox.json");
    writeFileSync(sandboxFile, JSON.stringify(sandbox));

    const { code, output, stdout } = await runExample(python, sandboxFile);

    expect(code, output).toBe(0);
    const summary = JSON.parse(stdout.trim().split("\n").at(-1)!) as { referenceId: string; state: string; webhook: string; event: string };
    expect(summary).toEqual({
      referenceId: expect.stringMatching(/^QUICKSTART-/),
      state: "total_payment",
      webhook: "verified",
      event: "payment_request.payment_received",
    });
    expect(output).toContain("merchant linked");
    expect(output).toMatch(new RegExp(`charge ${summary.referenceId} created: pending, pay 1500.5 to CVU \\d{22}`));
    expect(output).toMatch(/webhook [0-9a-f-]{36} verified: payment_request\.payment_received, stateType total_payment/);
    expect(output).toMatch(/webhook URL http:\/\/127\.0\.0\.1:\d+\/webhooks\/cobro deleted/);

    // What the example says it did is what the service holds: the charge paid, the receiver's URL gone.
    const charge = await t.database.db.selectFrom("charges").select(["state"]).where("reference_id", "=", summary.referenceId).executeTakeFirstOrThrow();
    expect(charge.state).toBe("total_payment");
    expect(await registeredUrlsOf(t, sandbox.integration.clientId)).toEqual([]);
  }, 900_000);

  it("is what the README's quick start shows: each of its Python blocks is a passage of the example", () => {
    const readme = readFileSync(join(sdk, "README.md"), "utf8");
    const example = readFileSync(join(sdk, "examples", "quickstart.py"), "utf8");
    const normalise = (text: string) => text.replace(/^[ ]+/gm, "").trim();
    const blocks = [...readme.matchAll(/```python\n([\s\S]*?)```/g)].map((match) => match[1]!);
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    for (const block of blocks) expect(normalise(example), `README block not in quickstart.py:\n${block}`).toContain(normalise(block));
  });
});
