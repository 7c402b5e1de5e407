// sdks/php/examples/quickstart.php as an integrator runs it, with PHP against the whole service on a fresh
// database: the merchant linked through the sign-in screen's HTTP flow, a charge, a simulated transfer, the
// webhook received by the example's own receiver and verified with the SDK (both signatures), the charge
// read back as total_payment, and the receiver's webhook URL deleted. It runs what the README's "Run the quick
// start" tells a reader to run, from the README, and its output has no line that reads like a failure.
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { serviceForFile } from "../helpers/service.ts";
import { registeredUrlsOf } from "../helpers/sandbox-admin.ts";
import { PHP_SDK_DIR, phpAvailable, runInPhpSdk } from "../helpers/php.ts";
import { failureLookingLines, readmeCommands } from "../helpers/readme-commands.ts";

const t = serviceForFile({ env: { COBRO_ALLOW_LOOPBACK_URLS: "true" }, parts: ["integration", "auth", "admin", "worker"] });
const scratch = mkdtempSync(join(tmpdir(), "cobro-php-example-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("sdks/php/examples/quickstart.php", () => {
  it("links the merchant, charges, pays, verifies the webhook and reads the charge back as total_payment", async ({ skip }) => {
    if (!(await phpAvailable(skip))) return;
    const sandbox = { integrationApiUrl: t.integrationUrl, authApiUrl: t.authUrl, adminApiUrl: t.adminUrl, ...(await t.sandbox()) };
    const sandboxFile = join(scratch, "sandbox.json");
    writeFileSync(sandboxFile, JSON.stringify(sandbox));

    // The README's command, with this Sandbox's file where a reader's is.
    const commands = readmeCommands(readFileSync(join(PHP_SDK_DIR, "README.md"), "utf8"), "Run the quick start");
    expect(commands).toEqual(["php examples/quickstart.php ../../.data/sandbox.json"]);
    const [command, ...args] = commands[0]!.replace("../../.data/sandbox.json", sandboxFile).split(" ");
    expect(command).toBe("php");
    const { code, output } = await runInPhpSdk("php", args, { timeoutMs: 80_000 });

    expect(code, output).toBe(0);
    const summary = JSON.parse(output.trim().split("\n").at(-1)!) as { referenceId: string; state: string; webhook: string };
    expect(summary).toEqual({
      referenceId: expect.stringMatching(/^PHP-EXAMPLE-/),
      state: "total_payment",
      webhook: "verified",
      assignedTo: `${summary.referenceId}-M`,
      assignedChargeState: "total_payment",
      returnState: "requested",
    });
    expect(output).toMatch(new RegExp(`unmatched transfer \\S+ \\(canceled\\) assigned to ${summary.referenceId}-M: 800 applied, the charge is total_payment`));
    expect(output).toMatch(/unmatched transfer \S+ returned: 800 to 0000003100000000000017, requested/);
    expect(failureLookingLines(output), output).toEqual([]);
    expect(output).toContain("merchant linked");
    expect(output).toMatch(/test tokens: the Sandbox's test merchant account is [0-9a-f-]{36}/);
    expect(output).toMatch(/typed exceptions: an unused referenceId throws NotFoundException \(id [0-9a-f-]{36}\), as expected/);
    expect(output).toMatch(/is total_payment \(surcharge percentage 10 after the first due date\)/);
    expect(output).toMatch(/webhook \S+ verified \(X-Service-Signature and Standard Webhooks\): payment_request\.payment_received, stateType total_payment/);
    expect(output).toMatch(/webhook URL http:\/\/127\.0\.0\.1:\d+\/webhooks\/cobro deleted/);

    // The service has the charge paid, and nothing of the integration's is left pointing at the gone receiver.
    const charge = await t.database.db.selectFrom("charges").select("state").where("reference_id", "=", summary.referenceId).executeTakeFirst();
    expect(charge?.state).toBe("total_payment");
    expect(await registeredUrlsOf(t, sandbox.integration.clientId)).toEqual([]);
  }, 90_000);
});
