// The Pythons of the tests' virtual environments (at the repository root): .venv-test, with
// requirements-test.txt installed, for tests that run receivers' libraries in Python; and .venv-sdk-python,
// with the Python SDK (sdks/python, installed from a copy of its folder as a user installs it, so that the
// tests run the package that would be published) and its test requirements. CI creates .venv-test before
// the tests (.ci/run); elsewhere, and for .venv-sdk-python always, they are created here on first use (needs
// python3 with venv, and PyPI). A Python that cannot be had is a failure under CI=true (the test must not
// pass by skipping), and a skip with the reason elsewhere.
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { toolMissing } from "./missing-tool.ts";

const run = promisify(execFile);
const root = fileURLToPath(new URL("../../", import.meta.url));

interface Venv {
  dir: string;
  /** Installs into the venv, given its python. */
  install: (python: string) => Promise<void>;
  /** Whether to install even when `module` imports already (the SDK: always its current sources). */
  alwaysInstall: boolean;
  /** What to tell a developer when it cannot be had. */
  howTo: string;
}

const pip = (python: string, args: string[]) =>
  run(python, ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", ...args], { timeout: 600_000 }).then(() => undefined);

const TEST_VENV: Venv = {
  dir: `${root}.venv-test`,
  install: (python) => pip(python, ["-r", `${root}requirements-test.txt`]),
  alwaysInstall: false,
  howTo: "python3 -m venv .venv-test && .venv-test/bin/pip install -r requirements-test.txt",
};

const SDK_SOURCE = join(root, "sdks", "python");

const SDK_VENV: Venv = {
  dir: `${root}.venv-sdk-python`,
  install: async (python) => {
    // A copy of the package's folder: pip builds in the folder it installs from, and a build/ left in
    // sdks/python would be packaged again with files since removed.
    const copy = mkdtempSync(join(tmpdir(), "cobro-sdk-python-"));
    try {
      cpSync(SDK_SOURCE, copy, {
        recursive: true,
        filter: (path) => !/(^|\/)(build|__pycache__|\.pytest_cache|[^/]*\.egg-info)$/.test(path.slice(SDK_SOURCE.length)),
      });
      await pip(python, [copy, "-r", join(SDK_SOURCE, "requirements-test.txt")]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  },
  alwaysInstall: true,
  howTo: "python3 -m venv .venv-sdk-python && .venv-sdk-python/bin/pip install ./sdks/python -r sdks/python/requirements-test.txt",
};

const ready = new Map<string, Promise<string>>();

/** The venv's python, once `module` imports in it; throws with what to do when it cannot. */
function provision(venv: Venv, module: string): Promise<string> {
  const python = `${venv.dir}/bin/python`;
  const key = `${venv.dir}:${module}`;
  if (!ready.has(key)) {
    ready.set(
      key,
      (async () => {
        const imports = () =>
          run(python, ["-c", `import ${module}`]).then(
            () => true,
            () => false,
          );
        if (!venv.alwaysInstall && existsSync(python) && (await imports())) return python;
        try {
          // Test files run in parallel workers: one creates or installs into a venv at a time.
          await withLock(`${venv.dir}.lock`, async () => {
            if (!existsSync(python)) await run("python3", ["-m", "venv", venv.dir], { timeout: 120_000 });
            await venv.install(python);
          });
        } catch (error) {
          const detail = error instanceof Error ? error.message.split("\n").slice(0, 3).join(" ") : String(error);
          throw new Error(`Python's ${module} is unavailable (${detail}). Install it with: ${venv.howTo}`);
        }
        if (!(await imports())) throw new Error(`${venv.dir} has no ${module} after installing`);
        return python;
      })(),
    );
  }
  return ready.get(key)!;
}

/** Runs `task` while holding an exclusive flock on `lockFile` (held by a `flock` child until the task ends). */
async function withLock<T>(lockFile: string, task: () => Promise<T>): Promise<T> {
  const holder = execFile("flock", [lockFile, "sh", "-c", "echo locked; read _"]);
  await new Promise<void>((resolve, reject) => {
    holder.on("error", reject);
    holder.on("exit", (code) => reject(new Error(`flock exited ${code}`)));
    holder.stdout!.on("data", () => resolve());
  });
  try {
    return await task();
  } finally {
    holder.stdin!.end("\n");
  }
}

async function pythonOf(venv: Venv, module: string, skip: (reason: string) => void): Promise<string | undefined> {
  try {
    return await provision(venv, module);
  } catch (error) {
    toolMissing(error instanceof Error ? error.message : String(error), skip);
    return undefined;
  }
}

/**
 * The path of a python (.venv-test) that imports `module`, or `undefined` after `skip(reason)` outside CI.
 * Under CI=true an unavailable Python throws, so the test fails with the reason.
 */
export function pythonWith(module: string, skip: (reason: string) => void): Promise<string | undefined> {
  return pythonOf(TEST_VENV, module, skip);
}

/** The python of .venv-sdk-python with sdks/python's current sources installed, and pytest; as `pythonWith`. */
export function pythonWithSdk(skip: (reason: string) => void): Promise<string | undefined> {
  return pythonOf(SDK_VENV, "cobro_sdk, pytest", skip);
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
