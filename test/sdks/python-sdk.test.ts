// The Python SDK's own tests (sdks/python/tests: both webhook signatures valid, forged, altered and stale;
// PKCE and the token calls; the typed exceptions; the retry guidance), run with pytest in .venv-sdk-python,
// where the package is installed from its folder as a user installs it (test/helpers/python-venv.ts).
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { pythonWithSdk } from "../helpers/python-venv.ts";

const sdk = resolve(import.meta.dirname, "../../sdks/python");

function pytest(python: string): Promise<{ code: number | null; output: string }> {
  // The venv's pytest script, not `python -m pytest`: -m would put sdks/python on sys.path and test the
  // sources instead of the installed package. No bytecode or cache written into the sources.
  const child = execFile(join(python, "..", "pytest"), ["-q", "-p", "no:cacheprovider", "-W", "error"], {
    cwd: sdk,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: "1" },
    timeout: 300_000,
  });
  let output = "";
  child.stdout!.on("data", (chunk) => (output += chunk));
  child.stderr!.on("data", (chunk) => (output += chunk));
  return new Promise((done) => child.on("close", (code) => done({ code, output })));
}

describe("sdks/python", () => {
  it("passes its pytest suite against the installed package", async ({ skip }) => {
    const python = await pythonWithSdk(skip);
    if (!python) return;
    const { code, output } = await pytest(python);
    expect(code, output).toBe(0);
    const passed = Number(/(\d+) passed/.exec(output)?.[1] ?? 0);
    // The suite as written: a test file that stops being collected shows here.
    expect(passed, output).toBeGreaterThanOrEqual(55);
    expect(output).not.toMatch(/\d+ (failed|error|skipped)/);
  }, 900_000);

  it("is the package the contract versions: cobro_sdk.__version__ is the OpenAPI info.version", async ({ skip }) => {
    const python = await pythonWithSdk(skip);
    if (!python) return;
    const script = "import cobro_sdk, importlib.metadata as m; print(cobro_sdk.__version__, m.version('cobro-sdk'), cobro_sdk.__file__)";
    const { stdout } = await promisify(execFile)(python, ["-c", script], { cwd: "/" });
    const [moduleVersion, distributionVersion, file] = stdout.trim().split(" ");
    const contract = YAML.parse(readFileSync(resolve(sdk, "../../generated/openapi/integration.yaml"), "utf8")).info.version;
    expect([moduleVersion, distributionVersion]).toEqual([contract, contract]);
    expect(file).toContain("site-packages");
  }, 900_000);
});
