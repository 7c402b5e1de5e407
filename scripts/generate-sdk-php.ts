// The PHP SDK's generated clients: generated/openapi/{api}.yaml → sdks/php/generated/{Integration,Auth,Admin}/
// with openapi-generator's `php` generator (Guzzle 7), run like the TypeScript SDK's (scripts/generate-sdk.ts:
// the pinned JAR of openapitools.json, fetched from Maven Central with mvn). Also writes sdks/php/composer.json,
// whose version is the contract's (`info.version`), so that the package is versioned with the contract.
// Called by scripts/generate.ts (`npm run generate`, and `--check`, which compares both).
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ApiName } from "./normalize-openapi.ts";
import { contractVersion, ensureGeneratorJar, generateClientsIn, generatorConfig } from "./generate-sdk.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

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
export function generatePhpSdkInto(outDir: string, documents: Record<ApiName, unknown>): void {
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
    for (const api of Object.keys(documents) as ApiName[]) renameSync(join(scratch, "out", api, "lib"), join(generatedDir, NAMESPACE_OF[api]));
    writeFileSync(join(generatedDir, "README.md"), generatedReadme(generatorConfig().version));
    writeFileSync(join(outDir, "composer.json"), `${JSON.stringify(composerJson(version), null, 2)}\n`);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
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

function generatedReadme(generatorVersion: string): string {
  return [
    "# Generated clients",
    "",
    `Written by \`npm run generate\` (openapi-generator ${generatorVersion}, \`php\`) from`,
    "`generated/openapi/{integration,auth,admin}.yaml`, one namespace per API (`Cobro\\Sdk\\Generated\\Integration`, `\\Auth`,",
    "`\\Admin`). Do not edit: change the contract in `spec/` and regenerate. `scripts/generate-sdk-php.ts` says how.",
    "",
  ].join("\n");
}
