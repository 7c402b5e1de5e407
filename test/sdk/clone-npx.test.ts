// `npx cobro` from the repository's root, the way docs/sandbox-walkthrough.md says to run it on a fresh
// clone: `npm ci`, then `(cd sdk && npm run build)`, then `npx cobro …`. npm links the `cobro` bin of the
// `file:sdk` dependency while it installs, from what the lock file and sdk/package.json say, and it links
// nothing when the bin's file is missing then; a clone has no sdk/dist yet, so a bin pointing into dist/
// left `npx cobro` with nothing to run. A whole clone's `npm ci` takes minutes; what decides the link is
// only the `@cobro/sdk` entries of the real package-lock.json and the tracked files of sdk/, so the clone
// here is those: the root's `@cobro/sdk` dependency with its lock entries, and `git ls-files sdk` copied
// (no dist/). Everything else the root installs plays no part in that link step.
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCommand as run } from "./run-command.ts";

const root = resolve(import.meta.dirname, "../..");
let clone: string;

beforeAll(() => {
  clone = mkdtempSync(join(tmpdir(), "cobro-clone-"));
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  const lock = JSON.parse(readFileSync(join(root, "package-lock.json"), "utf8"));
  writeFileSync(
    join(clone, "package.json"),
    JSON.stringify({
      name: manifest.name,
      version: manifest.version,
      private: true,
      type: "module",
      dependencies: { "@cobro/sdk": manifest.dependencies["@cobro/sdk"] },
    }),
  );
  const rootEntry = lock.packages[""];
  writeFileSync(
    join(clone, "package-lock.json"),
    JSON.stringify({
      ...lock,
      packages: {
        "": { name: rootEntry.name, version: rootEntry.version, dependencies: { "@cobro/sdk": rootEntry.dependencies["@cobro/sdk"] } },
        "node_modules/@cobro/sdk": lock.packages["node_modules/@cobro/sdk"],
        sdk: lock.packages.sdk,
      },
    }),
  );
  for (const file of run("git", ["ls-files", "sdk"], root)
    .split("\n")
    .filter((line) => line !== "")) {
    mkdirSync(dirname(join(clone, file)), { recursive: true });
    cpSync(join(root, file), join(clone, file));
  }
}, 60_000);

afterAll(() => {
  if (clone) rmSync(clone, { recursive: true, force: true });
});

describe("a fresh clone", () => {
  it("runs `npx cobro` from the root after `npm ci` and `(cd sdk && npm run build)`", () => {
    expect(existsSync(join(clone, "sdk", "dist"))).toBe(false);
    run("npm", ["ci", "--offline"], clone);
    // The build's compiler and Node's types: what the root's `npm ci` installs beside the link.
    mkdirSync(join(clone, "node_modules", "@types"), { recursive: true });
    symlinkSync(join(root, "node_modules", "typescript"), join(clone, "node_modules", "typescript"));
    symlinkSync(join(root, "node_modules", "@types", "node"), join(clone, "node_modules", "@types", "node"));
    expect(existsSync(join(clone, "node_modules", ".bin", "cobro")), "npm ci linked no node_modules/.bin/cobro").toBe(true);

    run("npm", ["run", "build"], join(clone, "sdk"));
    expect(run("npx", ["--offline", "cobro", "--help"], clone)).toMatch(/^Usage: cobro <command> \[options\]/);
    expect(run("npx", ["--offline", "cobro", "listen", "--help"], clone)).toMatch(/^Usage: cobro listen/);
  }, 120_000);

  it("runs `npx cobro` before any build, building the command line first", () => {
    rmSync(join(clone, "sdk", "dist"), { recursive: true, force: true });
    expect(run("npx", ["--offline", "cobro", "--help"], clone)).toMatch(/^Usage: cobro <command> \[options\]/);
    expect(existsSync(join(clone, "sdk", "dist", "cli", "main.js"))).toBe(true);
  }, 120_000);
});
