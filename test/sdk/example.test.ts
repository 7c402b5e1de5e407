// sdk/examples/integrator.ts as an integrator runs it: in a project of its own where `@cobro/sdk` is the
// built package (tsc of sdk/ into the project's node_modules, as `npm pack` would ship it: a build of our
// own, so that it never races test/sdk/package.test.ts over sdk/dist), typechecked against the published
// declarations, then run with Node against the whole service on a fresh database: OAuth link, a charge, a
// simulated transfer, the signed webhook, the charge read back as total_payment, its webhook URL deleted.
import { spawn } from "node:child_process";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serviceForFile } from "../helpers/service.ts";
import { registeredUrlsOf } from "../helpers/sandbox-admin.ts";
import { createIntegratorProject, tearDownIntegratorProject, typecheckIntegratorProject } from "./integrator-project.ts";

const root = resolve(import.meta.dirname, "../..");
// The example skips the webhook step, and says so, where the service does not deliver webhooks yet.
const deliversWebhooks = readFileSync(join(root, "jobs", "tasks.ts"), "utf8").includes('"deliver-event"');

const t = serviceForFile({ env: { COBRO_ALLOW_LOOPBACK_URLS: "true" }, parts: ["integration", "auth", "admin", "worker"] });
let project: string;

beforeAll(async () => {
  project = await createIntegratorProject("cobro-sdk-example-");
  copyFileSync(join(root, "sdk", "examples", "integrator.ts"), join(project, "integrator.ts"));
}, 120_000);

afterAll(() => tearDownIntegratorProject(project));

describe("sdk/examples/integrator.ts", () => {
  it("typechecks against the package's declarations (strict, nodenext)", async () => {
    await typecheckIntegratorProject(project, ["integrator.ts"]);
  }, 60_000);

  it("links the merchant, charges, pays, verifies the webhook and reads the charge back as total_payment", async () => {
    const sandbox = { integrationApiUrl: t.integrationUrl, authApiUrl: t.authUrl, adminApiUrl: t.adminUrl, ...(await t.sandbox()) };
    const sandboxFile = join(project, "sandbox.json");
    writeFileSync(sandboxFile, JSON.stringify(sandbox));

    const child = spawn(process.execPath, [join(project, "integrator.ts"), sandboxFile], { cwd: project, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk) => (output += chunk));
    child.stderr.on("data", (chunk) => (output += chunk));
    const exitCode = await new Promise<number | null>((done) => child.on("close", done));

    expect(exitCode, output).toBe(0);
    const summary = JSON.parse(output.trim().split("\n").at(-1)!) as { referenceId: string; state: string; webhook: string };
    expect(summary.state).toBe("total_payment");
    expect(summary.webhook).toBe(deliversWebhooks ? "verified" : "skipped");
    expect(output).toContain("merchant linked");
    if (!deliversWebhooks) expect(output).toContain("SKIPPED the webhook step");
    // It deleted the webhook URL it registered: nothing of the integration's is left pointing at its gone receiver.
    if (deliversWebhooks) expect(output).toMatch(/webhook URL http:\/\/127\.0\.0\.1:\d+\/webhooks\/cobro deleted/);
    expect(await registeredUrlsOf(t, sandbox.integration.clientId)).toEqual([]);
  }, 90_000);
});
