// Java 17 and Maven from Debian's packages (openjdk-17-jdk-headless, maven), for the Java SDK's tests
// (sdks/java). CI installs them (.ci/run); elsewhere a machine without them skips those tests with the reason.
// Under CI=true a missing JDK or Maven is a failure (the tests must not pass by skipping).
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { toolMissing } from "./missing-tool.ts";

const run = promisify(execFile);

/** The Java SDK's Maven project. */
export const JAVA_SDK_DIR = fileURLToPath(new URL("../../sdks/java/", import.meta.url));

const PACKAGES = "openjdk-17-jdk-headless maven";

let ready: Promise<void> | undefined;

function probe(): Promise<void> {
  ready ??= (async () => {
    try {
      const { stdout, stderr } = await run("java", ["-version"], { timeout: 30_000 });
      const version = /version "(\d+)/.exec(`${stdout}${stderr}`)?.[1];
      if (!version || Number(version) < 17) throw new Error(`java is ${version ?? "of an unknown version"}, 17 or later is needed`);
      await run("mvn", ["-v"], { timeout: 60_000 });
    } catch (error) {
      const detail = error instanceof Error ? error.message.split("\n").slice(0, 2).join(" ") : String(error);
      throw new Error(`Java 17 and Maven are unavailable (${detail}). Install them with: apt-get install -y ${PACKAGES}`);
    }
  })();
  return ready;
}

/** True when Java and Maven can build the SDK; otherwise `skip(reason)` outside CI, and a thrown reason under CI=true. */
export async function javaAvailable(skip: (reason: string) => void): Promise<boolean> {
  try {
    await probe();
    return true;
  } catch (error) {
    toolMissing(error instanceof Error ? error.message : String(error), skip);
    return false;
  }
}

export interface CommandRun {
  code: number | null;
  output: string;
  stdout: string;
}

/** Runs `command` with `args` in sdks/java and answers its exit code and its output (stdout and stderr together, and stdout alone). */
export function runInJavaSdk(command: string, args: string[], options: { timeoutMs?: number; input?: string } = {}): Promise<CommandRun> {
  const child = execFile(command, args, { cwd: JAVA_SDK_DIR, timeout: options.timeoutMs ?? 600_000, maxBuffer: 64 * 1024 * 1024 });
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

/**
 * Runs Maven in sdks/java: offline (`-o`) first, from the local repository (~/.m2, which CI keeps), and online
 * once when something is not there yet (a first run, or a version changed in pom.xml), so that a run needs
 * Maven Central only when the build's pins change.
 */
export async function maven(args: string[], options: { timeoutMs?: number } = {}): Promise<CommandRun> {
  const offline = await runInJavaSdk("mvn", ["-B", "-Dstyle.color=never", "-o", ...args], options);
  if (offline.code === 0 || !/offline mode|has not been downloaded from it before/i.test(offline.output)) return offline;
  return runInJavaSdk("mvn", ["-B", "-Dstyle.color=never", ...args], options);
}
