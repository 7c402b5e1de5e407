// Java 17 and Maven from Debian's packages (openjdk-17-jdk-headless, maven), for the Java SDK's tests
// (sdks/java). CI installs them (.ci/run); elsewhere a machine without them skips those tests with the reason.
// Under CI=true a missing JDK or Maven is a failure (the tests must not pass by skipping).
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { runTool, toolCheck, type ToolRun } from "./missing-tool.ts";

const run = promisify(execFile);

/** The Java SDK's Maven project. */
export const JAVA_SDK_DIR = fileURLToPath(new URL("../../sdks/java/", import.meta.url));

/** True when Java and Maven can build the SDK; otherwise `skip(reason)` outside CI, and a thrown reason under CI=true. */
export const javaAvailable = toolCheck("Java 17 and Maven are unavailable", "openjdk-17-jdk-headless maven", async () => {
  const { stdout, stderr } = await run("java", ["-version"], { timeout: 30_000 });
  const version = /version "(\d+)/.exec(`${stdout}${stderr}`)?.[1];
  if (!version || Number(version) < 17) throw new Error(`java is ${version ?? "of an unknown version"}, 17 or later is needed`);
  await run("mvn", ["-v"], { timeout: 60_000 });
});

/** Runs `command` with `args` in sdks/java and answers its exit code and its output (stdout and stderr together, and stdout alone). */
export function runInJavaSdk(command: string, args: string[], options: { timeoutMs?: number; input?: string } = {}): Promise<ToolRun> {
  return runTool(command, args, { cwd: JAVA_SDK_DIR, input: options.input, timeoutMs: options.timeoutMs ?? 600_000 });
}

/**
 * Runs Maven in sdks/java: offline (`-o`) first, from the local repository (~/.m2, which CI keeps), and online
 * once when something is not there yet (a first run, or a version changed in pom.xml), so that a run needs
 * Maven Central only when the build's pins change.
 */
export async function maven(args: string[], options: { timeoutMs?: number } = {}): Promise<ToolRun> {
  const offline = await runInJavaSdk("mvn", ["-B", "-Dstyle.color=never", "-o", ...args], options);
  if (offline.code === 0 || !/offline mode|has not been downloaded from it before/i.test(offline.output)) return offline;
  return runInJavaSdk("mvn", ["-B", "-Dstyle.color=never", ...args], options);
}
