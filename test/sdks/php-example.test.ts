// sdks/php/examples/quickstart.php as an integrator runs it, with PHP against the whole service on a fresh
// database: the merchant linked through the sign-in screen's HTTP flow, a charge, a simulated transfer, the
// webhook received by the example's own receiver and verified with the SDK (both signatures), the charge
// read back as total_payment, and the receiver's webhook URL deleted.
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { serviceForFile } from "../helpers/service.ts";
import { registeredUrlsOf } from "../helpers/sandbox-admin.ts";
import { phpAvailable, runInPhpSdk } from "../helpers/php.ts";

const t = serviceForFile({ env: { COBRO_ALLOW_LOOPBACK_URLS: "true" }, parts: ["integration", "auth", "admin", "worker"] });
const scratch = mkdtempSync(join(tmpdir(), "cobro-php-example-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("sdks/php/examples/quickstart.php", () => {
  it("links the merchant, charges, pays, verifies the webhook and reads the charge back as total_payment", async ({ skip }) => {
    if (!(await phpAvailable(skip))) return;
    const sandbox = { integrationApiUrl: t.integrationUrl, authApiUrl: t.authUrl, adminApiUrl: t.adminUrl, ...(await t.sandbox()) };
    const sandboxFile = join(scratch, "sandbox.json");
    writeFileSync(sandboxFile, JSON.stringify(sandbox));

    const { code, output } = await runInPhpSdk("php", ["examples/quickstart.php", sandboxFile], { timeoutMs: 80_000 });

    expect(code, output).toBe(0);
    const summary = JSON.parse(output.trim().split("\n").at(-1)!) as { referenceId: string; state: string; webhook: string };
    expect(summary).toEqual({ referenceId: expect.stringMatching(/^PHP-EXAMPLE-/), state: "total_payment", webhook: "verified" });
    expect(output).toContain("merchant linked");
    expect(output).toMatch(/webhook \S+ verified \(X-Service-Signature and Standard Webhooks\): payment_request\.payment_received, stateType total_payment/);
    expect(output).toMatch(/webhook URL http:\/\/127\.0\.0\.1:\d+\/webhooks\/cobro deleted/);

    // The service has the charge paid, and nothing of the integration's is left pointing at the gone receiver.
    const charge = await t.database.db.selectFrom("charges").select("state").where("reference_id", "=", summary.referenceId).executeTakeFirst();
    expect(charge?.state).toBe("total_payment");
    expect(await registeredUrlsOf(t, sandbox.integration.clientId)).toEqual([]);
  }, 90_000);
});
