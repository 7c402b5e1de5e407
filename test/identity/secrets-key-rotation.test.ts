// Rotating COBRO_SECRET_KEY as docs/secrets.md tells: the new key first in the ring of every process, then
// `npm run secrets:rotate-key` with the service running, then the old key dropped. Before, during and after,
// webhooks are signed with the same secret and carry the same validation tokens, and tokens verify; after,
// every sealed value carries the new key id, and a process given only the old key refuses to start.
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { verifyWebhookSignature } from "../../sdk/src/webhook-signature.ts";
import { bearerCaller, read, serviceForFile, startTestService, type TestService } from "../helpers/service.ts";
import { sandboxAdmin, sandboxIntegration } from "../helpers/sandbox-admin.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";
import { ROOT, runScript } from "../../scripts/cobro-process.ts";
import { SEALED_COLUMNS } from "../../domain/secrets/sealed-columns.ts";

const oldKey = `old:${randomBytes(32).toString("base64")}`;
const newKey = `new:${randomBytes(32).toString("hex")}`;
const loopback = { COBRO_ALLOW_LOOPBACK_URLS: "true" };

/** The first process: the test stops it itself (the restarts run on its database); its close() then closes the database. */
const first = serviceForFile({ env: { COBRO_SECRET_KEY: oldKey, ...loopback } });
let receiver: WebhookReceiver;
/** The services started since, on the first one's database; the first is stopped before them. */
const running: TestService[] = [];

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
  for (const service of running) await service.service.stop();
});

/** A restart of the service on the same database with another ring (what each process gets in turn). */
async function restartWith(ring: string): Promise<TestService> {
  for (const service of running.splice(0)) await service.service.stop();
  const service = await startTestService({ database: first.database, env: { COBRO_SECRET_KEY: ring, ...loopback } });
  running.push(service);
  return service;
}

function rotateKey(args: string[], env: Record<string, string> = { COBRO_SECRET_KEY: `${newKey},${oldKey}` }) {
  return runScript(join(ROOT, "scripts", "secrets-rotate-key.ts"), args, {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    DATABASE_URL: first.database.connectionString,
    ...env,
  });
}

/** The key ids of every sealed value in the database. */
async function keyIdsInDatabase(): Promise<string[]> {
  const ids = new Set<string>();
  for (const column of SEALED_COLUMNS) {
    const { rows } = await sql<{
      key_id: string;
    }>`select distinct split_part(${sql.ref(column.column)}, '.', 2) as key_id from ${sql.table(column.table)} where ${sql.ref(column.column)} is not null`.execute(
      first.database.db,
    );
    for (const row of rows) ids.add(row.key_id);
  }
  return [...ids].sort();
}

it("refuses, re-sealing nothing and writing no key, when a stored secret's key is not in the ring", async () => {
  expect(await keyIdsInDatabase()).toEqual(["old"]);
  const withoutOld = await rotateKey([], { COBRO_SECRET_KEY: newKey });
  expect(withoutOld.code).toBe(1);
  expect(withoutOld.stderr).toMatch(/sealed under the key "old", which is not in COBRO_SECRET_KEY/);
  // No COBRO_SECRET_KEY and no Sandbox key file: the key that sealed them is missing, not to be made anew.
  const dataDir = mkdtempSync(join(tmpdir(), "cobro-rotate-"));
  try {
    const withoutFile = await rotateKey([], { COBRO_DATA_DIR: dataDir });
    expect(withoutFile.code).toBe(1);
    expect(withoutFile.stderr).toMatch(/secret-key is missing, and the database holds secrets sealed under the key "old"/);
    expect(existsSync(join(dataDir, "secret-key"))).toBe(false);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  expect(await keyIdsInDatabase()).toEqual(["old"]);
}, 120_000);

it("rotates with the service running: webhooks keep their secret and tokens, tokens verify, every value moves to the new key", async () => {
  // Three integrations, each with a signing secret, a webhook URL with its token and a tenant with its own.
  const integrations: Array<{
    index: number;
    merchant: Awaited<ReturnType<typeof sandboxIntegration>>["merchant"];
    adminToken: string;
    signingSecret: string;
    clientUrlId: string;
    urlToken: string;
    tenantToken: string;
  }> = [];
  for (let index = 0; index < 3; index++) {
    const { merchant, admin } = await sandboxIntegration(first);
    await admin.call("PUT", "/my-integration/webhook-subscriptions", { enabledEvents: ["payment.unmatched"] });
    const signingSecret = (await admin.call("PUT", "/my-integration/webhook-signing-secret/rotate")).json.webhookSigningSecret as string;
    const urlToken = `url-t0k3n-${index}-${randomBytes(8).toString("hex")}`;
    const url = await admin.call("POST", "/my-integration/urls", { url: receiver.url(`/rotation/${index}`), urlType: "webhook", validationToken: urlToken });
    expect(url.status).toBe(201);
    await first.database.db
      .updateTable("integration_clients")
      .set({ type: "multitenant" })
      .where("provider_client_id", "=", merchant.sandbox.integration.clientId)
      .execute();
    const tenantToken = `tenant-t0k3n-${index}-${randomBytes(8).toString("hex")}`;
    expect(
      (
        await admin.call("POST", "/my-integration/tenant", {
          key: "centro",
          name: "Centro",
          webhook_url: receiver.url(`/rotation/${index}/centro`),
          webhook_validation_token: tenantToken,
        })
      ).status,
    ).toBe(201);
    integrations.push({ index, merchant, adminToken: admin.token, signingSecret, clientUrlId: url.json.clientUrlId as string, urlToken, tenantToken });
  }
  expect(await keyIdsInDatabase()).toEqual(["old"]);

  /** Every integration's webhooks (a URL test, a tenant's test webhook) and tokens, against `service`. */
  const expectWorking = async (service: TestService) => {
    for (const integration of integrations) {
      const admin = bearerCaller(service.adminUrl, () => integration.adminToken);
      const seen = receiver.at(`/rotation/${integration.index}`).length;
      expect((await admin("POST", `/my-integration/urls/${integration.clientUrlId}/test`)).json).toEqual({ verification: { status: "ok" } });
      const ping = receiver.at(`/rotation/${integration.index}`)[seen]!;
      expect(ping.headers["validation-token"]).toBe(integration.urlToken);
      expect(verifyWebhookSignature(ping.rawBody, ping.headers["x-service-signature"] as string, integration.signingSecret, { now: service.clock.now() })).toBe(
        true,
      );

      const tenantSeen = receiver.at(`/rotation/${integration.index}/centro`).length;
      const test = await admin("POST", "/my-integration/test-webhook", { event: "payment.unmatched", reason: "already_paid", tenantKey: "centro" });
      expect(test.json, test.text).toMatchObject({ delivered: true, status: "delivered" });
      const tenantRequest = receiver.at(`/rotation/${integration.index}/centro`)[tenantSeen]!;
      expect(tenantRequest.headers["validation-token"]).toBe(integration.tenantToken);
      expect(
        verifyWebhookSignature(tenantRequest.rawBody, tenantRequest.headers["x-service-signature"] as string, integration.signingSecret, {
          now: service.clock.now(),
        }),
      ).toBe(true);

      expect((await admin("GET", "/my-integration/webhook-signing-secret")).json.webhookSigningSecret).toBe(integration.signingSecret);
      expect((await read(await fetch(`${service.integrationUrl}/me`, { headers: { authorization: `Bearer ${integration.merchant.idToken}` } }))).status).toBe(
        200,
      );
    }
    // A token signed now (with the private key opened under this ring) verifies too.
    const fresh = await sandboxAdmin(service, integrations[0]!.merchant.sandbox);
    expect((await fresh.call("GET", "/my-integration/webhook-signing-secret")).status).toBe(200);
  };

  await expectWorking(first);
  await first.service.stop();

  // 1. The new key leads the ring of every process; the old one still opens.
  const rolled = await restartWith(`${newKey},${oldKey}`);
  await expectWorking(rolled);

  // 2. The rotation, in batches of two, while the service keeps serving.
  const rotation = rotateKey(["--batch-size", "2"]);
  let done = false;
  void rotation.finally(() => (done = true));
  let rounds = 0;
  do {
    await expectWorking(rolled);
    rounds++;
  } while (!done);
  const result = await rotation;
  expect(result.code, result.stderr).toBe(0);
  expect(rounds).toBeGreaterThan(0);
  expect(result.stdout).toContain('re-sealing under the key "new" (batches of 2)');
  expect(result.stdout).toMatch(/webhook_signing_secrets\.secret\s+3 re-sealed/);
  expect(result.stdout).toMatch(/client_urls\.validation_token\s+3 re-sealed/);
  expect(result.stdout).toMatch(/integration_tenants\.validation_token\s+3 re-sealed/);
  expect(result.stdout).toMatch(/signing_keys\.private_jwk\s+1 re-sealed/);
  expect(result.stdout).toContain("10 values re-sealed; 0 left under another key");
  expect(await keyIdsInDatabase()).toEqual(["new"]);
  await expectWorking(rolled);

  // Again: nothing to do.
  const again = await rotateKey([]);
  expect(again.code, again.stderr).toBe(0);
  expect(again.stdout).toContain("0 values re-sealed; 0 left under another key");

  // 3. The old key leaves the ring.
  await expectWorking(await restartWith(newKey));

  // A process still given only the old key cannot open the signing key, and says which key it lacks.
  for (const service of running.splice(0)) await service.service.stop();
  await expect(startTestService({ database: first.database, env: { COBRO_SECRET_KEY: oldKey } })).rejects.toThrow(
    /sealed under the key "new", which is not in COBRO_SECRET_KEY/,
  );
}, 600_000);
