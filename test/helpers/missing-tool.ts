// The one rule for a system tool a test needs (PHP, Python, promtool…): missing under CI=true is a failure,
// since .ci/run installs it and a test must not pass by skipping; missing elsewhere is a skip with the reason.
// And what the SDK tests of other languages share: the tool's check, made once, and a run of it in a folder.
import { execFile } from "node:child_process";

/** Throws `reason` under CI=true; otherwise prints it and calls `skip(reason)`. */
export function toolMissing(reason: string, skip: (reason: string) => void): void {
  if (process.env.CI === "true") throw new Error(reason);
  console.warn(`skipped: ${reason}`);
  skip(reason);
}

/**
 * `available(skip)` for a tool: `check` runs once (it throws when the tool cannot be used); true when it
 * passed, otherwise {@link toolMissing} with `unavailable`, the check's first lines and the packages to install.
 */
export function toolCheck(unavailable: string, packages: string, check: () => Promise<void>): (skip: (reason: string) => void) => Promise<boolean> {
  let ready: Promise<void> | undefined;
  return async (skip) => {
    ready ??= check().catch((error: unknown) => {
      const detail = error instanceof Error ? error.message.split("\n").slice(0, 2).join(" ") : String(error);
      throw new Error(`${unavailable} (${detail}). Install them with: apt-get install -y ${packages}`);
    });
    try {
      await ready;
      return true;
    } catch (error) {
      toolMissing(error instanceof Error ? error.message : String(error), skip);
      return false;
    }
  };
}

export interface ToolRun {
  code: number | null;
  /** stdout and stderr together, as they came. */
  output: string;
  stdout: string;
}

/** Runs `command` with `args` in `cwd` (with `env`, else this process's), `input` on its stdin, and answers its exit code and its output. */
export function runTool(
  command: string,
  args: string[],
  options: { cwd: string; input?: string; timeoutMs: number; env?: NodeJS.ProcessEnv },
): Promise<ToolRun> {
  const child = execFile(command, args, { cwd: options.cwd, env: options.env, timeout: options.timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  let output = "";
  let stdout = "";
  child.stdout!.on("data", (chunk) => {
    output += chunk;
    stdout += chunk;
  });
  child.stderr!.on("data", (chunk) => (output += chunk));
  child.stdin!.end(options.input ?? "");
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output, stdout }));
  });
}
