// Token checks are remembered for at most a second per process, and forgotten at once when PostgreSQL
// notifies `cobro_auth_changed`. If the connection that listens is lost, nothing would tell the process
// about a revocation: it must stop remembering at once (every check reads the database), and listen
// again by itself.
import { sql } from "kysely";
import { afterAll, beforeAll, expect, it } from "vitest";
import { postJson, read, startTestService, type TestService } from "../helpers/service.ts";

let t: TestService;

beforeAll(async () => {
  t = await startTestService();
});
afterAll(() => t?.close());

const me = async (token: string) => read(await fetch(`${t.integrationUrl}/me`, { headers: { authorization: `Bearer ${token}` } }));

async function listeners(): Promise<number> {
  const { rows } = await sql<{ n: string }>`select count(*) as n from pg_stat_activity where datname = current_database() and query = 'LISTEN cobro_auth_changed' and pid <> pg_backend_pid()`.execute(t.database.db);
  return Number(rows[0]!.n);
}

async function until(condition: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within 10 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it("reads the database for every check while the listening connection is lost, and listens again by itself", async () => {
  const sandbox = await t.sandbox();
  const login = await read(await postJson(`${t.authUrl}/integration/admin/login`, sandbox.integrationAdmin));
  const tokens = await read(await fetch(`${t.adminUrl}/my-integration/test-tokens`, { method: "POST", headers: { authorization: `Bearer ${login.json.idToken}` } }));
  const token = tokens.json.idToken as string;
  const before = await me(token);
  expect(before.status).toBe(200); // remembered from here on, for up to a second
  expect(await listeners()).toBe(1);

  await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query = 'LISTEN cobro_auth_changed'`.execute(t.database.db);
  await until(() => t.logLines.some((line) => String(line.msg).startsWith("lost the connection that listens for token changes")), "the process notices the lost connection");

  // Another process unlinks the merchant (a write straight to the database): no notification can arrive,
  // yet the very next check sees it.
  await t.database.db.updateTable("merchant_links").set({ unlinked_at: t.clock.now() }).where("merchant_account_id", "=", before.json.merchantUserId).execute();
  const refused = await me(token);
  expect(refused.status).toBe(403);
  expect(refused.text).toBe("Not authorized as user of integration client");

  await until(async () => (await listeners()) === 1, "the process listens again");
});
