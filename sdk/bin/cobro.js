#!/usr/bin/env node
// `cobro`: the package's bin. It runs the command line built in dist/. It is a file of its own, outside dist/,
// so that npm links it even where dist/ does not exist yet: a clone of the Cobro repository, whose `npm ci`
// links the `file:sdk` dependency before anything is built (npm links no bin whose file is missing, and
// never looks again). In a clone without dist/, it builds the package first with the TypeScript the root's
// `npm ci` installed; the published package ships dist/ and never builds.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const main = new URL("../dist/cli/main.js", import.meta.url);
if (!existsSync(main)) {
  const tsc = fileURLToPath(new URL("../../node_modules/typescript/bin/tsc", import.meta.url));
  const tsconfig = fileURLToPath(new URL("../tsconfig.json", import.meta.url));
  if (!existsSync(tsc) || !existsSync(tsconfig)) {
    process.stderr.write(`cobro is not built (no ${fileURLToPath(main)}): run npm run build in the SDK's folder\n`);
    process.exit(1);
  }
  process.stderr.write("cobro: building the command line first (sdk/dist)…\n");
  execFileSync(process.execPath, [tsc, "-p", tsconfig], { stdio: ["ignore", "inherit", "inherit"] });
}
await import(main.href);
