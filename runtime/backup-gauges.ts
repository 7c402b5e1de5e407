// The backups' gauges, sampled by worker processes when a pgBackRest stanza is configured
// (COBRO_PGBACKREST_STANZA): how old the newest backup of each type is, from `pgbackrest info` (the
// repository, which may be an object store, is read at most once a minute; the ages are computed at every
// scrape), and the WAL archive's state from the primary's pg_stat_archiver. Sampled in the worker rather
// than by a separate exporter: the worker already samples the database-wide gauges, its scrape job and
// `max by` conventions carry over, and the alert rules see one catalogue (runtime/metrics.ts). Ages are of
// the wall clock (pgBackRest's timestamps are), never of a Sandbox's movable clock.
import { execFile } from "node:child_process";
import { type Kysely, sql } from "kysely";
import type { Database } from "../db/schema.ts";
import type { Config } from "./config.ts";
import { BACKUP_TYPES, type Metrics } from "./metrics.ts";

/** How long `pgbackrest info`'s answer is reused. */
const INFO_REUSE_MS = 60_000;

/** The pgbackrest binary (Debian's), for the gauges and the local cluster's scripts alike. */
export const PGBACKREST_PATH = "/usr/bin/pgbackrest";

type BackupSettings = NonNullable<Config["backups"]>;

/** One backup in a pgBackRest repository, as `pgbackrest info --output=json` tells it (the fields Cobro reads). */
export interface PgbackrestBackup {
  label: string;
  type: string;
  /** Seconds since the epoch (whole seconds). */
  timestamp: { start: number; stop: number };
  /** The database's size, and what the backup stored in the repository. */
  info: { size: number; repository: { delta: number } };
}

/** The backups of `stanza` in `pgbackrest info --output=json`'s answer, oldest first; none for a stanza it does not list. */
export function stanzaBackups(infoJson: string, stanza: string): PgbackrestBackup[] {
  const info = JSON.parse(infoJson) as Array<{ name: string; backup?: PgbackrestBackup[] }>;
  return info.find((entry) => entry.name === stanza)?.backup ?? [];
}

/** When the newest backup of each type finished, from `pgbackrest info --output=json`'s answer. */
export function newestBackups(infoJson: string, stanza: string): Map<(typeof BACKUP_TYPES)[number], Date> {
  const newest = new Map<(typeof BACKUP_TYPES)[number], Date>();
  for (const backup of stanzaBackups(infoJson, stanza)) {
    const type = BACKUP_TYPES.find((candidate) => candidate === backup.type);
    if (!type) continue;
    const stoppedAt = new Date(backup.timestamp.stop * 1000);
    if (!(newest.get(type)! >= stoppedAt)) newest.set(type, stoppedAt);
  }
  return newest;
}

function pgbackrestInfo(settings: BackupSettings): Promise<string> {
  const args = [...(settings.configPath ? [`--config=${settings.configPath}`] : []), `--stanza=${settings.stanza}`, "--output=json", "info"];
  return new Promise((resolve, reject) => {
    execFile(PGBACKREST_PATH, args, { timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`pgbackrest info failed: ${String(stderr || error.message).trim()}`));
      else resolve(stdout);
    });
  });
}

/**
 * The number of a WAL segment from its file name (timeline, log, segment in hex), counted from the start of
 * the WAL as the primary's position is: `segmentsPerLog` segments make one log file's worth (4 GiB).
 */
export function walSegmentNumber(fileName: string, segmentBytes: number): number {
  const log = Number.parseInt(fileName.slice(8, 16), 16);
  const segment = Number.parseInt(fileName.slice(16, 24), 16);
  return log * (0x1_0000_0000 / segmentBytes) + segment;
}

/** The sampler to register (`metrics.addSampler("backups", …)`): both sources each scrape, `now` from the process's clock. */
export function backupSampler(db: Kysely<Database>, metrics: Metrics, settings: BackupSettings, now: () => Date): () => Promise<void> {
  let newest: Map<(typeof BACKUP_TYPES)[number], Date> | undefined;
  let readAt = 0;
  return async () => {
    const [archiver] = await Promise.all([
      sql<{ lastArchivedWal: string | null; lastArchivedAt: Date | null; lastFailedAt: Date | null; since: Date; position: string; segmentBytes: string }>`
        select last_archived_wal as "lastArchivedWal", last_archived_time as "lastArchivedAt", last_failed_time as "lastFailedAt",
               stats_reset as since, pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::text as position,
               pg_size_bytes(current_setting('wal_segment_size'))::text as "segmentBytes"
          from pg_stat_archiver`
        .execute(db)
        .then((result) => result.rows[0]!),
      (async () => {
        if (newest !== undefined && Date.now() - readAt < INFO_REUSE_MS) return;
        newest = newestBackups(await pgbackrestInfo(settings), settings.stanza);
        readAt = Date.now();
      })(),
    ]);
    const at = now().getTime();
    const { backups } = metrics;
    backups.age.reset();
    for (const [type, stoppedAt] of newest ?? []) backups.age.set({ type }, Math.max(0, at - stoppedAt.getTime()) / 1000);
    const lastArchivedAt = archiver.lastArchivedAt ?? archiver.since;
    backups.archiveAge.set(Math.max(0, at - lastArchivedAt.getTime()) / 1000);
    backups.archiveFailing.set(archiver.lastFailedAt !== null && (archiver.lastArchivedAt === null || archiver.lastFailedAt > archiver.lastArchivedAt) ? 1 : 0);
    const segmentBytes = Number(archiver.segmentBytes);
    const current = Math.floor(Number(archiver.position) / segmentBytes);
    // The segment being written is not closed yet; every one before it and after the last archived waits.
    // A timeline's history file archived last (just after a promotion) names no segment: the gauge keeps its value.
    const name = archiver.lastArchivedWal;
    if (name === null) backups.archivePending.set(current);
    else if (/^[0-9A-F]{24}/.test(name)) backups.archivePending.set(Math.max(0, current - walSegmentNumber(name, segmentBytes) - 1));
  };
}
