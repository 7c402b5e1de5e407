// PHP 8.2, Guzzle and PHPUnit from Debian's packages, for the PHP SDK's tests (sdks/php). CI installs them
// (.ci/run); elsewhere a machine without them skips those tests with the reason. Under CI=true missing PHP
// is a failure (the tests must not pass by skipping).
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { toolMissing } from "./missing-tool.ts";

const run = promisify(execFile);

/** The PHP SDK's folder (its autoload.php loads the package and Debian's Guzzle). */
export const PHP_SDK_DIR = fileURLToPath(new URL("../../sdks/php/", import.meta.url));

const PACKAGES = "php8.2-cli php-curl php-mbstring php-guzzlehttp-guzzle phpunit";

let ready: Promise<void> | undefined;

function probe(): Promise<void> {
  ready ??= (async () => {
    try {
      // The SDK's autoloader finds Guzzle, and curl and mbstring are loaded.
      await run("php", ["-r", `require ${JSON.stringify(`${PHP_SDK_DIR}autoload.php`)}; new GuzzleHttp\\Client(); mb_strlen('ñ'); curl_version();`], {
        timeout: 30_000,
      });
      await run("phpunit", ["--version"], { timeout: 30_000 });
    } catch (error) {
      const detail = error instanceof Error ? error.message.split("\n").slice(0, 2).join(" ") : String(error);
      throw new Error(`PHP with Guzzle and PHPUnit is unavailable (${detail}). Install it with: apt-get install -y ${PACKAGES}`);
    }
  })();
  return ready;
}

/** True when PHP can run the SDK; otherwise `skip(reason)` outside CI, and a thrown reason under CI=true. */
export async function phpAvailable(skip: (reason: string) => void): Promise<boolean> {
  try {
    await probe();
    return true;
  } catch (error) {
    toolMissing(error instanceof Error ? error.message : String(error), skip);
    return false;
  }
}

export interface PhpRun {
  code: number | null;
  output: string;
}

/** Runs `php`/`phpunit` with `args` in sdks/php and answers its exit code and its stdout and stderr together. */
export async function runInPhpSdk(command: "php" | "phpunit", args: string[], options: { input?: string; timeoutMs?: number } = {}): Promise<PhpRun> {
  const child = execFile(command, args, { cwd: PHP_SDK_DIR, timeout: options.timeoutMs ?? 60_000 });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  child.stdin!.end(options.input ?? "");
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", resolve);
  });
  return { code, output };
}
