// sdks/python/examples/quickstart.py as its README's "Run the quick start" tells a reader to run it, command
// for command (a virtual environment, the SDK installed from its folder, the example run with the venv's
// Python), in a copy of the repository's layout (sdks/python, and .data/sandbox.json as `npm start` writes
// it), against the whole service on a fresh database: the merchant linked through the sign-in screen's HTTP
// flow, a charge, a simulated transfer, the webhook received on a loopback http.server and verified with the
// SDK's verifier, the charge read back as total_payment, and the webhook URL it registered deleted. Its
// output has no line that reads like a failure. The README's Python blocks are excerpts of it, checked too.
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { serviceForFile } from "../helpers/service.ts";
import { registeredUrlsOf } from "../helpers/sandbox-admin.ts";
import { failureLookingLines, readmeCommands } from "../helpers/readme-commands.ts";
import { runTool, toolMissing, type ToolRun } from "../helpers/missing-tool.ts";

const sdk = resolve(import.meta.dirname, "../../sdks/python");
const t = serviceForFile({ env: { COBRO_ALLOW_LOOPBACK_URLS: "true" }, parts: ["integration", "auth", "admin", "worker"] });
const scratch = mkdtempSync(join(tmpdir(), "cobro-python-quickstart-"));

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function python3HasVenv(): Promise<boolean> {
  return new Promise((resolve) => execFile("python3", ["-c", "import venv, ensurepip"], (error) => resolve(error === null)));
}

/** Runs the README's commands with sh, one script, from the copy's root (where a reader's clone has it). */
function runReadme(commands: string[], cwd: string): Promise<ToolRun> {
  return runTool("sh", ["-e", "-c", commands.join("\n")], {
    cwd,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1", PIP_DISABLE_PIP_VERSION_CHECK: "1" },
    timeoutMs: 600_000,
  });
}

describe("sdks/python/examples/quickstart.py", () => {
  it("links the merchant, charges, pays, verifies the webhook and reads the charge back as total_payment", async ({ skip }) => {
    const commands = readmeCommands(readFileSync(join(sdk, "README.md"), "utf8"), "Run the quick start");
    if (!(await python3HasVenv())) return toolMissing("python3 with venv is unavailable (apt-get install python3-venv)", skip);
    // The repository's layout, as far as the commands reach: sdks/python and the Sandbox's file.
    const clone = join(scratch, "clone");
    cpSync(sdk, join(clone, "sdks", "python"), {
      recursive: true,
      filter: (path) => !/(^|\/)(build|__pycache__|\.pytest_cache|\.venv|[^/]*\.egg-info)$/.test(path.slice(sdk.length)),
    });
    const sandbox = { integrationApiUrl: t.integrationUrl, authApiUrl: t.authUrl, adminApiUrl: t.adminUrl, ...(await t.sandbox()) };
    mkdirSync(join(clone, ".data"));
    writeFileSync(join(clone, ".data", "sandbox.json"), JSON.stringify(sandbox));

    const { code, output, stdout } = await runReadme(commands, clone);

    expect(code, output).toBe(0);
    const summary = JSON.parse(stdout.trim().split("\n").at(-1)!) as { referenceId: string; state: string; webhook: string; event: string };
    expect(summary).toEqual({
      referenceId: expect.stringMatching(/^QUICKSTART-/),
      state: "total_payment",
      webhook: "verified",
      event: "payment_request.payment_received",
      assignedTo: `${summary.referenceId}-M`,
      assignedChargeState: "total_payment",
      returnState: "requested",
    });
    expect(output).toMatch(
      new RegExp(`unmatched transfer \\S+ \\(canceled\\) assigned to ${summary.referenceId}-M: 800(\\.0)? applied, the charge is total_payment`),
    );
    expect(output).toMatch(/unmatched transfer \S+ returned: 800(\.0)? to 0000003100000000000017, requested/);
    // Neither pip's lines nor the example's read like a failure.
    expect(failureLookingLines(output), output).toEqual([]);
    expect(output).toMatch(/test tokens: the Sandbox's test merchant account is [0-9a-f-]{36}/);
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
