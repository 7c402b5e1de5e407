// `npm run backup` of the embedded PostgreSQL while it is written to, and a backup that fails. A writer keeps
// moving money between accounts (two balances and one ledger row per transaction, one transaction after
// another) from before the backup starts until after it ends: the restored database is one the writer
// committed, whole (the balances add up, each balance is what its ledger rows say, the ledger has no gap),
// with every transaction committed before the backup started and none after it ended. The backup folder is
// the owner's alone (0700). A backup that fails midway (a link in the data directory, as a tablespace
// makes) says why in one line and leaves nothing behind: no backup folder, no unfinished copy.
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from "../../db/embedded-postgres.ts";
import { cobroEnv, ROOT, runScript, type ScriptRun } from "../../scripts/cobro-process.ts";

const scratch = mkdtempSync(join(tmpdir(), "cobro-backup-writes-"));
chmodSync(scratch, 0o711); // as root, PostgreSQL runs as the `postgres` user, which must reach the data folders
const dataDir = join(scratch, "data");
const ACCOUNTS = 50;
const OPENING_BALANCE = 1_000;

let server: EmbeddedPostgresServer;
let client: pg.Client;

beforeAll(async () => {
  server = await startEmbeddedPostgres({ dataDir });
  client = new pg.Client({ connectionString: server.connectionString });
  await client.connect();
  await client.query(`create table backup_accounts (id int primary key, balance bigint not null);
    create table backup_moves (id bigserial primary key, from_id int not null, to_id int not null, amount bigint not null, note text not null);
    insert into backup_accounts select id, ${OPENING_BALANCE} from generate_series(1, ${ACCOUNTS}) as id;`);
}, 120_000);

afterAll(async () => {
  await client?.end();
  await server?.stop();
  rmSync(scratch, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}, 60_000);

function backup(target: string): Promise<ScriptRun> {
  return runScript(join(ROOT, "scripts", "backup.ts"), [target], cobroEnv({ COBRO_DATA_DIR: dataDir }));
}

/** Moves money in one transaction after another until `stop()`; counts the transactions committed. */
function startWriter(connection: pg.Client) {
  let committed = 0;
  let stopping = false;
  const done = (async () => {
    for (let n = 0; !stopping; n++) {
      const from = (n % ACCOUNTS) + 1;
      const to = ((n * 7 + 3) % ACCOUNTS) + 1;
      const amount = (n % 13) + 1;
      await connection.query("begin");
      await connection.query("update backup_accounts set balance = balance - $2 where id = $1", [from, amount]);
      await connection.query("update backup_accounts set balance = balance + $2 where id = $1", [to, amount]);
      // A note of a few kilobytes: the copy meets pages being filled and split.
      await connection.query("insert into backup_moves (from_id, to_id, amount, note) values ($1, $2, $3, repeat(md5($4), 64))", [from, to, amount, String(n)]);
      await connection.query("commit");
      committed++;
    }
  })();
  return {
    committed: () => committed,
    stop: async () => {
      stopping = true;
      await done;
    },
  };
}

describe("npm run backup while the database is written to", () => {
  it("restores to a state the writer committed: balances that add up, a ledger without gap, nothing after the backup", async () => {
    const target = join(scratch, "backups", "while-writing");
    const writer = startWriter(client);
    while (writer.committed() < 50) await new Promise((resolve) => setTimeout(resolve, 10)); // some before the backup
    const committedBefore = writer.committed();
    const run = await backup(target);
    const committedAtEnd = writer.committed();
    await writer.stop();
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(committedAtEnd).toBeGreaterThan(committedBefore); // the writer wrote while the backup ran
    expect(statSync(target).mode & 0o777).toBe(0o700);

    const fresh = join(scratch, "restored");
    const restored = await runScript(join(ROOT, "scripts", "restore.ts"), [target], cobroEnv({ COBRO_DATA_DIR: fresh }));
    expect(restored.stderr).toBe("");
    expect(restored.code).toBe(0);
    const restoredServer = await startEmbeddedPostgres({ dataDir: fresh });
    const restoredClient = new pg.Client({ connectionString: restoredServer.connectionString });
    await restoredClient.connect();
    try {
      const { rows: totals } = await restoredClient.query<{ total: string; accounts: number }>(
        "select sum(balance)::text as total, count(*)::int as accounts from backup_accounts",
      );
      expect(totals[0]).toEqual({ total: String(ACCOUNTS * OPENING_BALANCE), accounts: ACCOUNTS });
      const { rows: ledger } = await restoredClient.query<{ moves: number; last: number }>(
        "select count(*)::int as moves, coalesce(max(id), 0)::int as last from backup_moves",
      );
      expect(ledger[0]!.moves).toBe(ledger[0]!.last); // one writer committing in turn: no gap
      expect(ledger[0]!.moves).toBeGreaterThanOrEqual(committedBefore);
      expect(ledger[0]!.moves).toBeLessThanOrEqual(committedAtEnd);
      const { rows: mismatched } = await restoredClient.query(
        `select account.id, account.balance from backup_accounts as account
         where account.balance <> ${OPENING_BALANCE}
           - coalesce((select sum(amount) from backup_moves where from_id = account.id), 0)
           + coalesce((select sum(amount) from backup_moves where to_id = account.id), 0)`,
      );
      expect(mismatched).toEqual([]);
      const { rows: notes } = await restoredClient.query<{ torn: number }>(
        "select count(*)::int as torn from backup_moves where note <> repeat(md5((id - 1)::text), 64)",
      );
      expect(notes[0]!.torn).toBe(0);
    } finally {
      await restoredClient.end();
      await restoredServer.stop();
    }
  }, 240_000);
});

describe("a backup that fails", () => {
  it("says why in one line and leaves no backup folder and no unfinished copy", async () => {
    const link = join(dataDir, "postgres", "base", "outside");
    symlinkSync(scratch, link);
    try {
      const parent = join(scratch, "failed-backups");
      const run = await backup(join(parent, "first"));
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(`cobro: ${link} is a link (a tablespace?): the embedded PostgreSQL's backup copies one data directory only\n`);
      expect(readdirSync(parent)).toEqual([]);
    } finally {
      rmSync(link);
    }
  }, 120_000);
});
