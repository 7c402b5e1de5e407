// The Python of .venv-test (at the repository root), with requirements-test.txt installed: for tests that run
// receivers' libraries in Python. CI creates it before the tests (.ci/run); elsewhere it is created here on
// first use (needs python3 with venv, and PyPI). A Python that cannot be had is a failure under CI=true (the
// test must not pass by skipping), and a skip with the reason elsewhere.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../", import.meta.url));
const VENV = `${root}.venv-test`;
const PYTHON = `${VENV}/bin/python`;
const REQUIREMENTS = `${root}requirements-test.txt`;

let ready: Promise<string> | undefined;

/** The venv's python, once `module` imports in it; throws with what to do when it cannot. */
function provision(module: string): Promise<string> {
  ready ??= (async () => {
    const imports = () =>
      run(PYTHON, ["-c", `import ${module}`]).then(
        () => true,
        () => false,
      );
    if (existsSync(PYTHON) && (await imports())) return PYTHON;
    try {
      if (!existsSync(PYTHON)) await run("python3", ["-m", "venv", VENV], { timeout: 120_000 });
      await run(PYTHON, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", REQUIREMENTS], { timeout: 300_000 });
    } catch (error) {
      const detail = error instanceof Error ? error.message.split("\n").slice(0, 3).join(" ") : String(error);
      throw new Error(
        `Python's ${module} is unavailable (${detail}). Install it with: python3 -m venv .venv-test && .venv-test/bin/pip install -r requirements-test.txt`,
      );
    }
    if (!(await imports())) throw new Error(`.venv-test has no ${module} after installing requirements-test.txt`);
    return PYTHON;
  })();
  return ready;
}

/**
 * The path of a python that imports `module`, or `undefined` after `skip(reason)` outside CI. Under CI=true
 * an unavailable Python throws, so the test fails with the reason.
 */
export async function pythonWith(module: string, skip: (reason: string) => void): Promise<string | undefined> {
  try {
    return await provision(module);
  } catch (error) {
    if (process.env.CI === "true") throw error;
    const reason = error instanceof Error ? error.message : String(error);
    console.warn(`skipped: ${reason}`);
    skip(reason);
    return undefined;
  }
}

/** Runs `script` with `python`, `input` as JSON on stdin, and answers its stdout parsed as JSON. */
export async function runPythonJson(python: string, script: string, input: unknown): Promise<any> {
  const child = execFile(python, ["-c", script], { timeout: 60_000 });
  const output = new Promise<string>((resolve, reject) => {
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (chunk) => (stdout += chunk));
    child.stderr!.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(stdout) : reject(new Error(`python exited ${code}: ${stderr}`))));
  });
  child.stdin!.end(JSON.stringify(input));
  return JSON.parse(await output);
}
