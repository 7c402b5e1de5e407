// The SDK's generated clients: generated/openapi/{api}.yaml → sdk/src/generated/{api}/ with
// openapi-generator's `typescript-fetch` generator, run through the npm wrapper
// (@openapitools/openapi-generator-cli). The wrapper reads ../openapitools.json, which pins the
// generator's version and points `storageDir` at a folder where this script puts the JAR, fetched from
// Maven Central with `mvn dependency:copy`; so the wrapper never downloads anything itself. Called by
// scripts/generate.ts (`npm run generate`, and `--check`, which generates into a scratch folder).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { ApiName } from "./normalize-openapi.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Where the generated clients live (committed, so that the SDK's users need no Java). */
export const SDK_GENERATED_DIR = join(root, "sdk", "src", "generated");

/** The Maven plugin that copies the JAR; pinned so that `mvn` resolves the same plugin everywhere. */
const DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.8.1";

/**
 * Options of the `typescript-fetch` generator (`java -jar … config-help -g typescript-fetch`):
 * - `supportsES6` and `importFileExtension: ".js"`: ESM that `tsc` with NodeNext resolution builds and Node
 *   imports as is.
 * - `dateLibrary: "string"`: dates stay the strings of the contract (`2026-11-22` is a calendar day in
 *   Argentina; turning it into a `Date` at UTC midnight is the classic off-by-one-day bug).
 * - `hideGenerationTimestamp`: the output depends on the input only, so `generate:check` can compare it.
 */
const GENERATOR_OPTIONS = {
  supportsES6: true,
  importFileExtension: ".js",
  dateLibrary: "string",
  hideGenerationTimestamp: true,
};

/**
 * Global properties: `skipFormModel=false` generates the models of form-encoded bodies too (the Auth API's
 * standard OAuth forms; without it the generated OAuthApi imports models that are not written), and no
 * Markdown docs (the APIs serve their own reference at /docs).
 */
const GLOBAL_PROPERTIES = { skipFormModel: "false", apiDocs: "false", modelDocs: "false", apiTests: "false", modelTests: "false" };

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * The document the generator reads differs from the published one in one way: `anyOf` becomes `oneOf`.
 * typescript-fetch merges the alternatives of an `anyOf` into one interface (duplicate properties that do
 * not compile, and `idToken` read from `id_token` for the token response), while for `oneOf` it writes a
 * union type whose decoder picks the alternative the value matches. Both mean the same to a client that
 * only reads responses and writes one alternative; the published documents keep `anyOf`, which is what
 * the server promises.
 */
export function documentForGenerator(document: Json): Json {
  if (Array.isArray(document)) return document.map(documentForGenerator);
  if (document === null || typeof document !== "object") return document;
  const result: { [key: string]: Json } = {};
  for (const [key, value] of Object.entries(document)) {
    result[key === "anyOf" && !("oneOf" in document) ? "oneOf" : key] = documentForGenerator(value);
  }
  return result;
}

interface OpenApiToolsJson {
  "generator-cli": { version: string; storageDir: string };
}

export function generatorConfig(): { version: string; storageDir: string } {
  const config = JSON.parse(readFileSync(join(root, "openapitools.json"), "utf8")) as OpenApiToolsJson;
  const { version, storageDir } = config["generator-cli"];
  // The wrapper resolves storageDir against its working directory, which is always the project root here.
  return { version, storageDir: resolve(root, storageDir) };
}

/** The generator's JAR, copied from Maven Central by Maven when it is not in storageDir yet. */
export function ensureGeneratorJar(): string {
  const { version, storageDir } = generatorConfig();
  const jar = join(storageDir, `${version}.jar`); // the wrapper's naming
  if (existsSync(jar)) return jar;
  mkdirSync(storageDir, { recursive: true });
  const scratch = mkdtempSync(join(storageDir, "download-"));
  try {
    process.stderr.write(`fetching openapi-generator-cli ${version} from Maven Central with mvn…\n`);
    execFileSync(
      "mvn",
      [
        "-B",
        "-q",
        "--strict-checksums",
        "-Dstyle.color=never",
        `${DEPENDENCY_PLUGIN}:copy`,
        `-Dartifact=org.openapitools:openapi-generator-cli:${version}:jar`,
        `-DoutputDirectory=${scratch}`,
      ],
      { cwd: scratch, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] },
    );
    renameSync(join(scratch, `openapi-generator-cli-${version}.jar`), jar);
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    process.stderr.write(`${e.stdout ?? ""}${e.stderr ?? ""}`);
    throw new Error(`could not fetch the openapi-generator JAR with mvn (Java 17 and Maven are needed to generate the SDK): ${e.message}`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return jar;
}

/** Runs openapi-generator's `batch` on the given config files (through the wrapper, with the pinned JAR). */
export function runGeneratorBatch(configs: string[], what: string): void {
  const wrapper = join(root, "node_modules", "@openapitools", "openapi-generator-cli", "main.js");
  try {
    execFileSync(process.execPath, [wrapper, "batch", "--clean", "--fail-fast", ...configs], {
      cwd: root,
      // PWD: the wrapper looks for openapitools.json there. The search URL "DEFAULT": it never asks
      // Maven Central's search for versions (the version is pinned and the JAR is present).
      env: { ...process.env, PWD: root, OPENAPI_GENERATOR_CLI_SEARCH_URL: "DEFAULT" },
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    process.stderr.write(`${e.stdout ?? ""}${e.stderr ?? ""}`);
    throw new Error(`openapi-generator failed to generate ${what}`);
  }
}

/** Generates one typescript-fetch client per API into `outDir/{api}/` (which is replaced). */
/**
 * Runs openapi-generator's `generatorName` once for the three APIs: each document and its config are
 * written into `scratch`, and each API's client comes out in `scratch/out/{api}/`. The global properties
 * are the same for every SDK.
 */
export function generateClientsIn<D>(
  scratch: string,
  documents: Record<ApiName, D>,
  generatorName: string,
  additionalPropertiesOf: (api: ApiName) => Record<string, unknown>,
  what: string,
  documentToWrite: (document: D) => unknown = (document) => document,
): void {
  const configs: string[] = [];
  for (const [api, document] of Object.entries(documents) as [ApiName, D][]) {
    const input = join(scratch, `${api}.json`);
    writeFileSync(input, JSON.stringify(documentToWrite(document)));
    const config = join(scratch, `${api}.config.json`);
    writeFileSync(
      config,
      JSON.stringify({
        generatorName,
        inputSpec: input,
        outputDir: join(scratch, "out", api),
        globalProperties: GLOBAL_PROPERTIES,
        additionalProperties: additionalPropertiesOf(api),
      }),
    );
    configs.push(config);
  }
  runGeneratorBatch(configs, what);
}

/** The contract's version: the three documents' `info.version`, which must agree (the SDKs' package version). */
export function contractVersion(documents: Record<ApiName, unknown>): string {
  const versions = new Set(Object.values(documents).map((document) => ((document as { info?: { version?: string } }).info?.version ?? "").trim()));
  const [version] = versions;
  if (versions.size !== 1) throw new Error(`the three OpenAPI documents must share one info.version, found: ${[...versions].join(", ")}`);
  if (!version) throw new Error("the OpenAPI documents have no info.version");
  return version;
}

export function generateSdkInto(outDir: string, documents: Record<ApiName, Json>): void {
  ensureGeneratorJar();
  const scratch = mkdtempSync(join(tmpdir(), "cobro-sdk-"));
  try {
    generateClientsIn(scratch, documents, "typescript-fetch", () => GENERATOR_OPTIONS, "the SDK", documentForGenerator);
    rmSync(outDir, { recursive: true, force: true });
    mkdirSync(outDir, { recursive: true });
    for (const api of Object.keys(documents)) {
      const generated = join(scratch, "out", api);
      // The generator's bookkeeping (ignore file, file list, version stamp) is of no use in a folder that is
      // replaced whole on every generation.
      rmSync(join(generated, ".openapi-generator"), { recursive: true, force: true });
      rmSync(join(generated, ".openapi-generator-ignore"), { force: true });
      rmSync(join(generated, "docs"), { recursive: true, force: true });
      renameSync(generated, join(outDir, api));
    }
    writeFileSync(
      join(outDir, "README.md"),
      generatedReadme("`typescript-fetch`", [
        "`generated/openapi/{integration,auth,admin}.yaml`. Do not edit: change the contract in `spec/` and",
        "regenerate. `scripts/generate-sdk.ts` says how.",
      ]),
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The README.md beside a language's generated clients: which openapi-generator wrote them (`generator`, its
 * name and library as the README says it), then `rest`: from which documents, and that they are not edited.
 */
export function generatedReadme(generator: string, rest: string[]): string {
  return ["# Generated clients", "", `Written by \`npm run generate\` (openapi-generator ${generatorConfig().version}, ${generator}) from`, ...rest, ""].join(
    "\n",
  );
}

/**
 * `replaceAll(text, pattern, replacement, what)` for the post-processing of one generator's output (`output`,
 * as the error names it: `java (native)`, `php`): it fails when `pattern` matches nowhere, since a generator
 * upgrade that moved what a step rewrites must stop the generation, not pass it unchanged.
 */
export function replacerFor(output: string): (text: string, pattern: RegExp, replacement: string, what: string) => string {
  return (text, pattern, replacement, what) => {
    if (!text.match(pattern)) throw new Error(`the post-processing of openapi-generator's ${output} output found no ${what}: has that output changed?`);
    return text.replace(pattern, replacement);
  };
}
