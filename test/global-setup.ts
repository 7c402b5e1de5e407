// One PostgreSQL for the whole test run: the embedded one in a temporary folder (removed at the end), or
// the server at DATABASE_URL (CI runs the suite a second time against PostgreSQL 15 that way). Test files
// get its admin URL through inject("databaseAdminUrl") and each makes its own database
// (test/helpers/database.ts), so files run in parallel without sharing rows.
import { readFileSync } from "node:fs";
import { chmod, mkdtemp, readdir, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "../db/embedded-postgres.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** A PostgreSQL URL whose user may create and drop databases. */
    databaseAdminUrl: string;
  }
}

/** Temporary folders of embedded PostgreSQL made by tests: this file's and test/db/embedded.test.ts's. */
export const TEST_FOLDER_PREFIXES = ["cobro-test-pg-", "cobro-embedded-test-"];

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  await removeLeftovers();
  const external = process.env.DATABASE_URL;
  if (external) {
    project.provide("databaseAdminUrl", external);
    return undefined;
  }
  const dataDir = await mkdtemp(path.join(os.tmpdir(), TEST_FOLDER_PREFIXES[0]!));
  await chmod(dataDir, 0o755); // as root, PostgreSQL runs as the postgres user and must enter it
  const server = await startEmbeddedPostgres({ dataDir });
  project.provide("databaseAdminUrl", server.adminConnectionString);
  const removeSignalHandlers = stopOnSignals(path.join(dataDir, "postgres"));
  return async () => {
    removeSignalHandlers();
    await server.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
}

/**
 * A Ctrl-C may end vitest without running the teardown. Ask PostgreSQL for a fast shutdown right away
 * (synchronously), then let the signal do what it would have done.
 */
function stopOnSignals(pgDir: string): () => void {
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
  const onSignal = (signal: NodeJS.Signals) => {
    removeAll();
    const pid = postmasterPid(pgDir);
    if (pid !== undefined) process.kill(pid, "SIGINT");
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  };
  const removeAll = () => {
    for (const signal of signals) process.removeListener(signal, onSignal);
  };
  for (const signal of signals) process.on(signal, onSignal);
  return removeAll;
}

function postmasterPid(pgDir: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path.join(pgDir, "postmaster.pid"), "utf8").split("\n")[0] ?? "", 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An interrupted run (Ctrl-C, a killed worker) can leave an embedded PostgreSQL running in its temporary
 * folder: PostgreSQL runs in its own session, so it outlives its parent. Stop such servers and remove their
 * folders, once no live process holds any of their locks.
 */
async function removeLeftovers(): Promise<void> {
  const tmp = os.tmpdir();
  for (const name of await readdir(tmp)) {
    if (!TEST_FOLDER_PREFIXES.some((prefix) => name.startsWith(prefix))) continue;
    const folder = path.join(tmp, name);
    try {
      if (Date.now() - (await stat(folder)).mtimeMs < 5 * 60_000) continue; // may belong to a run under way
      const dataDirs = [folder, ...(await readdir(folder)).map((entry) => path.join(folder, entry))];
      if (dataDirs.some((dir) => isAlive(lockHolder(dir)))) continue; // a run still uses it
      for (const dir of dataDirs) await stopPostmaster(path.join(dir, "postgres"));
      await rm(folder, { recursive: true, force: true });
    } catch {
      // not ours to clean, or gone meanwhile
    }
  }
}

function lockHolder(dataDir: string): number | undefined {
  try {
    return (JSON.parse(readFileSync(path.join(dataDir, "cobro.lock"), "utf8")) as { pid?: number }).pid;
  } catch {
    return undefined;
  }
}

async function stopPostmaster(pgDir: string): Promise<void> {
  const pid = postmasterPid(pgDir);
  if (pid === undefined) return;
  // Only a postmaster of this very folder (its command line names it) is signalled.
  let cmdline: string[];
  try {
    cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return; // not running (or not Linux)
  }
  if (!cmdline.includes(pgDir)) return;
  process.kill(pid, "SIGINT");
  for (let waited = 0; waited < 10_000 && isAlive(pid); waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function isAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
