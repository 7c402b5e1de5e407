// The PHP SDK's generated clients: generated/openapi/{api}.yaml → sdks/php/generated/{Integration,Auth,Admin}/
// with openapi-generator's `php` generator (Guzzle 7), run like the TypeScript SDK's (scripts/generate-sdk.ts:
// the pinned JAR of openapitools.json, fetched from Maven Central with mvn). Also writes sdks/php/composer.json,
// whose version is the contract's (`info.version`), so that the package is versioned with the contract, and
// finishes the clients (finishClient: date query parameters, typed exceptions thrown by every call).
// Called by scripts/generate.ts (`npm run generate`, and `--check`, which compares both).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ApiName } from "./normalize-openapi.ts";
import { contractVersion, ensureGeneratorJar, generateClientsIn, generatedReadme, type Json, replacerFor } from "./generate-sdk.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const replaceAll = replacerFor("php");

/** The PHP package (hand-written helpers in src/, generated clients in generated/). */
export const PHP_SDK_DIR = join(root, "sdks", "php");

/** What the generator writes inside PHP_SDK_DIR; the rest of the folder is hand-written. */
export const isPhpGeneratedFile = (file: string): boolean => file.startsWith("generated/") || file === "composer.json";

/** The namespace of each API's client: `Cobro\Sdk\Generated\Integration`, … (PSR-4 from generated/{Name}/). */
const NAMESPACE_OF: Record<ApiName, string> = { integration: "Integration", auth: "Auth", admin: "Admin" };

/**
 * Options of the `php` generator (`java -jar … config-help -g php`):
 * - `variableNamingConvention: camelCase`: the models' properties keep the contract's names (`referenceId`),
 *   where the default would make them `reference_id`.
 * - `hideGenerationTimestamp`: the output depends on the input only, so `generate:check` can compare it.
 */
const GENERATOR_OPTIONS = { variableNamingConvention: "camelCase", hideGenerationTimestamp: true, srcBasePath: "lib", composerPackageName: "cobro/sdk" };

/** Generates the three clients into `outDir/generated/` and writes `outDir/composer.json`. */
export function generatePhpSdkInto(outDir: string, documents: Record<ApiName, Json>): void {
  ensureGeneratorJar();
  const version = contractVersion(documents);
  const scratch = mkdtempSync(join(tmpdir(), "cobro-sdk-php-"));
  try {
    generateClientsIn(
      scratch,
      documents,
      "php",
      (api) => ({ ...GENERATOR_OPTIONS, invokerPackage: `Cobro\\Sdk\\Generated\\${NAMESPACE_OF[api]}`, artifactVersion: version }),
      "the PHP SDK",
    );
    const generatedDir = join(outDir, "generated");
    rmSync(generatedDir, { recursive: true, force: true });
    mkdirSync(generatedDir, { recursive: true });
    // Only the sources: the generator's own composer.json, README, CI and lint files describe a package per API,
    // which this one is not.
    for (const api of Object.keys(documents) as ApiName[]) {
      renameSync(join(scratch, "out", api, "lib"), join(generatedDir, NAMESPACE_OF[api]));
      finishClient(join(generatedDir, NAMESPACE_OF[api]), NAMESPACE_OF[api], documents[api]);
    }
    writeFileSync(
      join(generatedDir, "README.md"),
      generatedReadme("`php`", [
        "`generated/openapi/{integration,auth,admin}.yaml`, one namespace per API (`Cobro\\Sdk\\Generated\\Integration`, `\\Auth`,",
        "`\\Admin`). Do not edit: change the contract in `spec/` and regenerate. `scripts/generate-sdk-php.ts` says how.",
      ]),
    );
    writeFileSync(join(outDir, "composer.json"), `${JSON.stringify(composerJson(version), null, 2)}\n`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The query parameters with a date or date-time format, by operationId: name → format. */
function dateQueryParameters(document: Json): Map<string, Map<string, "date" | "date-time">> {
  const doc = document as { paths?: Record<string, Record<string, Json>>; components?: { parameters?: Record<string, Json> } };
  const byOperation = new Map<string, Map<string, "date" | "date-time">>();
  for (const pathItem of Object.values(doc.paths ?? {})) {
    for (const operation of Object.values(pathItem) as { operationId?: string; parameters?: Json[] }[]) {
      if (typeof operation !== "object" || operation === null || !operation.operationId) continue;
      for (let parameter of operation.parameters ?? []) {
        const ref = (parameter as { $ref?: string }).$ref;
        if (ref) parameter = doc.components?.parameters?.[ref.split("/").at(-1)!] ?? null;
        const { in: where, name, schema } = (parameter ?? {}) as { in?: string; name?: string; schema?: { format?: string } };
        if (where !== "query" || !name || (schema?.format !== "date" && schema?.format !== "date-time")) continue;
        const formats = byOperation.get(operation.operationId) ?? new Map();
        formats.set(name, schema.format);
        byOperation.set(operation.operationId, formats);
      }
    }
  }
  return byOperation;
}

/**
 * Two changes to what the `php` generator writes, so that a call does what its docblock says:
 * - A query parameter of the contract's `date` or `date-time` format is documented `\DateTime`, but the
 *   generated request passed it on as a `string` and PHP failed to make a string of a DateTime ("Object of
 *   class DateTime could not be converted to string"). Each such parameter now tells ObjectSerializer its
 *   format, which sends a `\DateTimeInterface` as the calendar day (`Y-m-d`) or the instant (ATOM), and a
 *   string as it is.
 * - A non-2xx answer (or none) was thrown as the generated ApiException, and only
 *   `CobroApiException::wrap()` turned it into the typed exception of its status. Each call now throws that
 *   typed exception itself (`NotFoundException`, `ConflictException`, …, `NoAnswerException`; the
 *   ApiException is its previous), so `wrap()` has nothing left to do but still works.
 */
function finishClient(dir: string, namespace: string, document: Json): void {
  const serializerFile = join(dir, "ObjectSerializer.php");
  writeFileSync(
    serializerFile,
    replaceAll(
      readFileSync(serializerFile, "utf8"),
      /if \(\$openApiType === "\\\\DateTime" && \$value instanceof \\DateTime\) \{\n(\s+)return \["\{\$paramName\}" => \$value->format\(self::\$dateTimeFormat\)\];/,
      "if ($value instanceof \\DateTimeInterface) {\n$1return [\"{$paramName}\" => $value->format($openApiType === 'date' ? 'Y-m-d' : self::$dateTimeFormat)];",
      "DateTime case in ObjectSerializer::toQueryValue",
    ),
  );
  const dates = dateQueryParameters(document);
  const typed = "\\Cobro\\Sdk\\Exception\\CobroApiException";
  for (const file of readdirSync(join(dir, "Api"))) {
    const path = join(dir, "Api", file);
    let text = readFileSync(path, "utf8");
    // Every path of a synchronous call ends in the `catch (ApiException $e)` that rethrows it.
    text = replaceAll(text, /throw \$e;/g, `throw ${typed}::fromApiException($e);`, "rethrown ApiException");
    // An asynchronous call's rejection.
    text = replaceAll(
      text,
      /(function \(\$exception\) \{\n\s+\$response = \$exception->getResponse\(\);\n\s+\$statusCode = \$response->getStatusCode\(\);\n\s+)throw new ApiException\(([\s\S]*?)\n(\s+)\);/g,
      `$1throw ${typed}::fromApiException(new ApiException($2\n$3));`,
      "asynchronous rejection",
    );
    text = replaceAll(
      text,
      new RegExp(`@throws \\\\Cobro\\\\Sdk\\\\Generated\\\\${namespace}\\\\ApiException on non-2xx response`, "g"),
      "@throws \\Cobro\\Sdk\\Exception\\CobroApiException on a non-2xx answer or none (the subclass of its status)",
      "@throws ApiException",
    );
    for (const [operationId, formats] of dates) {
      const start = text.indexOf(`public function ${operationId}Request(`);
      if (start < 0) continue;
      const end = text.indexOf("\n    public function ", start + 1);
      let body = text.slice(start, end < 0 ? undefined : end);
      for (const [name, format] of formats) {
        body = replaceAll(
          body,
          new RegExp(`('${name}', // param base name\\n\\s+)'string'`),
          `$1'${format === "date" ? "date" : "\\\\DateTime"}'`,
          `query parameter ${name} of ${operationId}`,
        );
      }
      text = text.slice(0, start) + body + (end < 0 ? "" : text.slice(end));
      for (const name of formats.keys())
        text = text.replace(new RegExp(`@param  \\\\DateTime\\|null \\$${name} `, "g"), `@param  \\DateTimeInterface|string|null $${name} `);
    }
    writeFileSync(path, text);
  }
}

/** The package's manifest, for Packagist: the generated clients need Guzzle 7 and PSR-7; the helpers, the JSON and hash extensions. */
function composerJson(version: string) {
  return {
    name: "cobro/sdk",
    description:
      "PHP SDK for Cobro's Integration, Auth and Admin APIs: generated Guzzle clients, OAuth with PKCE, webhook verification, retry helpers and typed errors.",
    type: "library",
    license: "proprietary",
    version,
    require: {
      php: ">=8.1",
      "ext-curl": "*",
      "ext-json": "*",
      "ext-mbstring": "*",
      "guzzlehttp/guzzle": "^7.3",
      "guzzlehttp/psr7": "^1.7 || ^2.0",
      "psr/http-message": "^1.1 || ^2.0",
    },
    "require-dev": { "phpunit/phpunit": "^9.6" },
    autoload: {
      "psr-4": {
        "Cobro\\Sdk\\": "src/",
        "Cobro\\Sdk\\Generated\\Integration\\": "generated/Integration/",
        "Cobro\\Sdk\\Generated\\Auth\\": "generated/Auth/",
        "Cobro\\Sdk\\Generated\\Admin\\": "generated/Admin/",
      },
    },
    "autoload-dev": { "psr-4": { "Cobro\\Sdk\\Tests\\": "tests/" } },
  };
}
