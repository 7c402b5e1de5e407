// The embedded PostgreSQL on its own data folders (not the run's shared server): restarts keep data, a
// second Cobro on the same folder is refused, and a server orphaned by a killed Cobro is recovered.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "kysely";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type DatabaseHandle, openDatabase } from "../../db/connect.ts";
import { CobroStartupError } from "../../db/errors.ts";
import { migrateToLatest } from "../../db/migrate.ts";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const connectModule = new URL("../../db/connect.ts", import.meta.url).href;
// The project's Node 24 (the `node` devDependency) runs .ts directly; vitest itself may run on another Node.
const node24 = existsSync(path.join(repo, "node_modules/.bin/node")) ? path.join(repo, "node_modules/.bin/node") : process.execPath;

let root: string;
beforeAll(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), "cobro-embedded-test-")); // see TEST_FOLDER_PREFIXES in test/global-setup.ts
  await chmod(root, 0o755); // mkdtemp makes it 700; as root, PostgreSQL runs as the postgres user
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

/**
 * Runs openDatabase on `dataDir` in a child process: it prints "opened" and waits (until killed or until this
 * process goes away), or prints the error and exits 2.
 */
function openInChild(dataDir: string) {
  const script = `
    import { openDatabase } from ${JSON.stringify(connectModule)};
    try {
      await openDatabase({ dataDir: ${JSON.stringify(dataDir)} });
      console.log("opened");
      process.stdin.on("close", () => process.exit(0)); // the test process is gone: close like a clean exit
      process.stdin.resume();
    } catch (error) {
      console.error(error.name + ": " + error.message);
      process.exit(2);
    }`;
  const child = spawn(node24, ["--input-type=module", "-e", script], { stdio: ["pipe", "pipe", "pipe"] });
  children.push(child);
  let output = "";
  child.stdout.on("data", (chunk) => (output += chunk));
  child.stderr.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const opened = new Promise<void>((resolve, reject) => {
    child.stdout.on("data", () => output.includes("opened") && resolve());
    void exited.then(() => reject(new Error(`child exited: ${output}`)));
  });
  opened.catch(() => undefined); // only some callers wait for it

  return { child, exited, opened, output: () => output };
}

describe("the embedded PostgreSQL", () => {
  it("keeps data across a restart, on a fixed port, and stops cleanly", async () => {
    const dataDir = path.join(root, "restart");
    const port = await freePort();

    const first = await openDatabase({ dataDir, embeddedPort: port });
    expect(first.embedded).toBe(true);
    expect(new URL(first.connectionString).port).toBe(String(port));
    await migrateToLatest(first.db);
    const { installation_id } = await first.db.selectFrom("installation").selectAll().executeTakeFirstOrThrow();
    await sql`create table note (body text)`.execute(first.db);
    await sql`insert into note values ('kept')`.execute(first.db);
    await first.close();
    expect(existsSync(path.join(dataDir, "postgres", "postmaster.pid"))).toBe(false);
    expect(existsSync(path.join(dataDir, "cobro.lock"))).toBe(false);

    const second = await openDatabase({ dataDir, embeddedPort: port });
    try {
      expect(await migrateToLatest(second.db)).toEqual([]);
      const again = await second.db.selectFrom("installation").selectAll().executeTakeFirstOrThrow();
      expect(again.installation_id).toBe(installation_id);
      const { rows } = await sql<{ body: string }>`select body from note`.execute(second.db);
      expect(rows).toEqual([{ body: "kept" }]);
    } finally {
      await second.close();
    }
  });

  it("says so when its fixed port is taken, and leaves the folder usable", async () => {
    const dataDir = path.join(root, "port-taken");
    const squatter = net.createServer().listen(0, "127.0.0.1");
    await new Promise((resolve) => squatter.once("listening", resolve));
    const port = (squatter.address() as net.AddressInfo).port;
    try {
      const failure = await openDatabase({ dataDir, embeddedPort: port }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(CobroStartupError);
      expect((failure as Error).message).toBe(`Port ${port} for the embedded PostgreSQL is already in use`);
    } finally {
      squatter.close();
    }
    const handle = await openDatabase({ dataDir });
    await handle.close();
  });

  describe("while one Cobro runs on a data folder", () => {
    let dataDir: string;
    let running: DatabaseHandle;
    beforeAll(async () => {
      dataDir = path.join(root, "busy");
      running = await openDatabase({ dataDir });
    });
    afterAll(async () => {
      await running?.close();
    });

    it("refuses a second process with one readable line, and the first goes on", async () => {
      const second = openInChild(dataDir);
      expect(await second.exited).toBe(2);
      expect(second.output().trim()).toBe(`CobroStartupError: Another Cobro is already running on ${dataDir} (pid ${process.pid})`);
      const { rows } = await sql<{ ok: number }>`select 1 as ok`.execute(running.db);
      expect(rows).toEqual([{ ok: 1 }]);
    });

    it.runIf(process.platform === "linux")("runs PostgreSQL in its own session, out of reach of a terminal's Ctrl-C", async () => {
      const pid = (await readFile(path.join(dataDir, "postgres", "postmaster.pid"), "utf8")).split("\n")[0];
      const session = async (file: string) => (await readFile(file, "utf8")).replace(/^.*\) /, "").split(" ")[3];
      expect(await session(`/proc/${pid}/stat`)).toBe(pid);
      expect(await session(`/proc/${pid}/stat`)).not.toBe(await session("/proc/self/stat"));
    });

    it("refuses a second open in the same process", async () => {
      const failure = await openDatabase({ dataDir }).catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(CobroStartupError);
      expect((failure as Error).message).toBe(`Cobro is already running on ${dataDir} in this process (pid ${process.pid})`);
    });
  });

  it("recovers the data folder of a Cobro that was killed", async () => {
    const dataDir = path.join(root, "killed");
    const setup = await openDatabase({ dataDir });
    await migrateToLatest(setup.db);
    await sql`create table note (body text)`.execute(setup.db);
    await sql`insert into note values ('before the kill')`.execute(setup.db);
    await setup.close();

    const victim = openInChild(dataDir);
    await victim.opened;
    victim.child.kill("SIGKILL"); // no close(): its PostgreSQL and lock file stay behind
    await victim.exited;
    expect(existsSync(path.join(dataDir, "postgres", "postmaster.pid"))).toBe(true);

    const recovered = await openDatabase({ dataDir });
    try {
      const { rows } = await sql<{ body: string }>`select body from note`.execute(recovered.db);
      expect(rows).toEqual([{ body: "before the kill" }]);
    } finally {
      await recovered.close();
    }
  });
});
