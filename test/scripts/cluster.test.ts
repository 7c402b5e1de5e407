// `npm run cluster:up` next to a cluster that already runs on its ports: refused in one line (what runs,
// how to stop it) rather than destroyed, unless `--replace`; what a cluster left behind without processes
// is still cleaned up. The decision runs before any package or Patroni is needed, so no cluster starts here.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { clusterDown, clusterLayout, makeRoomForCluster, type ClusterLayout } from "../../scripts/cluster.ts";
import { runScript } from "../../scripts/cobro-process.ts";

// Ports no other cluster of the project uses (the operator's 25400, the HA tests' 25500, the bench's 25600).
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
