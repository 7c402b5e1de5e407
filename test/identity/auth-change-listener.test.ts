// Token checks are remembered for at most a second per process, and forgotten at once when PostgreSQL
// notifies `cobro_auth_changed`. If the connection that listens is lost, nothing would tell the process
// about a revocation: it must stop remembering at once (every check reads the database), and listen
// again by itself.
import { sql } from "kysely";
import { expect, it } from "vitest";
import { TokenCheckCache } from "../../domain/sign-in/token-check-cache.ts";
import { chargeBody } from "../helpers/charges.ts";
import { sandboxIntegration } from "../helpers/sandbox-admin.ts";
import { postJson, read, serviceForFile } from "../helpers/service.ts";

/** Counts what made the process forget its remembered checks. */
class CountedTokenChecks extends TokenCheckCache {
  forgettings = 0;
  override changed(): void {
    this.forgettings++;
    super.changed();
  }
}
const tokenChecks = new CountedTokenChecks();

const t = serviceForFile({ tokenChecks });

const me = async (token: string) => read(await fetch(`${t.integrationUrl}/me`, { headers: { authorization: `Bearer ${token}` } }));

async function listeners(): Promise<number> {
  const { rows } = await sql<{
    n: string;
  }>`select count(*) as n from pg_stat_activity where datname = current_database() and query = 'LISTEN cobro_auth_changed' and pid <> pg_backend_pid()`.execute(
    t.database.db,
  );
  return Number(rows[0]!.n);
}

async function dropListeningConnection(): Promise<void> {
  await sql`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query = 'LISTEN cobro_auth_changed'`.execute(
    t.database.db,
  );
}

const lostListenings = () => t.logLines.filter((line) => String(line.msg).startsWith("lost the connection that listens for token changes")).length;

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
  const tokens = await read(
    await fetch(`${t.adminUrl}/my-integration/test-tokens`, { method: "POST", headers: { authorization: `Bearer ${login.json.idToken}` } }),
  );
  const token = tokens.json.idToken as string;
  const before = await me(token);
  expect(before.status).toBe(200); // remembered from here on, for up to a second
  expect(await listeners()).toBe(1);

  await dropListeningConnection();
  await until(() => lostListenings() === 1, "the process notices the lost connection");

  // Another process unlinks the merchant (a write straight to the database): no notification can arrive,
  // yet the very next check sees it.
  await t.database.db.updateTable("merchant_links").set({ unlinked_at: t.clock.now() }).where("merchant_account_id", "=", before.json.merchantUserId).execute();
  const refused = await me(token);
  expect(refused.status).toBe(403);
  expect(refused.text).toBe("Not authorized as user of integration client");

  await until(async () => (await listeners()) === 1, "the process listens again");
});

it("a sign-out made through this process holds for its very next request, even before the notification arrives", async () => {
  const sandbox = await t.sandbox();
  // The process connects again a second after it loses the connection, and that forgets everything: a
  // try during which it did so proves nothing, and is made again.
  for (let attempt = 1; ; attempt++) {
    const session = await read(await postJson(`${t.authUrl}/integration/admin/login`, sandbox.integrationAdmin));
    const events = async () =>
      read(await fetch(`${t.adminUrl}/my-integration/events?limit=1`, { headers: { authorization: `Bearer ${session.json.idToken}` } }));
    await until(async () => (await listeners()) === 1, "the process listens");

    // A notification that has not arrived yet: the listening connection is gone, but the process still
    // believes it listens (until it connects again, a second later), so it remembers and hears nothing.
    const lostBefore = lostListenings();
    await dropListeningConnection();
    await until(() => lostListenings() > lostBefore, "the process notices the lost connection");
    tokenChecks.listening();

    expect((await events()).status).toBe(200); // remembered
    expect((await postJson(`${t.authUrl}/integration/admin/logout`, { refreshToken: session.json.refreshToken })).status).toBe(204);
    const refused = await events();
    if ((await listeners()) === 1) {
      if (attempt === 3) throw new Error("the process listened again during each of 3 tries: the test could not tell");
      continue;
    }
    expect(refused.status).toBe(401);
    expect(refused.json).toMatchObject({ code: "UnauthorizedError" });
    return;
  }
});

it("a write that changes nothing a token check reads (a simulated transfer) forgets nothing", async () => {
  const { admin, createCharge } = await sandboxIntegration(t);
  const charge = await createCharge(chargeBody());
  await until(async () => (await listeners()) === 1, "the process listens");
  const pay = async () => {
    const paid = await admin.simulate({ cvu: charge.CVU, amount: 100 });
    expect(paid.status, paid.text).toBe(200);
  };
  await pay();
  const before = tokenChecks.forgettings;
  for (let i = 0; i < 3; i++) await pay();
  expect(tokenChecks.forgettings).toBe(before);
});
