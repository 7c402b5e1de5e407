// A command run to its end (npm, the packed SDK's bin), quietly: its output returned, or, when it fails, an
// error that carries what it printed. Synchronous, so only for tests with no service in this process.
import { execFileSync } from "node:child_process";

export function runCommand(command: string, args: string[], cwd: string): string {
  try {
    return execFileSync(command, args, {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, npm_config_update_notifier: "false", npm_config_audit: "false", npm_config_fund: "false" },
    });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${command} ${args.join(" ")} failed: ${e.message}\n${e.stdout ?? ""}\n${e.stderr ?? ""}`);
  }
}
