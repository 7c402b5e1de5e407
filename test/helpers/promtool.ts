// Debian's promtool (package `prometheus`, installed by .ci/run), for the alert rules and the dashboard's
// queries. A promtool that is missing is a failure under CI=true (the test must not pass by skipping), and a
// skip with the reason elsewhere, as for Chromium and Python.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { toolMissing } from "./missing-tool.ts";

export const PROMTOOL_PATH = process.env.PROMTOOL_PATH ?? "/usr/bin/promtool";

/** The path of promtool, or `undefined` after `skip(reason)` outside CI; under CI=true a missing one throws. */
export function promtoolOr(skip: (reason: string) => void): string | undefined {
  if (existsSync(PROMTOOL_PATH)) return PROMTOOL_PATH;
  toolMissing(`promtool is not at ${PROMTOOL_PATH}: apt-get install prometheus (or set PROMTOOL_PATH)`, skip);
  return undefined;
}

export interface PromtoolRun {
  code: number;
  /** stdout and stderr together, in the order promtool wrote them as far as the pipes tell. */
  output: string;
}

/** Runs `promtool <args>` to its exit; a non-zero exit is answered, not thrown, so a test can show the output. */
export function runPromtool(promtool: string, args: string[]): Promise<PromtoolRun> {
  return new Promise((resolve, reject) => {
    execFile(promtool, args, { timeout: 60_000 }, (error, stdout, stderr) => {
      const output = `${stdout}${stderr}`;
      if (error && typeof error.code !== "number") reject(error);
      else resolve({ code: error ? Number(error.code) : 0, output });
    });
  });
}
