// The service as one JavaScript file, server/main.bundle.js: `npm start` builds it (esbuild, under a second)
// and runs it, and so do the tests and benches that start Cobro as a person does (scripts/cobro-process.ts).
// Node 24 runs the TypeScript sources as they are, but its type stripper (WebAssembly) holds about 20 MB
// for the life of a process that loads a `.ts` file; the bundle is plain JavaScript, so the APIs' process
// and the worker's never load it. Packages stay in node_modules (not bundled), and the bundle sits in
// server/ beside main.ts, so the paths the server reads relative to its own file (the widget's script,
// generated/openapi, portal/src) are the same from either.
//
// Stack traces name the bundle's lines; each module's code there starts with a comment naming its source
// file, and server/main.bundle.js.map maps them back (`NODE_OPTIONS=--enable-source-maps`, which costs
// about 50 MB, so it is not the default).
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as esbuild from "esbuild";

const ROOT = join(import.meta.dirname, "..");

/** The file `npm start` runs. */
export const SERVER_BUNDLE = join(ROOT, "server", "main.bundle.js");

/**
 * Builds the bundle from the sources as they are now. Each file is written under a name of its own and
 * renamed into place, so processes that build at once (parallel test files) never read a half-written one.
 */
export function buildServer(): string {
  const result = esbuild.buildSync({
    entryPoints: [join(ROOT, "server", "main.ts")],
    outfile: SERVER_BUNDLE,
    bundle: true,
    packages: "external",
    platform: "node",
    format: "esm",
    target: "node24",
    sourcemap: "linked",
    write: false,
    logLevel: "silent",
  });
  for (const file of result.outputFiles) {
    const partial = `${file.path}.${process.pid}.partial`;
    writeFileSync(partial, file.contents);
    renameSync(partial, file.path);
  }
  return SERVER_BUNDLE;
}

let built: string | undefined;

/** The bundle built once per process, from the sources as they were at the first call. */
export function serverBundle(): string {
  built ??= buildServer();
  return built;
}

if (import.meta.main) buildServer();
