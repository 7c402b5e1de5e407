// Secrets at rest, over real HTTP and the real database: no secret made through the APIs is found in clear
// in any column of any table; a sealed value moved to another row does not open; values written in clear
// before sealing existed are sealed at the next start; the Sandbox generates its own key (0600) and
// Production refuses to start without COBRO_SECRET_KEY.
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyWebhookSignature } from "../../sdk/src/webhook-signature.ts";
import { postJson, read, serviceForFile, startTestService, TEST_SECRET_KEY, type TestService } from "../helpers/service.ts";
import { exchangeCode, obtainCode } from "../helpers/oauth.ts";
import { sandboxAdmin, sandboxIntegration } from "../helpers/sandbox-admin.ts";
import { startWebhookReceiver, type WebhookReceiver } from "../helpers/webhook-receiver.ts";
import { SealedValueError, SecretKeyring, sealedKeyId, storedText } from "../../domain/secrets/keyring.ts";
import { placeOf, SIGNING_KEY_PRIVATE_JWK, WEBHOOK_SIGNING_SECRET } from "../../domain/secrets/sealed-columns.ts";
import { ConfigError, loadConfig, requireProductionSettings } from "../../runtime/config.ts";
import { startCobro } from "../../scripts/cobro-process.ts";
import { sandboxSecretKeyring } from "../../runtime/secret-key-file.ts";
import type { Sealed } from "../../db/tables/sealed.ts";

const t = serviceForFile({ env: { COBRO_ALLOW_LOOPBACK_URLS: "true" } });
let receiver: WebhookReceiver;
const testKeyring = SecretKeyring.parse(TEST_SECRET_KEY);

beforeAll(async () => {
  receiver = await startWebhookReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

/** Which of `needles` appear, anywhere, in any text, json(b), bytea or array column of any table of the public schema. */
async function foundInDatabase(test: TestService, needles: string[]): Promise<Array<{ needle: string; at: string }>> {
  const { rows: columns } = await sql<{ table_name: string; column_name: string; data_type: string }>`
    select c.table_name, c.column_name, c.data_type from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
    where c.table_schema = 'public' and c.data_type in ('text', 'character varying', 'character', 'json', 'jsonb', 'bytea', 'ARRAY')`.execute(test.database.db);
  expect(columns.length).toBeGreaterThan(50);
  const found: Array<{ needle: string; at: string }> = [];
  for (const column of columns) {
    const value = column.data_type === "bytea" ? sql`encode(${sql.ref(column.column_name)}, 'escape')` : sql`${sql.ref(column.column_name)}::text`;
    const { rows } = await sql<{ needle: string }>`
      select needle from unnest(${needles}::text[]) as needle
      where exists (select 1 from ${sql.table(column.table_name)} where strpos(${value}, needle) > 0)`.execute(test.database.db);
    for (const row of rows) found.push({ needle: row.needle, at: `${column.table_name}.${column.column_name}` });
  }
  return found;
}

describe("secrets at rest", () => {
  it("no secret made through the APIs is stored in clear in any column of any table", async () => {
    const { merchant, admin } = await sandboxIntegration(t);
    const sandbox = merchant.sandbox;
    const integration = await t.database.db
      .selectFrom("integration_clients")
      .select("id")
      .where("provider_client_id", "=", sandbox.integration.clientId)
      .executeTakeFirstOrThrow();

    const signingSecret = (await admin.call("PUT", "/my-integration/webhook-signing-secret/rotate")).json.webhookSigningSecret as string;
    const urlToken = "url-v4lid4t10n-t0k3n-5e4d3c2b1a";
    const url = await admin.call("POST", "/my-integration/urls", { url: receiver.url("/at-rest"), urlType: "webhook", validationToken: urlToken });
    expect(url.status).toBe(201);
    await t.database.db.updateTable("integration_clients").set({ type: "multitenant" }).where("id", "=", integration.id).execute();
    const tenantToken = "t3n4nt-v4lid4t10n-t0k3n-9z8y7x";
    expect(
      (
        await admin.call("POST", "/my-integration/tenant", {
          key: "centro",
          name: "Centro",
          webhook_url: receiver.url("/centro"),
          webhook_validation_token: tenantToken,
        })
      ).status,
    ).toBe(201);
    await admin.call("POST", "/my-integration/api-keys");
    const widgetSecretKey = (await admin.call("POST", "/my-integration/api-keys/rotate-secret")).json.secretKey as string;
    const code = await obtainCode(t.authUrl, sandbox.integration, sandbox.merchant);
    const merchantTokens = await exchangeCode(t.authUrl, sandbox.integration, code);
    expect(merchantTokens.status).toBe(200);
    const adminSession = await read(await postJson(`${t.authUrl}/integration/admin/login`, sandbox.integrationAdmin));
    const clientSecret = (await admin.call("POST", "/my-integration/client-secret/rotate")).json.clientSecret as string;
    const signingKey = await t.database.db.selectFrom("signing_keys").select(["kid", "private_jwk"]).executeTakeFirstOrThrow();
    const privateD = (JSON.parse(testKeyring.open(signingKey.private_jwk, placeOf(SIGNING_KEY_PRIVATE_JWK, signingKey.kid))) as { d: string }).d;

    const secrets: Record<string, string> = {
      signingSecret,
      urlToken,
      tenantToken,
      widgetSecretKey,
      merchantRefreshToken: merchantTokens.json.refreshToken,
      adminRefreshToken: adminSession.json.refreshToken,
      clientSecret,
      firstClientSecret: sandbox.integration.clientSecret,
      privateD,
      merchantPassword: sandbox.merchant.password,
      adminPassword: sandbox.integrationAdmin.password,
      platformAdminPassword: sandbox.platformAdmin.password,
    };
    for (const [name, value] of Object.entries(secrets)) expect(value, name).toEqual(expect.any(String));
    expect(await foundInDatabase(t, Object.values(secrets))).toEqual([]);
    // The scan finds what is stored in clear: the public client id, the publishable widget key.
    const publishableKey = (await admin.call("GET", "/my-integration/api-keys")).json.publishableKey as string;
    expect((await foundInDatabase(t, [sandbox.integration.clientId, publishableKey])).map((hit) => hit.at)).toEqual(
      expect.arrayContaining(["integration_clients.provider_client_id", "widget_keys.publishable_key"]),
    );

    // Sealed is not lost: the receiver gets the validation token, and the signature verifies with the secret.
    const ping = await admin.call("POST", `/my-integration/urls/${url.json.clientUrlId}/test`);
    expect(ping.json).toEqual({ verification: { status: "ok" } });
    const received = receiver.at("/at-rest").at(-1)!;
    expect(received.headers["validation-token"]).toBe(urlToken);
    expect(verifyWebhookSignature(received.rawBody, received.headers["x-service-signature"] as string, signingSecret, { now: t.clock.now() })).toBe(true);
  });

  it("a sealed value moved to another row does not open: the API answers 500 and shows neither secret", async () => {
    const [first, second] = [await t.sandbox(), await t.sandbox()];
    const [firstAdmin, secondAdmin] = [await sandboxAdmin(t, first), await sandboxAdmin(t, second)];
    const firstSecret = (await firstAdmin.call("PUT", "/my-integration/webhook-signing-secret/rotate")).json.webhookSigningSecret as string;
    const secondSecret = (await secondAdmin.call("PUT", "/my-integration/webhook-signing-secret/rotate")).json.webhookSigningSecret as string;
    const idOf = async (clientId: string) =>
      (await t.database.db.selectFrom("integration_clients").select("id").where("provider_client_id", "=", clientId).executeTakeFirstOrThrow()).id;
    const [firstId, secondId] = [await idOf(first.integration.clientId), await idOf(second.integration.clientId)];
    const firstRow = await t.database.db
      .selectFrom("webhook_signing_secrets")
      .select(["integration_client_id", "secret"])
      .where("integration_client_id", "=", firstId)
      .executeTakeFirstOrThrow();
    expect(testKeyring.open(firstRow.secret, placeOf(WEBHOOK_SIGNING_SECRET, firstRow.integration_client_id))).toBe(firstSecret);

    await t.database.db.updateTable("webhook_signing_secrets").set({ secret: firstRow.secret }).where("integration_client_id", "=", secondId).execute();
    const read = await secondAdmin.call("GET", "/my-integration/webhook-signing-secret");
    expect(read.status).toBe(500);
    expect(read.json).toEqual({ code: "InternalError", message: expect.any(String), id: expect.any(String) });
    expect(read.text).not.toContain(firstSecret);
    expect(read.text).not.toContain(secondSecret);
    expect(() => testKeyring.open(firstRow.secret, placeOf(WEBHOOK_SIGNING_SECRET, secondId))).toThrow(SealedValueError);
    // Nor under another column of the same row id.
    expect(() => testKeyring.open(firstRow.secret, { table: "client_urls", column: "validation_token", rowId: firstRow.integration_client_id })).toThrow(
      SealedValueError,
    );
  });

  it("values written in clear before sealing existed are sealed at the next start, and read the same", async () => {
    const sandbox = await t.sandbox();
    const admin = await sandboxAdmin(t, sandbox);
    await admin.call("PUT", "/my-integration/webhook-signing-secret/rotate");
    const integrationId = (
      await t.database.db
        .selectFrom("integration_clients")
        .select("id")
        .where("provider_client_id", "=", sandbox.integration.clientId)
        .executeTakeFirstOrThrow()
    ).id;
    const legacySecret = "whsec_legacy-in-clear-0123456789abcdef";
    await t.database.db
      .updateTable("webhook_signing_secrets")
      .set({ secret: legacySecret as unknown as Sealed })
      .where("integration_client_id", "=", integrationId)
      .execute();
    // Read back in clear meanwhile (a process of the previous version may still write one).
    expect((await admin.call("GET", "/my-integration/webhook-signing-secret")).json.webhookSigningSecret).toBe(legacySecret);
    // The signing key as the migration left it: its jsonb as text.
    const key = await t.database.db.selectFrom("signing_keys").select(["kid", "private_jwk"]).executeTakeFirstOrThrow();
    const privateJwk = testKeyring.open(key.private_jwk, placeOf(SIGNING_KEY_PRIVATE_JWK, key.kid));
    await sql`update signing_keys set private_jwk = ${privateJwk}::jsonb::text where kid = ${key.kid}`.execute(t.database.db);

    const restarted = await startTestService({ database: t.database });
    try {
      const row = await restarted.database.db
        .selectFrom("webhook_signing_secrets")
        .select("secret")
        .where("integration_client_id", "=", integrationId)
        .executeTakeFirstOrThrow();
      expect(sealedKeyId(row.secret)).toBe("test");
      const sealedKey = await restarted.database.db.selectFrom("signing_keys").select("private_jwk").where("kid", "=", key.kid).executeTakeFirstOrThrow();
      expect(JSON.parse(testKeyring.open(sealedKey.private_jwk, placeOf(SIGNING_KEY_PRIVATE_JWK, key.kid)))).toEqual(JSON.parse(privateJwk));
      // Signed with the key sealed at start (a new sign-in), and read the same.
      const again = await sandboxAdmin(restarted, sandbox);
      expect((await again.call("GET", "/my-integration/webhook-signing-secret")).json.webhookSigningSecret).toBe(legacySecret);
      const { rows } = await sql<{ n: number }>`
        select (select count(*) from webhook_signing_secrets where secret not like 'v1.test.%')
             + (select count(*) from signing_keys where private_jwk not like 'v1.test.%') as n`.execute(restarted.database.db);
      expect(Number(rows[0]!.n)).toBe(0);
    } finally {
      await restarted.service.stop();
    }
  }, 120_000);
});

describe("the key", () => {
  it("without COBRO_SECRET_KEY the Sandbox generates one in its data folder (0600) and keeps using it", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "cobro-key-"));
    const sandboxService = await startTestService({ env: { COBRO_SECRET_KEY: "", COBRO_DATA_DIR: dataDir } });
    try {
      const file = join(dataDir, "secret-key");
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const keyring = SecretKeyring.parse(readFileSync(file, "utf8").trim());
      const row = await sandboxService.database.db.selectFrom("signing_keys").select("private_jwk").executeTakeFirstOrThrow();
      expect(sealedKeyId(row.private_jwk)).toBe(keyring.currentKeyId);
      const written = readFileSync(file, "utf8");
      expect(sandboxSecretKeyring(dataDir, [keyring.currentKeyId]).currentKeyId).toBe(keyring.currentKeyId);
      expect(readFileSync(file, "utf8")).toBe(written);
    } finally {
      await sandboxService.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it("Production refuses to start without COBRO_SECRET_KEY, in one readable line, exit status 2", async () => {
    const started = startCobro({ SERVICE_ENV: "production", DATABASE_URL: "postgres://cobro@127.0.0.1:1/none" }, ["--only", "integration,auth,admin"]);
    expect(await started.exited).toBe(2);
    expect(started.output()).toMatch(/^cobro: configuration error\n {2}- COBRO_SECRET_KEY is required in Production [^\n]*\n$/);
    const missing = () => requireProductionSettings(loadConfig({ SERVICE_ENV: "production" }, ["--only", "admin"], false));
    expect(missing).toThrow(ConfigError);
    expect(() => requireProductionSettings(loadConfig({ SERVICE_ENV: "sandbox" }, [], false))).not.toThrow();
    // The service itself refuses too, whatever starts it.
    await expect(startTestService({ database: t.database, env: { SERVICE_ENV: "production", COBRO_SECRET_KEY: "" } })).rejects.toThrow(
      "COBRO_SECRET_KEY is required in Production",
    );
  });

  it("a malformed COBRO_SECRET_KEY is a configuration error, in one readable line", () => {
    for (const malformed of [
      "k1:short",
      `k1:${"z".repeat(64)}`,
      `bad.id:${Buffer.alloc(32).toString("base64")}`,
      `a:${Buffer.alloc(32).toString("hex")},a:${Buffer.alloc(32, 1).toString("base64")}`,
    ]) {
      expect(() => loadConfig({ COBRO_SECRET_KEY: malformed }, [], false), malformed).toThrow(/^COBRO_SECRET_KEY .*$/);
    }
    const ring = loadConfig(
      { SERVICE_ENV: "production", COBRO_SECRET_KEY: `new:${Buffer.alloc(32, 2).toString("base64")}, old:${Buffer.alloc(32, 3).toString("hex")}` },
      [],
      false,
    ).secretKeyring!;
    expect(ring.currentKeyId).toBe("new");
    // A bare key is a one-key ring named by its fingerprint.
    expect(loadConfig({ COBRO_SECRET_KEY: Buffer.alloc(32, 4).toString("base64") }, [], false).secretKeyring!.currentKeyId).toMatch(/^f[0-9a-f]{12}$/);
  });

  it("each value has its own nonce and opens only under a key of the ring", () => {
    const place = { table: "webhook_signing_secrets", column: "secret", rowId: "r1" };
    const one = testKeyring.seal("whsec_same", place);
    const two = testKeyring.seal("whsec_same", place);
    expect(one).toMatch(/^v1\.test\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(one).not.toBe(two);
    expect(testKeyring.open(two, place)).toBe("whsec_same");
    const other = SecretKeyring.parse(`other:${Buffer.alloc(32, 9).toString("base64")}`);
    expect(() => other.open(one, place)).toThrow(/key "test", which is not in COBRO_SECRET_KEY/);
    const text = storedText(one);
    // Change the second-to-last character (all six of its bits carry ciphertext) to one it is not.
    const changed = text.at(-2) === "A" ? "B" : "A";
    const tampered = `${text.slice(0, -2)}${changed}${text.slice(-1)}` as unknown as Sealed;
    expect(tampered).not.toBe(text);
    expect(() => testKeyring.open(tampered, place)).toThrow(SealedValueError);
  });
});
