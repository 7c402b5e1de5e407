// The Python SDK's generated clients: generated/openapi/{api}.yaml → sdks/python/cobro_sdk/generated/{api}/
// with openapi-generator's `python` generator (pydantic v2, urllib3), from the same pinned JAR as the
// TypeScript SDK (scripts/generate-sdk.ts fetches it from Maven Central with mvn; openapitools.json pins
// it). Also writes cobro_sdk/generated/__init__.py with the contract's `info.version`, which
// sdks/python/pyproject.toml reads as the package's version. Called by scripts/generate.ts (`npm run
// generate`, and `--check`, which generates into a scratch folder and compares).
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureGeneratorJar, runGeneratorBatch } from "./generate-sdk.ts";
import type { ApiName } from "./normalize-openapi.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The generated package inside the Python SDK (committed, so that its users need no Java). */
export const PYTHON_SDK_GENERATED_DIR = join(root, "sdks", "python", "cobro_sdk", "generated");

/** The Python package of each API's client: `cobro_sdk.generated.integration`, … */
const PACKAGE_PREFIX = "cobro_sdk.generated";

/**
 * Options of the `python` generator (`java -jar … config-help -g python`):
 * - `packageName`: a subpackage of cobro_sdk, so that the hand-written helpers and the clients ship as one
 *   distribution, and the three APIs (whose model names overlap) stay apart.
 * - `packageVersion`: the contract's version, as the SDK's.
 * - `hideGenerationTimestamp`: the output depends on the input only, so `generate:check` can compare it.
 */
function generatorOptions(api: ApiName, version: string): Record<string, string | boolean> {
  return { packageName: `${PACKAGE_PREFIX}.${api}`, packageVersion: version, projectName: "cobro-sdk", hideGenerationTimestamp: true };
}

/** Only the package's sources: no docs, no generated tests (the SDK's own tests are in sdks/python/tests). */
const GLOBAL_PROPERTIES = { skipFormModel: "false", apiDocs: "false", modelDocs: "false", apiTests: "false", modelTests: "false" };

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function versionOf(documents: Record<ApiName, Json>): string {
  const versions = new Set(Object.values(documents).map((document) => ((document as { info?: { version?: string } }).info?.version ?? "").trim()));
  if (versions.size !== 1) throw new Error(`the three OpenAPI documents must share one info.version, found: ${[...versions].join(", ")}`);
  const [version] = versions;
  if (!version) throw new Error("the OpenAPI documents have no info.version");
  return version;
}

/** Generates one `python` client per API into `outDir/{api}/` (outDir is replaced). */
export function generatePythonSdkInto(outDir: string, documents: Record<ApiName, Json>): void {
  ensureGeneratorJar();
  const version = versionOf(documents);
  const scratch = mkdtempSync(join(tmpdir(), "cobro-sdk-python-"));
  try {
    const configs: string[] = [];
    for (const [api, document] of Object.entries(documents) as [ApiName, Json][]) {
      const input = join(scratch, `${api}.json`);
      writeFileSync(input, JSON.stringify(document));
      const config = join(scratch, `${api}.config.json`);
      writeFileSync(
        config,
        JSON.stringify({
          generatorName: "python",
          inputSpec: input,
          outputDir: join(scratch, "out", api),
          globalProperties: GLOBAL_PROPERTIES,
          additionalProperties: generatorOptions(api, version),
        }),
      );
      configs.push(config);
    }
    runGeneratorBatch(configs, "the Python SDK");
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(outDir, { recursive: true });
    for (const api of Object.keys(documents)) {
      // The generator writes a whole project (setup.py, tox.ini, CI files…); only the package is kept:
      // sdks/python/pyproject.toml is the one project.
      const generated = join(scratch, "out", api, ...PACKAGE_PREFIX.split("."), api);
      if (!existsSync(join(generated, "__init__.py"))) throw new Error(`openapi-generator wrote no package for ${api}`);
      removeCaches(generated);
      renameSync(generated, join(outDir, api));
    }
    writeFileSync(join(outDir, "__init__.py"), generatedInit(version));
    writeFileSync(join(outDir, "README.md"), generatedReadme(JSON.parse(readFileSync(join(root, "openapitools.json"), "utf8"))["generator-cli"].version));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function removeCaches(dir: string): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (entry.name === "__pycache__") rmSync(join(dir, entry.name), { recursive: true, force: true });
      else removeCaches(join(dir, entry.name));
    }
  }
}

function generatedInit(version: string): string {
  return [
    "# Generated by `npm run generate` from generated/openapi/. Do not edit.",
    '"""The generated clients of the three APIs: cobro_sdk.generated.integration, .auth and .admin."""',
    "",
    "# The contract's info.version: the SDK's version (pyproject.toml reads it).",
    `__version__ = ${JSON.stringify(version)}`,
    "",
  ].join("\n");
}

function generatedReadme(generatorVersion: string): string {
  return [
    "# Generated clients",
    "",
    `Written by \`npm run generate\` (openapi-generator ${generatorVersion}, \`python\`) from`,
    "`generated/openapi/{integration,auth,admin}.yaml`. Do not edit: change the contract in `spec/` and",
    "regenerate. `scripts/generate-sdk-python.ts` says how.",
    "",
  ].join("\n");
}
