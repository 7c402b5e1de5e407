// A replicated PostgreSQL for Cobro on this machine, from Debian's packages: one etcd member, two
// PostgreSQL 15 nodes run by Patroni with synchronous replication, HAProxy sending connections to the
// current leader (Patroni's REST check), and PgBouncer in transaction mode in front of HAProxy.
//
//   npm run cluster:up     starts it (installing the packages with apt-get when missing), prints the URLs;
//                          refused while a cluster runs on the same ports (`-- --replace` destroys it first)
//   npm run cluster:down   stops every process and removes the state folder
//   npm run cluster:backup -- [--type full|incr]
//                          a pgBackRest backup of the leader into the repository (<state>/backups)
//   npm run cluster:restore -- --to <ISO instant>
//                          point-in-time recovery: a fresh cluster (new data folders, new etcd) whose
//                          first node is restored from the repository to that instant, the second cloned
//
// Every node archives its WAL while it leads (archive_command = pgbackrest archive-push) into a pgBackRest
// repository in the state folder (stanza `cobro`, created at `up`); see docs/operations.md for an object store.
//
// Everything listens on loopback, on fixed ports from COBRO_CLUSTER_PORT_BASE (25400 by default: below the
// ephemeral range, so no test's free port lands on them), and lives in <tmp>/cobro-cluster-<base>/.
// The timings are test settings (ttl 10 s, loop_wait 1 s, retry_timeout 5 s): a lost leader is replaced
// within about 10 s. A production cluster keeps Patroni's defaults (30/10/10) unless its network is known.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync, chownSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { PGBACKREST_PATH, stanzaBackups } from "../runtime/backup-gauges.ts";

const PG_BIN = "/usr/lib/postgresql/15/bin";
/** pgBackRest's name for Cobro's cluster in the repository. */
export const STANZA = "cobro";
const PACKAGES: Array<[string, string]> = [
  ["patroni", "/usr/bin/patroni"],
  ["etcd-server", "/usr/bin/etcd"],
  ["haproxy", "/usr/sbin/haproxy"],
  ["pgbouncer", "/usr/sbin/pgbouncer"],
  ["postgresql-15", `${PG_BIN}/postgres`],
  ["pgbackrest", PGBACKREST_PATH],
];
const SUPERUSER_PASSWORD = "cobro-cluster";
export const CLUSTER_DATABASE = "cobro";

export interface ClusterNode {
  name: string;
  port: number;
  restUrl: string;
  dataDir: string;
}

export interface ClusterLayout {
  dir: string;
  portBase: number;
  etcdPort: number;
  nodes: ClusterNode[];
  haproxyPort: number;
  pgbouncerPort: number;
  /** Through HAProxy to the leader: what Cobro's processes use. */
  databaseUrl: string;
  /** Through PgBouncer (transaction pooling) to HAProxy: for the API processes' queries. */
  pooledUrl: string;
  /** pgBackRest's repository (a local folder here; an object store in production) and its configuration file. */
  backupRepository: string;
  pgbackrestConfig: string;
}

const DEFAULT_PORT_BASE = 25400;

export function clusterLayout(portBase = Number(process.env.COBRO_CLUSTER_PORT_BASE ?? DEFAULT_PORT_BASE)): ClusterLayout {
  const dir = path.join(os.tmpdir(), `cobro-cluster-${portBase}`);
  const nodes = [0, 1].map((n) => ({
    name: `pg${n}`,
    port: portBase + 10 + n,
    restUrl: `http://127.0.0.1:${portBase + 20 + n}`,
    dataDir: path.join(dir, `pg${n}`, "data"),
  }));
  const haproxyPort = portBase + 30;
  const pgbouncerPort = portBase + 40;
  return {
    dir,
    portBase,
    etcdPort: portBase,
    nodes,
    haproxyPort,
    pgbouncerPort,
    databaseUrl: `postgres://postgres:${SUPERUSER_PASSWORD}@127.0.0.1:${haproxyPort}/${CLUSTER_DATABASE}`,
    pooledUrl: `postgres://postgres:${SUPERUSER_PASSWORD}@127.0.0.1:${pgbouncerPort}/${CLUSTER_DATABASE}`,
    backupRepository: path.join(dir, "backups"),
    pgbackrestConfig: path.join(dir, "pgbackrest.conf"),
  };
}

/** Installs Debian's packages that are missing (as root, through apt-get). */
export function installPackages(): void {
  const missing = PACKAGES.filter(([, binary]) => !existsSync(binary)).map(([name]) => name);
  if (missing.length === 0) return;
  console.log(`installing ${missing.join(", ")}`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  const result = spawnSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...missing], { stdio: "inherit", env });
  if (result.status !== 0) throw new Error(`apt-get install ${missing.join(" ")} failed`);
}

function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined; // not root: everything runs as the current user
  const line = readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("postgres:"));
  if (!line) throw new Error("no postgres user (the postgresql-15 package creates it)");
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

interface State {
  pids: Record<string, number>;
}

function statePath(layout: ClusterLayout): string {
  return path.join(layout.dir, "state.json");
}

/** The cluster's processes as started, by name: `etcd`, each node's Patroni (`pg0`, `pg1`), `haproxy`, `pgbouncer`. */
export function clusterProcesses(layout: ClusterLayout): Record<string, number> {
  return readState(layout).pids;
}

function readState(layout: ClusterLayout): State {
  return JSON.parse(readFileSync(statePath(layout), "utf8")) as State;
}

/** A node's Patroni (which starts and manages its PostgreSQL), from the node's configuration file. */
function startPatroni(layout: ClusterLayout, state: State, name: string): void {
  startProcess(layout, state, name, "/usr/bin/patroni", [path.join(layout.dir, `${name}.yml`)]);
}

/** Starts one process in its own process group, its output in <dir>/<name>.log; remembers its pid. */
function startProcess(layout: ClusterLayout, state: State, name: string, command: string, args: string[]): void {
  const log = openSync(path.join(layout.dir, `${name}.log`), "a");
  const user = postgresUser();
  const child = spawn(command, args, {
    cwd: layout.dir,
    detached: true,
    stdio: ["ignore", log, log],
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: layout.dir, LANG: "C.UTF-8" },
    ...(user ?? {}),
  });
  child.unref();
  state.pids[name] = child.pid!;
  writeFileSync(statePath(layout), JSON.stringify(state));
}

/** pgBackRest's options that name a node's data folder (all that archive-push and restore accept). */
function pgbackrestPathFlags(layout: ClusterLayout, node: ClusterNode): string[] {
  return [`--config=${layout.pgbackrestConfig}`, `--stanza=${STANZA}`, `--pg1-path=${node.dataDir}`];
}

/** pgBackRest's options that name a node's PostgreSQL (its data folder, port and socket), for the commands that connect to it. */
function pgbackrestNodeFlags(layout: ClusterLayout, node: ClusterNode): string[] {
  return [...pgbackrestPathFlags(layout, node), `--pg1-port=${node.port}`, `--pg1-socket-path=${path.join(layout.dir, node.name)}`, "--pg1-user=postgres"];
}

/**
 * The repository and its retention; what names a node is given on each command line (the leader changes).
 * lock-path and log-path live in the state folder so that two clusters on one machine (npm run cluster:up's
 * and the tests') never share a lock.
 */
function pgbackrestConfig(layout: ClusterLayout): string {
  return `[global]
repo1-path=${layout.backupRepository}
repo1-retention-full=2
start-fast=y
compress-type=zst
process-max=2
lock-path=${path.join(layout.dir, "pgbackrest", "lock")}
log-path=${path.join(layout.dir, "pgbackrest", "log")}
log-level-console=warn
log-level-file=info

[${STANZA}]
`;
}

/** How a cluster starts: a new database (initdb), or its first node restored from the repository to an instant. */
type Bootstrap = { kind: "initdb" } | { kind: "restore"; target: Date };

/** PostgreSQL's form of an instant for recovery_target_time (UTC, milliseconds). */
export function recoveryTarget(instant: Date): string {
  return `${instant.toISOString().replace("T", " ").replace("Z", "")}+00`;
}

function patroniConfig(layout: ClusterLayout, node: ClusterNode, bootstrap: Bootstrap = { kind: "initdb" }): object {
  const restPort = Number(new URL(node.restUrl).port);
  // Patroni splits the command like a shell (shlex) and runs it without one: each flag one word.
  const restoreCommand = (target: Date) =>
    [PGBACKREST_PATH, ...pgbackrestPathFlags(layout, node), "--type=time", `'--target=${recoveryTarget(target)}'`, "--target-action=promote", "restore"].join(
      " ",
    );
  return {
    scope: "cobro",
    namespace: "/cobro/",
    name: node.name,
    restapi: { listen: `127.0.0.1:${restPort}`, connect_address: `127.0.0.1:${restPort}` },
    etcd3: { hosts: [`127.0.0.1:${layout.etcdPort}`] },
    bootstrap: {
      dcs: {
        // Test settings: the leader key lives 10 s, Patroni's loop runs every second.
        ttl: 10,
        loop_wait: 1,
        retry_timeout: 5,
        // Only a standby that confirmed every commit may be promoted; a crashed primary is failed over
        // at once instead of being restarted in place (it comes back as a standby, rewound).
        synchronous_mode: true,
        primary_start_timeout: 0,
        maximum_lag_on_failover: 1048576,
        postgresql: {
          use_pg_rewind: true,
          use_slots: true,
          parameters: {
            wal_level: "replica",
            hot_standby: "on",
            wal_log_hints: "on",
            max_connections: 300,
            max_wal_senders: 5,
            max_replication_slots: 5,
            wal_keep_size: "128MB",
            timezone: "UTC",
            // Continuous archiving to pgBackRest's repository; only the leader archives ("on", not
            // "always"), so after a failover the new leader carries on. A segment is closed at least every
            // minute, which bounds how much a lost leader's unarchived WAL can be.
            archive_mode: "on",
            archive_timeout: "60s",
          },
        },
      },
      initdb: [{ encoding: "UTF8" }, { locale: "C.UTF-8" }],
      ...(bootstrap.kind === "restore"
        ? {
            // Patroni's custom bootstrap: pgBackRest restores the data folder and writes the recovery
            // settings (restore_command, the target, promote), which Patroni keeps; PostgreSQL replays the
            // archive to the instant and promotes, then Patroni leads and the other node clones it.
            method: "pgbackrest",
            pgbackrest: { command: restoreCommand(bootstrap.target), keep_existing_recovery_conf: true, no_params: true },
          }
        : {}),
    },
    postgresql: {
      listen: `127.0.0.1:${node.port}`,
      connect_address: `127.0.0.1:${node.port}`,
      data_dir: node.dataDir,
      bin_dir: PG_BIN,
      pgpass: path.join(layout.dir, `${node.name}.pgpass`),
      authentication: {
        superuser: { username: "postgres", password: SUPERUSER_PASSWORD },
        replication: { username: "replicator", password: "replicator" },
        rewind: { username: "postgres", password: SUPERUSER_PASSWORD },
      },
      pg_hba: ["local all all trust", "host all all 127.0.0.1/32 scram-sha-256", "host replication replicator 127.0.0.1/32 scram-sha-256"],
      parameters: {
        unix_socket_directories: path.join(layout.dir, node.name),
        // Per node: pgBackRest is told this node's data folder (it reads %p relative to it).
        archive_command: [PGBACKREST_PATH, ...pgbackrestPathFlags(layout, node), "archive-push", "%p"].join(" "),
      },
    },
  };
}

function haproxyConfig(layout: ClusterLayout): string {
  // TCP to whichever node answers 200 on Patroni's /primary; connections to a node that stops being the
  // leader are cut at once (shutdown-sessions), so no client keeps writing to a demoted node.
  return `global
  maxconn 2000

defaults
  mode tcp
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 1s

listen primary
  bind 127.0.0.1:${layout.haproxyPort}
  option httpchk GET /primary
  http-check expect status 200
  default-server inter 500ms fall 2 rise 1 on-marked-down shutdown-sessions
${layout.nodes.map((node) => `  server ${node.name} 127.0.0.1:${node.port} maxconn 500 check port ${new URL(node.restUrl).port}`).join("\n")}
`;
}

function pgbouncerConfig(layout: ClusterLayout): string {
  // Transaction pooling: a server connection is the client's for one transaction only. Session state does
  // not survive between transactions, so the `options` startup parameter Cobro sends (TimeZone=UTC) is
  // ignored here and the cluster's servers run in UTC instead.
  return `[databases]
* = host=127.0.0.1 port=${layout.haproxyPort}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${layout.pgbouncerPort}
unix_socket_dir =
auth_type = scram-sha-256
auth_file = ${path.join(layout.dir, "userlist.txt")}
pool_mode = transaction
max_client_conn = 2000
default_pool_size = 20
ignore_startup_parameters = options,extra_float_digits
server_connect_timeout = 3
server_login_retry = 1
query_wait_timeout = 10
`;
}

async function get(url: string): Promise<{ status: number; body: unknown }> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    return { status: response.status, body };
  } catch {
    return { status: 0, body: undefined };
  }
}

/** The members as Patroni reports them (name, role, state, lag). */
export async function clusterMembers(layout: ClusterLayout): Promise<Array<{ name: string; role: string; state: string }>> {
  for (const node of layout.nodes) {
    const answer = await get(`${node.restUrl}/cluster`);
    if (answer.status === 200) return (answer.body as { members: Array<{ name: string; role: string; state: string }> }).members;
  }
  return [];
}

/** Waits until one node leads and the other is its synchronous standby, streaming. */
export async function waitForHealthy(layout: ClusterLayout, timeoutMs = 120_000): Promise<{ leader: string; standby: string }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const members = await clusterMembers(layout);
    const leader = members.find((member) => member.role === "leader" && member.state === "running");
    const standby = members.find((member) => member.role === "sync_standby" && (member.state === "streaming" || member.state === "running"));
    if (leader && standby) return { leader: leader.name, standby: standby.name };
    if (Date.now() > deadline) throw new Error(`the cluster did not become healthy: ${JSON.stringify(members)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The postmaster's pid of a node, from its data folder (undefined when it is not running). */
export function postmasterPid(node: ClusterNode): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path.join(node.dataDir, "postmaster.pid"), "utf8").split("\n")[0] ?? "", 10);
    return Number.isInteger(pid) && pid > 0 && pidAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** What still runs of a cluster started with this layout: its processes as the state file names them, and its nodes' PostgreSQL. */
function runningProcesses(layout: ClusterLayout): string[] {
  let pids: Record<string, number> = {};
  try {
    pids = readState(layout).pids;
  } catch {
    // no state (or an unreadable one): only the nodes' PostgreSQL can tell
  }
  return [
    ...Object.entries(pids)
      .filter(([, pid]) => pidAlive(pid))
      .map(([name, pid]) => `${name} pid ${pid}`),
    ...layout.nodes.flatMap((node) => {
      const pid = postmasterPid(node);
      return pid !== undefined && !Object.values(pids).includes(pid) ? [`${node.name}'s PostgreSQL pid ${pid}`] : [];
    }),
  ];
}

/**
 * Makes the layout's folder free for a new cluster. A cluster still running there is refused (one line:
 * what runs, how to stop it) unless `replace`, since starting over destroys its data; what a cluster
 * left behind without processes (a crash, a reboot) is removed.
 */
export async function makeRoomForCluster(layout: ClusterLayout, options: { replace?: boolean } = {}): Promise<void> {
  if (!existsSync(layout.dir)) return;
  const running = runningProcesses(layout);
  if (running.length > 0 && !options.replace) {
    const ports = `${layout.portBase}-${layout.pgbouncerPort}`;
    const env = layout.portBase === DEFAULT_PORT_BASE ? "" : `COBRO_CLUSTER_PORT_BASE=${layout.portBase} `;
    throw new Error(
      `A Cobro PostgreSQL cluster already runs on ports ${ports} (${running.join(", ")}; state in ${layout.dir}): stop it with \`${env}npm run cluster:down\`, or destroy it and start a new one with \`${env}npm run cluster:up -- --replace\``,
    );
  }
  await clusterDown(layout);
}

/** Starts the cluster; refused while one runs on the same ports, unless `replace` (which stops it and removes its data first). */
export async function clusterUp(layout = clusterLayout(), options: { replace?: boolean } = {}): Promise<ClusterLayout> {
  await makeRoomForCluster(layout, options);
  installPackages();
  prepareFolder(layout);
  await startCluster(layout, { kind: "initdb" });

  // Cobro's database, through HAProxy (which also proves the route to the leader).
  const adminUrl = layout.databaseUrl.replace(`/${CLUSTER_DATABASE}`, "/postgres");
  const deadline = Date.now() + 30_000;
  for (;;) {
    const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 2000 });
    client.on("error", () => undefined);
    try {
      await client.connect();
      const exists = await client.query("select 1 from pg_database where datname = $1", [CLUSTER_DATABASE]);
      if (exists.rowCount === 0) await client.query(`create database ${CLUSTER_DATABASE}`);
      break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 300));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  // The repository's stanza, from the leader; from now on every WAL segment the leader closes is archived
  // (`check` switches to a new segment and waits for its archive: archive_command works).
  const leader = await leaderNode(layout);
  pgbackrest(layout, [...pgbackrestNodeFlags(layout, leader), "stanza-create"]);
  pgbackrest(layout, [...pgbackrestNodeFlags(layout, leader), "check"]);
  return layout;
}

/** The state folder with the configuration files of every process (owned by PostgreSQL's user when root). */
function prepareFolder(layout: ClusterLayout, bootstrap: Bootstrap = { kind: "initdb" }): void {
  mkdirSync(layout.dir, { recursive: true, mode: 0o700 });
  const user = postgresUser();
  const own = (target: string) => {
    if (user) chownSync(target, user.uid, user.gid);
  };
  own(layout.dir);
  for (const node of layout.nodes) {
    mkdirSync(path.join(layout.dir, node.name), { mode: 0o700 });
    own(path.join(layout.dir, node.name));
    // Only the first node bootstraps; the second always clones the leader.
    const nodeBootstrap = node === layout.nodes[0] ? bootstrap : { kind: "initdb" as const };
    writeFileSync(path.join(layout.dir, `${node.name}.yml`), JSON.stringify(patroniConfig(layout, node, nodeBootstrap), null, 2)); // YAML reads JSON
  }
  for (const folder of ["backups", "pgbackrest", "pgbackrest/lock", "pgbackrest/log"]) {
    mkdirSync(path.join(layout.dir, folder), { recursive: true, mode: 0o700 });
    own(path.join(layout.dir, folder));
  }
  writeFileSync(path.join(layout.dir, "haproxy.cfg"), haproxyConfig(layout));
  writeFileSync(path.join(layout.dir, "pgbouncer.ini"), pgbouncerConfig(layout));
  writeFileSync(path.join(layout.dir, "userlist.txt"), `"postgres" "${SUPERUSER_PASSWORD}"\n`);
  writeFileSync(layout.pgbackrestConfig, pgbackrestConfig(layout));
  for (const file of ["haproxy.cfg", "pgbouncer.ini", "userlist.txt", "pgbackrest.conf"]) own(path.join(layout.dir, file));
}

/** etcd, the first node's Patroni (which bootstraps), the second's (which clones it), HAProxy and PgBouncer; waits until healthy. */
async function startCluster(layout: ClusterLayout, bootstrap: Bootstrap): Promise<void> {
  const state: State = { pids: {} };
  const etcdPeer = `http://127.0.0.1:${layout.etcdPort + 1}`;
  startProcess(layout, state, "etcd", "/usr/bin/etcd", [
    "--name=cobro",
    `--data-dir=${path.join(layout.dir, "etcd")}`,
    `--listen-client-urls=http://127.0.0.1:${layout.etcdPort}`,
    `--advertise-client-urls=http://127.0.0.1:${layout.etcdPort}`,
    `--listen-peer-urls=${etcdPeer}`,
    `--initial-advertise-peer-urls=${etcdPeer}`,
    `--initial-cluster=cobro=${etcdPeer}`,
  ]);
  const etcdDeadline = Date.now() + 30_000;
  while ((await get(`http://127.0.0.1:${layout.etcdPort}/health`)).status !== 200) {
    if (Date.now() > etcdDeadline) throw new Error(`etcd did not start (see ${layout.dir}/etcd.log)`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  // The first node bootstraps the cluster; the second then copies it (pg_basebackup) as its standby.
  startPatroni(layout, state, layout.nodes[0]!.name);
  // A restore replays the archive up to its target first: longer than an initdb.
  const leaderDeadline = Date.now() + (bootstrap.kind === "restore" ? 600_000 : 60_000);
  while ((await get(`${layout.nodes[0]!.restUrl}/primary`)).status !== 200) {
    if (Date.now() > leaderDeadline) throw new Error(`the first node did not become the leader (see ${layout.dir}/pg0.log)`);
    if (!pidAlive(state.pids[layout.nodes[0]!.name]!)) {
      // pgBackRest's or PostgreSQL's own words on why (a restore's target out of reach, say).
      const cause = readFileSync(path.join(layout.dir, `${layout.nodes[0]!.name}.log`), "utf8")
        .split("\n")
        .filter((line) => /ERROR: \[\d+\]|FATAL:/.test(line))
        .at(-1);
      throw new Error(`the first node's Patroni ended${cause ? `: ${cause.trim()}` : ""} (see ${layout.dir}/pg0.log)`);
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  startPatroni(layout, state, layout.nodes[1]!.name);
  startProcess(layout, state, "haproxy", "/usr/sbin/haproxy", ["-db", "-f", path.join(layout.dir, "haproxy.cfg")]);
  startProcess(layout, state, "pgbouncer", "/usr/sbin/pgbouncer", [path.join(layout.dir, "pgbouncer.ini")]);
  await waitForHealthy(layout);
}

/** Runs pgBackRest as PostgreSQL's user (when root) and answers its standard output; a failure throws its error lines. */
function pgbackrest(layout: ClusterLayout, args: string[]): string {
  const user = postgresUser();
  const result = spawnSync(PGBACKREST_PATH, args, {
    cwd: layout.dir,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: layout.dir, LANG: "C.UTF-8" },
    ...(user ?? {}),
  });
  if (result.status !== 0) {
    const command = args.find((arg) => !arg.startsWith("--")) ?? args.at(-1);
    throw new Error(`pgbackrest ${command} failed: ${(result.stderr || result.stdout || String(result.error)).trim()}`);
  }
  return result.stdout;
}

async function leaderNode(layout: ClusterLayout): Promise<ClusterNode> {
  const leader = (await clusterMembers(layout)).find((member) => member.role === "leader");
  const node = layout.nodes.find((candidate) => candidate.name === leader?.name);
  if (!node) throw new Error(`the cluster has no leader (state in ${layout.dir}): is it running? (npm run cluster:up)`);
  return node;
}

/** One backup in the repository, as `pgbackrest info` tells it. */
export interface BackupEntry {
  label: string;
  type: "full" | "incr" | "diff";
  startedAt: Date;
  stoppedAt: Date;
  /** The database's size, and what the backup stored in the repository (compressed, only changed files for an incremental). */
  databaseBytes: number;
  repositoryBytes: number;
}

/** The repository's backups, oldest first (`pgbackrest info --output=json`). */
export function clusterBackups(layout = clusterLayout()): BackupEntry[] {
  const info = pgbackrest(layout, [`--config=${layout.pgbackrestConfig}`, `--stanza=${STANZA}`, "--output=json", "info"]);
  return stanzaBackups(info, STANZA).map((backup) => ({
    label: backup.label,
    type: backup.type as BackupEntry["type"],
    startedAt: new Date(backup.timestamp.start * 1000),
    stoppedAt: new Date(backup.timestamp.stop * 1000),
    databaseBytes: backup.info.size,
    repositoryBytes: backup.info.repository.delta,
  }));
}

/**
 * A full or incremental backup, taken from the leader: pgBackRest copies the leader's data folder while
 * it serves (pg_backup_start/stop, start-fast), then waits until the WAL that makes it consistent is archived.
 */
export async function clusterBackup(layout = clusterLayout(), type: "full" | "incr" = "full"): Promise<BackupEntry> {
  const node = await leaderNode(layout);
  pgbackrest(layout, [...pgbackrestNodeFlags(layout, node), `--type=${type}`, "backup"]);
  return clusterBackups(layout).at(-1)!;
}

/**
 * Point-in-time recovery into a fresh cluster: stops this one (its processes; the repository stays), removes
 * its data folders and etcd's, and starts a new cluster whose first node pgBackRest restores to `target`
 * (the last backup finished before it, then the archive's WAL up to it); the second node clones it.
 * Everything committed after `target` is gone, on purpose.
 */
export async function clusterRestore(layout: ClusterLayout, target: Date): Promise<void> {
  // Refused before anything stops: PostgreSQL would replay the whole archive and then fail to start.
  if (target.getTime() > Date.now())
    throw new Error(`${target.toISOString()} is in the future: a restore reaches at most the last archived commit (give an instant before now)`);
  if (!existsSync(path.join(layout.backupRepository, "backup", STANZA, "backup.info")))
    throw new Error(`no pgBackRest repository with stanza ${STANZA} in ${layout.backupRepository}: nothing to restore from`);
  installPackages();
  const oldest = clusterBackups(layout)[0];
  // pgBackRest keeps a backup's stop time in whole seconds and needs it strictly before the target.
  if (!oldest || target.getTime() < oldest.stoppedAt.getTime() + 1000)
    throw new Error(
      `${target.toISOString()} is before the oldest backup in ${layout.backupRepository} (${oldest ? `${oldest.label}, finished ${oldest.stoppedAt.toISOString()}` : "none"}): nothing to restore from`,
    );
  // What the cluster committed until now goes to the archive first (`check` switches to a new WAL segment and
  // waits for its archive), so a restore to the wrong instant can be done again to another: nothing is lost
  // with the data folders. A cluster that is down (the reason to restore, sometimes) is restored as it is.
  // A commit after the target too: recovery to an instant stops at the first commit after it, and fails
  // when the archive ends before one (an idle database since the instant).
  try {
    const client = new pg.Client({ connectionString: layout.databaseUrl, connectionTimeoutMillis: 3000 });
    client.on("error", () => undefined);
    try {
      await client.connect();
      await client.query("select txid_current()");
    } finally {
      await client.end().catch(() => undefined);
    }
    pgbackrest(layout, [...pgbackrestNodeFlags(layout, await leaderNode(layout)), "check"]);
  } catch (error) {
    console.error(`the running cluster's last WAL could not be archived before the restore (${(error as Error).message.split("\n")[0]})`);
  }
  await stopProcesses(layout);
  for (const entry of readdirSync(layout.dir)) {
    if (!["backups", "pgbackrest.conf", "pgbackrest"].includes(entry)) rmSync(path.join(layout.dir, entry), { recursive: true, force: true });
  }
  prepareFolder(layout, { kind: "restore", target });
  await startCluster(layout, { kind: "restore", target });
}

/**
 * Turns Patroni's synchronous replication off or on for the whole cluster (its dynamic configuration, as
 * `patronictl edit-config` would); off, the standby still streams, but no commit waits for it.
 */
export async function setSynchronousMode(layout: ClusterLayout, on: boolean): Promise<void> {
  const response = await fetch(`${layout.nodes[0]!.restUrl}/config`, {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ synchronous_mode: on }),
    signal: AbortSignal.timeout(5000),
  });
  if (!response.ok) throw new Error(`Patroni refused synchronous_mode: ${on} (${response.status} ${await response.text()})`);
}

/** A node's own PostgreSQL, not through HAProxy: the same database and user as `databaseUrl`. */
export function nodeDatabaseUrl(layout: ClusterLayout, name: string): string {
  const url = new URL(layout.databaseUrl);
  url.port = String(layout.nodes.find((node) => node.name === name)!.port);
  return url.toString();
}

/** Starts a node's Patroni again (after it was killed, as a machine coming back): it rejoins as a standby. */
export function restartNode(layout: ClusterLayout, name: string): void {
  startPatroni(layout, readState(layout), name);
}

/** Stops every process of the cluster (Patroni first, which stops its PostgreSQL) and removes its folder. */
export async function clusterDown(layout = clusterLayout()): Promise<void> {
  await stopProcesses(layout);
  rmSync(layout.dir, { recursive: true, force: true });
}

/** Stops every process of the cluster, Patroni first (which stops its PostgreSQL); its folder stays. */
async function stopProcesses(layout: ClusterLayout): Promise<void> {
  let state: State = { pids: {} };
  try {
    state = readState(layout);
  } catch {
    // no state: only leftovers of PostgreSQL, if any
  }
  const signalGroup = (pid: number, signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      try {
        process.kill(pid, signal);
      } catch {
        // gone
      }
    }
  };
  const order = [...layout.nodes.map((node) => node.name), "pgbouncer", "haproxy", "etcd"];
  for (const name of order) {
    const pid = state.pids[name];
    if (pid !== undefined) signalGroup(pid, "SIGTERM");
  }
  const deadline = Date.now() + 15_000;
  const alive = () => [...Object.values(state.pids).filter(pidAlive), ...layout.nodes.map(postmasterPid).filter((pid): pid is number => pid !== undefined)];
  while (alive().length > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  for (const pid of Object.values(state.pids)) signalGroup(pid, "SIGKILL");
  for (const node of layout.nodes) {
    const pid = postmasterPid(node);
    if (pid !== undefined) signalGroup(pid, "SIGKILL");
  }
  while (alive().length > 0) await new Promise((resolve) => setTimeout(resolve, 100));
}

function mebibytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

if (import.meta.main) {
  const [command, ...flags] = process.argv.slice(2);
  try {
    if (command === "up" && flags.every((flag) => flag === "--replace")) {
      const layout = await clusterUp(clusterLayout(), { replace: flags.includes("--replace") });
      const members = await clusterMembers(layout);
      console.log(`Cobro's PostgreSQL cluster is running (state in ${layout.dir})
  members    ${members.map((member) => `${member.name} ${member.role}`).join(", ")}
  etcd       http://127.0.0.1:${layout.etcdPort}
  patroni    ${layout.nodes.map((node) => node.restUrl).join(", ")}
  haproxy    127.0.0.1:${layout.haproxyPort} (to the leader)
  pgbouncer  127.0.0.1:${layout.pgbouncerPort} (transaction pooling, to HAProxy)

DATABASE_URL=${layout.databaseUrl}
COBRO_POOLED_DATABASE_URL=${layout.pooledUrl}`);
    } else if (command === "backup" && (flags.length === 0 || (flags.length === 2 && flags[0] === "--type" && ["full", "incr"].includes(flags[1]!)))) {
      const started = Date.now();
      const backup = await clusterBackup(clusterLayout(), (flags[1] ?? "full") as "full" | "incr");
      console.log(
        `${backup.type} backup ${backup.label} in ${((Date.now() - started) / 1000).toFixed(1)} s: database ${mebibytes(backup.databaseBytes)}, ${mebibytes(backup.repositoryBytes)} stored in ${clusterLayout().backupRepository}`,
      );
    } else if (command === "restore" && flags.length === 2 && flags[0] === "--to") {
      const target = new Date(flags[1]!);
      if (Number.isNaN(target.getTime()) || !/(Z|[+-]\d\d:?\d\d)$/.test(flags[1]!))
        throw new Error(`--to takes an ISO 8601 instant with its offset (2026-11-28T22:50:00Z), not ${flags[1]}`);
      const started = Date.now();
      await clusterRestore(clusterLayout(), target);
      console.log(
        `Cobro's PostgreSQL cluster is restored to ${target.toISOString()} in ${((Date.now() - started) / 1000).toFixed(1)} s; start Cobro on it as before`,
      );
    } else if (command === "down" && flags.length === 0) {
      await clusterDown();
      console.log("Cobro's PostgreSQL cluster is stopped and its folder removed");
    } else {
      console.error("usage: node scripts/cluster.ts up [--replace] | down | backup [--type full|incr] | restore --to <ISO 8601 instant>");
      process.exitCode = 2;
    }
  } catch (error) {
    console.error((error as Error).message);
    process.exitCode = 1;
  }
}
