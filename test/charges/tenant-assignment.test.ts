// PUT /my-integration/tenant over real HTTP: assignment and re-assignment, GET /me's tenantKey, the
// 400, and the three 404s. Tenants are written straight into integration_tenants (the Admin API's tenant
// operations come later). The two 404s the token check normally pre-empts are reached the only way they
// can be: the link ends, or the integration's row goes, between the token check and the assignment.
import { beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import { sql } from "kysely";
import { linkedMerchant, read, serviceForFile, untilMerchantTokenRefused } from "../helpers/service.ts";

const t = serviceForFile({ start: new Date("2026-11-22T15:00:00Z") });

type Merchant = Awaited<ReturnType<typeof linkedMerchant>> & { integrationClientId: string; merchantAccountId: string; linkId: string };

async function merchant(): Promise<Merchant> {
  const m = await linkedMerchant(t);
  const me = await m.call("GET", "/me");
  const link = await t.database.db
    .selectFrom("merchant_links as l")
    .innerJoin("integration_clients as c", "c.id", "l.integration_client_id")
    .select(["l.id", "l.integration_client_id"])
    .where("c.provider_client_id", "=", m.sandbox.integration.clientId)
    .where("l.merchant_account_id", "=", me.json.merchantUserId)
    .executeTakeFirstOrThrow();
  return Object.assign(m, { integrationClientId: link.integration_client_id, merchantAccountId: me.json.merchantUserId as string, linkId: link.id });
}

let sequence = 0;
async function tenant(
  integrationClientId: string,
  options: { key?: string; name?: string; deleted?: boolean } = {},
): Promise<{ id: string; key: string; name: string }> {
  const key = options.key ?? `sucursal-${++sequence}`;
  const name = options.name ?? `Sucursal ${sequence}`;
  const row = await t.database.db
    .insertInto("integration_tenants")
    .values({
      integration_client_id: integrationClientId,
      key,
      name,
      webhook_url: "https://hooks.example.com/cobro",
      validation_token: null,
      deleted_at: options.deleted ? t.clock.now() : null,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  return { id: row.id, key, name };
}

const assign = (m: Merchant, body: unknown) => m.call("PUT", "/my-integration/tenant", body);
const tenantOf = async (m: Merchant) =>
  (await t.database.db.selectFrom("merchant_links").select("tenant_id").where("id", "=", m.linkId).executeTakeFirstOrThrow()).tenant_id;
const notFound = { code: "TenantNotFoundError", message: "The specified tenant does not exist or was deleted" };

/** Resolves once some connection of this test's database waits for a lock. */
async function someoneWaitsForALock(): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const { rows } = await sql<{
      waiting: number;
    }>`select count(*)::int as waiting from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(t.database.db);
    if (rows[0]!.waiting > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("no connection ever waited for the lock");
}

/** Runs `change` in a transaction of another connection, sends the request while it is open, and commits once the request waits for it. */
async function whileUncommitted<T>(change: (client: pg.Client) => Promise<unknown>, request: () => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: t.database.connectionString });
  await client.connect();
  try {
    await client.query("begin");
    await change(client);
    const pending = request();
    await someoneWaitsForALock();
    await client.query("commit");
    return await pending;
  } finally {
    await client.end();
  }
}

describe("assignment", () => {
  it("assigns the token's merchant account to an active tenant: 200 {tenantKey, name}; GET /me shows tenantKey", async () => {
    const m = await merchant();
    const before = await m.call("GET", "/me");
    expect(before.json).not.toHaveProperty("tenantKey");
    const centro = await tenant(m.integrationClientId, { key: "sucursal-centro", name: "Sucursal Centro" });
    const result = await assign(m, { tenantKey: "sucursal-centro" });
    expect(result.status, result.text).toBe(200);
    expect(result.json).toEqual({ tenantKey: "sucursal-centro", name: "Sucursal Centro" });
    expect(await tenantOf(m)).toBe(centro.id);
    const after = await m.call("GET", "/me");
    expect(after.json.tenantKey).toBe("sucursal-centro");
  });

  it("re-assignment replaces the tenant; assigning the same tenant again is a 200 that changes nothing", async () => {
    const m = await merchant();
    const first = await tenant(m.integrationClientId);
    const second = await tenant(m.integrationClientId);
    expect((await assign(m, { tenantKey: first.key })).json).toEqual({ tenantKey: first.key, name: first.name });
    const moved = await assign(m, { tenantKey: second.key });
    expect(moved.status).toBe(200);
    expect(moved.json).toEqual({ tenantKey: second.key, name: second.name });
    expect(await tenantOf(m)).toBe(second.id);
    expect((await m.call("GET", "/me")).json.tenantKey).toBe(second.key);
    const again = await assign(m, { tenantKey: second.key });
    expect(again.status).toBe(200);
    expect(await tenantOf(m)).toBe(second.id);
  });

  it("a tenant has many accounts: two merchants of one integration in the same tenant", async () => {
    const a = await merchant();
    // A second merchant account linked to the same integration.
    const account = await t.database.db
      .insertInto("merchant_accounts")
      .values({
        email: `second+${Date.now()}@cobro.test`,
        password_hash: "x",
        fantasy_name: "Otro",
        account_holder_name: "Otro SA",
        account_holder_tax_id: "30712345671",
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    const link = await t.database.db
      .insertInto("merchant_links")
      .values({ integration_client_id: a.integrationClientId, merchant_account_id: account.id, linked_at: t.clock.now() })
      .returning("id")
      .executeTakeFirstOrThrow();
    const shared = await tenant(a.integrationClientId);
    await t.database.db.updateTable("merchant_links").set({ tenant_id: shared.id }).where("id", "=", link.id).execute();
    expect((await assign(a, { tenantKey: shared.key })).status).toBe(200);
    const members = await t.database.db.selectFrom("merchant_links").select("id").where("tenant_id", "=", shared.id).execute();
    expect(members).toHaveLength(2);
  });

  it("a key whose earlier tenant was deleted assigns to the active tenant that now holds it", async () => {
    const m = await merchant();
    await tenant(m.integrationClientId, { key: "reabierta", name: "Vieja", deleted: true });
    const active = await tenant(m.integrationClientId, { key: "reabierta", name: "Nueva" });
    const result = await assign(m, { tenantKey: "reabierta" });
    expect(result.json).toEqual({ tenantKey: "reabierta", name: "Nueva" });
    expect(await tenantOf(m)).toBe(active.id);
  });
});

describe("404 TenantNotFoundError {code, message}", () => {
  it("for a key no tenant has", async () => {
    const m = await merchant();
    await tenant(m.integrationClientId);
    const result = await assign(m, { tenantKey: "no-existe" });
    expect(result.status).toBe(404);
    expect(result.json).toEqual(notFound);
  });

  it("for a deleted tenant; the earlier assignment stays", async () => {
    const m = await merchant();
    const current = await tenant(m.integrationClientId);
    const deleted = await tenant(m.integrationClientId, { deleted: true });
    expect((await assign(m, { tenantKey: current.key })).status).toBe(200);
    const result = await assign(m, { tenantKey: deleted.key });
    expect(result.status).toBe(404);
    expect(result.json).toEqual(notFound);
    expect(await tenantOf(m)).toBe(current.id);
    expect((await m.call("GET", "/me")).json.tenantKey).toBe(current.key);
  });

  it("for another integration's tenant", async () => {
    const m = await merchant();
    const other = await merchant();
    const theirs = await tenant(other.integrationClientId, { key: "solo-de-otra" });
    const result = await assign(m, { tenantKey: theirs.key });
    expect(result.status).toBe(404);
    expect(result.json).toEqual(notFound);
    expect(await tenantOf(m)).toBeNull();
    expect((await assign(other, { tenantKey: theirs.key })).status).toBe(200);
  });

  it("for a tenant deleted while the assignment waited for it (the tenant row is locked, then re-read)", async () => {
    const m = await merchant();
    const doomed = await tenant(m.integrationClientId);
    const result = await whileUncommitted(
      (client) => client.query("update integration_tenants set deleted_at = now() where id = $1", [doomed.id]),
      () => assign(m, { tenantKey: doomed.key }),
    );
    expect(result.status).toBe(404);
    expect(result.json).toEqual(notFound);
    expect(await tenantOf(m)).toBeNull();
  });
});

describe("400 ValidationError", () => {
  let m: Merchant;
  beforeAll(async () => {
    m = await merchant();
  });

  it.each([
    ["an empty tenantKey", { tenantKey: "" }, "tenantKey", "minLength"],
    ["a missing tenantKey", {}, "tenantKey", "required"],
    ["a tenantKey that is not a string", { tenantKey: 5 }, "tenantKey", "type"],
    ["a null tenantKey", { tenantKey: null }, "tenantKey", "type"],
    ["a field outside the contract", { tenantKey: "a", branch: "x" }, "branch", "notAccepted"],
  ])("%s", async (_what, body, field, rule) => {
    const result = await assign(m, body);
    expect(result.status, result.text).toBe(400);
    expect(result.json).toEqual({
      code: "ValidationError",
      message: expect.any(String),
      id: expect.any(String),
      validationDetails: expect.arrayContaining([expect.objectContaining({ field, rule, message: expect.any(String) })]),
    });
    expect(await tenantOf(m)).toBeNull();
  });

  it("a body that is not JSON", async () => {
    const result = await read(
      await fetch(`${t.integrationUrl}/my-integration/tenant`, {
        method: "PUT",
        headers: { authorization: `Bearer ${m.idToken}`, "content-type": "application/json" },
        body: "{tenantKey",
      }),
    );
    expect(result.status).toBe(400);
    expect(result.json.code).toBe("ValidationError");
  });
});

describe("not linked", () => {
  it("401 without a token; 403 (plain text) from the token check for an unlinked merchant account", async () => {
    const m = await merchant();
    const key = (await tenant(m.integrationClientId)).key;
    const anonymous = await read(
      await fetch(`${t.integrationUrl}/my-integration/tenant`, {
        method: "PUT",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ tenantKey: key }),
      }),
    );
    expect(anonymous.status).toBe(401);
    await t.database.db.updateTable("merchant_links").set({ unlinked_at: t.clock.now() }).where("id", "=", m.linkId).execute();
    await untilMerchantTokenRefused(m.call);
    const result = await assign(m, { tenantKey: key });
    expect(result.status).toBe(403);
    expect(result.text).toBe("Not authorized as user of integration client");
    expect(await tenantOf(m)).toBeNull();
  });

  it("404 ClientUserNotFoundForBindingError {code, message} when the link ends between the token check and the assignment", async () => {
    const m = await merchant();
    const key = (await tenant(m.integrationClientId)).key;
    const result = await whileUncommitted(
      (client) => client.query("update merchant_links set unlinked_at = now() where id = $1", [m.linkId]),
      () => assign(m, { tenantKey: key }),
    );
    expect(result.status).toBe(404);
    expect(result.json).toEqual({ code: "ClientUserNotFoundForBindingError", message: "No integration account was found for the authenticated user" });
    expect(await tenantOf(m)).toBeNull();
  });
});

describe("404 IntegrationCollectGroupNotFoundError (integration onboarding incomplete)", () => {
  it("when the integration's row is gone between the token check and the assignment", async () => {
    const m = await merchant();
    const key = (await tenant(m.integrationClientId)).key;
    const result = await whileUncommitted(
      (client) => client.query("delete from integration_clients where id = $1", [m.integrationClientId]),
      () => assign(m, { tenantKey: key }),
    );
    expect(result.status).toBe(404);
    expect(result.json).toEqual({ code: "IntegrationCollectGroupNotFoundError", message: expect.any(String) });
  });
});
