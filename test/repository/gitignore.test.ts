// What git leaves out of the repository: the Sandbox's data and the credentials written beside it, the
// SDK's `npm pack` tarball, and each rule once. Asked of git itself (`git check-ignore`), so the test reads
// the rules as git does.
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");

/** The paths of `paths` that git ignores (`git check-ignore --no-index`: tracked or not, the rules alone). */
function ignored(paths: string[]): string[] {
  const run = spawnSync("git", ["check-ignore", "--no-index", ...paths], { cwd: ROOT, encoding: "utf8" });
  // 0: some are ignored, 1: none is; anything else is git failing.
  expect([0, 1], run.stderr).toContain(run.status);
  return run.stdout.split("\n").filter(Boolean);
}

describe(".gitignore", () => {
  it("ignores the Sandbox's credentials files, wherever the walkthrough's tips write them, and the SDK's tarball", () => {
    const secretsAndBuilds = [
      ".data/sandbox.json",
      ".data/sandbox.3f2c1d4e-0000-4000-8000-000000000000.json",
      ".data/sandbox-fresh.json",
      "sandbox.json",
      "sandbox-fresh.json",
      "sdk/cobro-sdk-0.1.0.tgz",
      "cobro-sdk-0.1.0.tgz",
    ];
    expect(ignored(secretsAndBuilds)).toEqual(secretsAndBuilds);
  });

  it("keeps the project's own files", () => {
    expect(ignored(["package.json", "sdk/package.json", "docs/sandbox-walkthrough.md", "ops/grafana/cobro.json"])).toEqual([]);
    expect(execFileSync("git", ["ls-files", "-ci", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" })).toBe("");
  });

  it("lists each rule once", () => {
    const rules = readFileSync(join(ROOT, ".gitignore"), "utf8")
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "" && !line.startsWith("#"));
    expect(rules.filter((rule, i) => rules.indexOf(rule) !== i)).toEqual([]);
  });
});
