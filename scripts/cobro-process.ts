// Cobro as a person runs it: `npm start`'s bundle of server/main.ts (scripts/build-server.ts, built from the
// sources once per process that starts one) in its own process, with nothing inherited but PATH and HOME
// (no DATABASE_URL: the embedded default) and free ports unless the test says otherwise.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import type { ApiName } from "../runtime/config.ts";
import { serverBundle } from "./build-server.ts";

export const ROOT = join(import.meta.dirname, "..");

export interface StartedCobro {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr together. */
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * The environment of a spawned Cobro: PATH, HOME, ports 0, the metrics listener off (many run at once;
 * a test that scrapes gives COBRO_METRICS_PORT), then the test's own variables.
 */
export function cobroEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    INTEGRATION_PORT: "0",
    AUTH_PORT: "0",
    ADMIN_PORT: "0",
    COBRO_METRICS_PORT: "0",
    ...extra,
  };
}

export function startCobro(extra: Record<string, string> = {}, args: string[] = []): StartedCobro {
  const child = spawn(process.execPath, [serverBundle(), ...args], {
    cwd: ROOT,
    env: cobroEnv({ LOG_LEVEL: "warn", ...extra }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Waits until the output matches, failing early if the process exits or the time runs out. */
export async function waitForOutput(started: StartedCobro, pattern: RegExp, timeoutMs = 90_000): Promise<RegExpMatchArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = started.output().match(pattern);
    if (match) return match;
    if (started.child.exitCode !== null) throw new Error(`exited early:\n${started.output()}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern}:\n${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Where each API of a started Cobro is reached, from the lines it printed once up (server/banner.ts): the
 * address its listener shows after a public URL that is not this machine's (behind a proxy), the public URL
 * otherwise. Only the APIs the process serves are there.
 */
export function servedUrls(output: string): Partial<Record<ApiName, string>> {
  const urls: Partial<Record<ApiName, string>> = {};
  for (const match of output.matchAll(/^ {2}(integration|auth|admin) +(https?:\S+)(?: \(listening on (http:\S+)\))?$/gm))
    urls[match[1] as ApiName] = match[3] ?? match[2]!;
  return urls;
}

export interface ScriptRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node <script> <args>` from the project's root, as `npm run <name> -- <args>` runs it, to its exit. */
export function runScript(script: string, args: string[], env: Record<string, string>): Promise<ScriptRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk) => (stdout += chunk));
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}
