// `npm run cluster:up` next to a cluster that already runs on its ports: refused in one line (what runs,
// how to stop it) rather than destroyed, unless `--replace`; what a cluster left behind without processes
// is still cleaned up. The decision runs before any package or Patroni is needed, so no cluster starts here.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { clusterDown, clusterLayout, makeRoomForCluster, type ClusterLayout } from "../../scripts/cluster.ts";
import { runScript } from "../../scripts/cobro-process.ts";

// Ports no other cluster of the project uses (the operator's 25400, the failover tests' 25500, the bench's 25600, the restore drill's 25700).
const PORT_BASE = 27400 + (process.pid % 50) * 50;
const layout: ClusterLayout = clusterLayout(PORT_BASE);

const sleepers: ChildProcess[] = [];
afterEach(async () => {
  for (const sleeper of sleepers.splice(0)) sleeper.kill("SIGKILL");
  await clusterDown(layout);
});

/** A live process standing in for the cluster's etcd. */
function sleeper(): number {
  const child = spawn(process.execPath, ["-e", "setInterval(() => {}, 1 << 30)"], { stdio: "ignore" });
  sleepers.push(child);
  return child.pid!;
}

/** The pid of a process that has exited. */
async function gonePid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.once("exit", resolve));
  return child.pid!;
}

function writeState(pids: Record<string, number>): void {
  mkdirSync(layout.dir, { recursive: true });
  writeFileSync(path.join(layout.dir, "state.json"), JSON.stringify({ pids }));
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("npm run cluster:up next to a cluster on the same ports", () => {
  it("refuses with one line saying what runs there and how to stop it, and leaves it running", async () => {
    const etcd = sleeper();
    writeState({ etcd });
    const run = await runScript("scripts/cluster.ts", ["up"], { ...process.env, COBRO_CLUSTER_PORT_BASE: String(PORT_BASE) } as Record<string, string>);
    expect(run.code).not.toBe(0);
    const lines = run.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`etcd pid ${etcd}`);
    expect(lines[0]).toContain(`ports ${PORT_BASE}-${layout.pgbouncerPort}`);
    expect(lines[0]).toContain("npm run cluster:down");
    expect(lines[0]).toContain("--replace");
    expect(alive(etcd)).toBe(true);
    expect(existsSync(path.join(layout.dir, "state.json"))).toBe(true);
  });

  it("removes what a cluster left behind when none of its processes runs any more", async () => {
    writeState({ etcd: await gonePid(), pg0: await gonePid() });
    await makeRoomForCluster(layout);
    expect(existsSync(layout.dir)).toBe(false);
  });

  it("with --replace, stops the running cluster and removes its folder", async () => {
    const etcd = sleeper();
    writeState({ etcd });
    await makeRoomForCluster(layout, { replace: true });
    expect(existsSync(layout.dir)).toBe(false);
    await expect.poll(() => alive(etcd)).toBe(false);
  });
});

describe("npm run cluster:restore", () => {
  const restore = (to: string) =>
    runScript("scripts/cluster.ts", ["restore", "--to", to], { ...process.env, COBRO_CLUSTER_PORT_BASE: String(PORT_BASE) } as Record<string, string>);

  it("refuses an instant without its offset, in one line, before touching the cluster", async () => {
    const etcd = sleeper();
    writeState({ etcd });
    const run = await restore("2026-11-28 14:03:00");
    expect(run.code).not.toBe(0);
    expect(run.stderr.trim().split("\n")).toEqual(["--to takes an ISO 8601 instant with its offset (2026-11-28T22:50:00Z), not 2026-11-28 14:03:00"]);
    expect(alive(etcd)).toBe(true);
  });

  it("refuses an instant in the future: the archive cannot reach it, and the cluster keeps running", async () => {
    const etcd = sleeper();
    writeState({ etcd });
    const run = await restore("2999-01-01T00:00:00Z");
    expect(run.code).not.toBe(0);
    expect(run.stderr.trim().split("\n")).toEqual([
      "2999-01-01T00:00:00.000Z is in the future: a restore reaches at most the last archived commit (give an instant before now)",
    ]);
    expect(alive(etcd)).toBe(true);
  });

  it("refuses without a repository, naming where it looked", async () => {
    const etcd = sleeper();
    writeState({ etcd });
    const run = await restore("2026-01-01T00:00:00Z");
    expect(run.code).not.toBe(0);
    expect(run.stderr.trim().split("\n")).toEqual([`no pgBackRest repository with stanza cobro in ${layout.backupRepository}: nothing to restore from`]);
    expect(alive(etcd)).toBe(true);
  });
});
