// `npm run backup` and `npm run restore` of the embedded PostgreSQL, as docs/operations.md tells an operator
// to run them, on real processes: a Sandbox (`npm start`'s bundle) on its own data folder takes charges and
// a payment through its APIs; a backup is taken while it runs; a charge is created after it; Cobro is
// stopped and the data folder restored from the backup; Cobro started on the result serves the charges and
// the payment from before the backup, and not the later charge. The refusals are one line each. Restored
// into a fresh folder, the database needs the sealed-secrets key the backup leaves out: without it, or with
// another key, Cobro refuses to start in one line; with the key put back, it starts.
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SecretKeyring } from "../../domain/secrets/keyring.ts";
import { readBackup } from "../../db/embedded-backup.ts";
import { cobroEnv, ROOT, runScript, startCobro, type ScriptRun, type StartedCobro } from "../../scripts/cobro-process.ts";
import {
  createSandboxCharge,
  paySandboxCharge,
  readSandboxCharge,
  sandboxDueDate,
  signInSandbox,
  startServingSandbox,
  type SandboxUrls,
} from "../helpers/sandbox-process.ts";

const scratch = mkdtempSync(join(tmpdir(), "cobro-backup-"));
chmodSync(scratch, 0o711); // as root, PostgreSQL runs as the `postgres` user, which must reach the data folders
const dataDir = join(scratch, "data");
const backupDir = join(scratch, "backups", "first");
const started: StartedCobro[] = [];

function start(folder: string): StartedCobro {
  const cobro = startCobro({ COBRO_DATA_DIR: folder });
  started.push(cobro);
  return cobro;
}

async function startServing(folder: string): Promise<{ cobro: StartedCobro; urls: SandboxUrls }> {
  const serving = await startServingSandbox(folder);
  started.push(serving.cobro);
  return serving;
}

async function stop(cobro: StartedCobro): Promise<number | null> {
  cobro.child.kill("SIGTERM");
  return cobro.exited;
}

function backup(args: string[], folder = dataDir): Promise<ScriptRun> {
  return runScript(join(ROOT, "scripts", "backup.ts"), args, cobroEnv({ COBRO_DATA_DIR: folder }));
}

function restore(args: string[], folder = dataDir): Promise<ScriptRun> {
  return runScript(join(ROOT, "scripts", "restore.ts"), args, cobroEnv({ COBRO_DATA_DIR: folder }));
}

const before = { paid: `BEFORE-PAID-${Date.now()}`, open: `BEFORE-OPEN-${Date.now()}` };
const after = `AFTER-${Date.now()}`;
let backupRun: ScriptRun;
let restoreRun: ScriptRun;
let refusedWhileRunning: ScriptRun;
let refusedOverDatabase: ScriptRun;
let stoppedBackupRun: ScriptRun;
let runningPid: number;

beforeAll(async () => {
  const first = await startServing(dataDir);
  runningPid = first.cobro.child.pid!;
  const { admin, merchant } = await signInSandbox(dataDir, first.urls);
  const dueDate = await sandboxDueDate(first.urls, admin, 5);
  const paid = await createSandboxCharge(first.urls, merchant, before.paid, dueDate);
  await createSandboxCharge(first.urls, merchant, before.open, dueDate);
  await paySandboxCharge(first.urls, admin, paid.CVU);

  backupRun = await backup([backupDir]);
  // After the backup: in the running database, not in the backup.
  await createSandboxCharge(first.urls, merchant, after, dueDate);
  refusedWhileRunning = await restore([backupDir, "--replace"]);
  expect(await stop(first.cobro)).toBe(0);

  stoppedBackupRun = await backup([join(scratch, "backups", "while-stopped")]);
  refusedOverDatabase = await restore([backupDir]);
  restoreRun = await restore([backupDir, "--replace"]);
}, 240_000);

afterAll(async () => {
  for (const cobro of started) {
    if (cobro.child.exitCode === null && cobro.child.signalCode === null) {
      cobro.child.kill("SIGTERM");
      await cobro.exited;
    }
  }
  rmSync(scratch, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
}, 60_000);

describe("npm run backup, while Cobro runs", () => {
  it("writes the backup folder and says how much, how long, as of when, and that the key is kept apart", () => {
    expect(backupRun.stderr).toBe("");
    expect(backupRun.code).toBe(0);
    expect(backupRun.stdout).toMatch(/^backing up the embedded PostgreSQL of \S+ \(Cobro running\) to \S+\n/);
    expect(backupRun.stdout).toMatch(/\nbackup written: \S+ \(\d+\.\d MB, \d+ files, \d+\.\d s\), the database as of \d{4}-\d\d-\d\dT[\d:.]+Z\n/);
    expect(backupRun.stdout).toContain(`the sealed-secrets key is not in the backup: keep the Sandbox's key file ${join(dataDir, "secret-key")} apart from it`);
    expect(readdirSync(backupDir).sort()).toEqual(["cobro-backup.json", "postgres", "postgres.password"]);
    expect(existsSync(join(backupDir, "postgres", "backup_label"))).toBe(true);
    // Nothing of the running server's state, and not the key.
    expect(existsSync(join(backupDir, "postgres", "postmaster.pid"))).toBe(false);
    expect(existsSync(join(backupDir, "secret-key"))).toBe(false);
  });

  it("with Cobro stopped, starts the embedded PostgreSQL for the copy and stops it after", () => {
    expect(stoppedBackupRun.stderr).toBe("");
    expect(stoppedBackupRun.code).toBe(0);
    expect(stoppedBackupRun.stdout).toMatch(/^backing up the embedded PostgreSQL of \S+ \(Cobro stopped\) to \S+\n/);
    expect(readBackup(join(scratch, "backups", "while-stopped")).consistentAt).toMatch(/^\d{4}-/);
    expect(existsSync(join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
    expect(existsSync(join(dataDir, "cobro.lock"))).toBe(false);
  });

  it("refuses a folder that is not empty, and one inside the data folder, in one line", async () => {
    const refused = await backup([backupDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(`cobro: ${backupDir} already exists and is not an empty folder: back up to a new folder\n`);
    const inside = await backup([join(dataDir, "backup")]);
    expect([inside.code, inside.stderr]).toEqual([
      1,
      `cobro: ${join(dataDir, "backup")} is inside the data folder ${dataDir}: back up to a folder outside it, on another disk if you can\n`,
    ]);
  });
});

describe("npm run restore", () => {
  it("refuses while Cobro runs on the data folder, in one line", () => {
    expect(refusedWhileRunning.code).toBe(1);
    expect(refusedWhileRunning.stderr).toBe(`cobro: Cobro is running on ${dataDir} (pid ${runningPid}): stop it before restoring\n`);
  });

  it("refuses to overwrite a data folder that holds a database without --replace, in one line", () => {
    expect(refusedOverDatabase.code).toBe(1);
    expect(refusedOverDatabase.stderr).toBe(
      `cobro: ${dataDir} already holds a database (${dataDir}/postgres): restore into an empty COBRO_DATA_DIR, or give --replace to move it aside\n`,
    );
  });

  it("refuses a missing backup and a folder that is not one, in one line", async () => {
    const missing = join(scratch, "no-such-backup");
    const notOne = join(scratch, "not-a-backup");
    mkdirSync(notOne);
    writeFileSync(join(notOne, "notes.txt"), "hello\n");
    const runs = [
      await restore([missing], join(scratch, "empty-1")),
      await restore([notOne], join(scratch, "empty-2")),
      await restore([], join(scratch, "empty-3")),
    ];
    expect(runs.map((run) => [run.code, run.stderr])).toEqual([
      [1, `cobro: there is no backup at ${missing}\n`],
      [1, `cobro: ${notOne} is not a backup of npm run backup, or an unfinished one (no readable cobro-backup.json)\n`],
      [1, "cobro: usage: npm run restore -- <backup folder> [--replace]\n"],
    ]);
    // A database of DATABASE_URL has its own tools.
    const external = { ...cobroEnv({ COBRO_DATA_DIR: join(scratch, "empty-4") }), DATABASE_URL: "postgres://cobro@127.0.0.1:1/none" };
    const [backupOfUrl, restoreOfUrl] = await Promise.all([
      runScript(join(ROOT, "scripts", "backup.ts"), [join(scratch, "url-backup")], external),
      runScript(join(ROOT, "scripts", "restore.ts"), [backupDir], external),
    ]);
    expect([backupOfUrl.code, backupOfUrl.stderr]).toEqual([
      1,
      "cobro: DATABASE_URL is set: npm run backup copies the embedded PostgreSQL of COBRO_DATA_DIR; back up a database of DATABASE_URL with its own tools\n",
    ]);
    expect([restoreOfUrl.code, restoreOfUrl.stderr]).toEqual([
      1,
      "cobro: DATABASE_URL is set: npm run restore brings back the embedded PostgreSQL of COBRO_DATA_DIR; restore a database of DATABASE_URL with its own tools\n",
    ]);
  });

  it("with --replace, moves the database aside and brings back the backup's", () => {
    expect(restoreRun.stderr).toBe("");
    expect(restoreRun.code).toBe(0);
    expect(restoreRun.stdout).toMatch(/^the database that was in \S+ is now in \S+\/replaced-[\dT-]+\.\d+Z \(delete it once the restore is checked\)\n/);
    expect(restoreRun.stdout).toMatch(/\nrestored \S+ from \S+ \(\d+\.\d MB, \d+\.\d s\): the database as of \S+\n/);
    const replaced = readdirSync(dataDir).filter((name) => name.startsWith("replaced-"));
    expect(replaced).toHaveLength(1);
    expect(readdirSync(join(dataDir, replaced[0]!)).sort()).toEqual(["postgres", "postgres.password"]);
  });

  it("Cobro starts on the result: what was there before the backup is, what came after is not", async () => {
    const { cobro, urls } = await startServing(dataDir);
    const { merchant } = await signInSandbox(dataDir, urls);
    const paid = await readSandboxCharge(urls, merchant, before.paid);
    expect(paid.status, paid.text).toBe(200);
    expect(paid.json.state).toBe("total_payment");
    const open = await readSandboxCharge(urls, merchant, before.open);
    expect(open.status, open.text).toBe(200);
    expect(open.json.state).not.toBe("total_payment");
    expect((await readSandboxCharge(urls, merchant, after)).status).toBe(404);
    expect(await stop(cobro)).toBe(0);
  }, 120_000);
});

describe("the sealed-secrets key, kept apart from the backup", () => {
  const fresh = join(scratch, "fresh");

  it("restored into a fresh folder without the key, Cobro refuses to start in one line; with another key too; with the key, it starts", async () => {
    const restored = await restore([backupDir], fresh);
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain(
      `the sealed-secrets key is not here: before npm start, put the key kept apart from the backup in the Sandbox's key file ${join(fresh, "secret-key")} (mode 600), or set COBRO_SECRET_KEY\n`,
    );
    const keyId = SecretKeyring.parse(readFileSync(join(dataDir, "secret-key"), "utf8").trim()).currentKeyId;

    const withoutKey = start(fresh);
    expect(await withoutKey.exited).toBe(1);
    expect(withoutKey.output()).toBe(
      `cobro: ${join(fresh, "secret-key")} is missing, and the database holds secrets sealed under the key "${keyId}": put back the key file kept apart from the backups, or set COBRO_SECRET_KEY (docs/operations.md)\n`,
    );
    expect(existsSync(join(fresh, "secret-key"))).toBe(false);

    // A key of the same name that is not the one (a key file generated anew the same day).
    writeFileSync(join(fresh, "secret-key"), `${SecretKeyring.generateText(keyId)}\n`, { mode: 0o600 });
    const otherKey = start(fresh);
    expect(await otherKey.exited).toBe(1);
    expect(otherKey.output()).toBe(
      `cobro: the secrets the database holds under the key "${keyId}" do not open with the key "${keyId}" of the Sandbox's key file ${join(fresh, "secret-key")}: it is another key than the one that sealed them: start with the key that sealed them (docs/secrets.md)\n`,
    );

    copyFileSync(join(dataDir, "secret-key"), join(fresh, "secret-key"));
    const { cobro } = await startServing(fresh);
    expect(await stop(cobro)).toBe(0);
  }, 180_000);
});
