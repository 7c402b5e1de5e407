// PHP 8.2, Guzzle and PHPUnit from Debian's packages, for the PHP SDK's tests (sdks/php). CI installs them
// (.ci/run); elsewhere a machine without them skips those tests with the reason. Under CI=true missing PHP
// is a failure (the tests must not pass by skipping).
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { runTool, toolCheck, type ToolRun } from "./missing-tool.ts";

const run = promisify(execFile);

/** The PHP SDK's folder (its autoload.php loads the package and Debian's Guzzle). */
export const PHP_SDK_DIR = fileURLToPath(new URL("../../sdks/php/", import.meta.url));

/** True when PHP can run the SDK; otherwise `skip(reason)` outside CI, and a thrown reason under CI=true. */
export const phpAvailable = toolCheck(
  "PHP with Guzzle and PHPUnit is unavailable",
  "php8.2-cli php-curl php-mbstring php-guzzlehttp-guzzle phpunit",
  async () => {
    // The SDK's autoloader finds Guzzle, and curl and mbstring are loaded.
    await run("php", ["-r", `require ${JSON.stringify(`${PHP_SDK_DIR}autoload.php`)}; new GuzzleHttp\\Client(); mb_strlen('ñ'); curl_version();`], {
      timeout: 30_000,
    });
    await run("phpunit", ["--version"], { timeout: 30_000 });
  },
);

/** Runs `php`/`phpunit` with `args` in sdks/php and answers its exit code and its output. */
export function runInPhpSdk(command: "php" | "phpunit", args: string[], options: { input?: string; timeoutMs?: number } = {}): Promise<ToolRun> {
  return runTool(command, args, { cwd: PHP_SDK_DIR, input: options.input, timeoutMs: options.timeoutMs ?? 60_000 });
}
