// `npm run platform-api-key:create -- --name <label>`: creates a platform API key in the configured
// database (DATABASE_URL, or the embedded one in COBRO_DATA_DIR) and prints it once; only its hash is
// kept. Run it in the Production deployment and give the key to the Sandbox deployment as
// COBRO_PRODUCTION_API_KEY: with it, approved go-live requests create their integration in Production.
import { parseArgs } from "node:util";
import { loadConfig, ConfigError } from "../runtime/config.ts";
import { CobroStartupError } from "../db/errors.ts";
import { createPlatformApiKey } from "../domain/sign-in/platform-api-keys.ts";
import { fail, withConfiguredDatabase } from "./operator-database.ts";

const USAGE = "usage: npm run platform-api-key:create -- --name <label, e.g. sandbox-go-live>";

let name: string | undefined;
try {
  ({
    values: { name },
  } = parseArgs({ options: { name: { type: "string" } }, strict: true }));
} catch (error) {
  fail(`${(error as Error).message}\n${USAGE}`);
}
name = name?.trim();
if (!name || name.length > 100) fail(`--name must be a label of 1 to 100 characters\n${USAGE}`);

try {
  const config = loadConfig(process.env, []);
  if (config.serviceEnv !== "production")
    process.stderr.write("cobro: note: this deployment is the Sandbox (SERVICE_ENV); platform API keys are used by Production\n");
  const created = await withConfiguredDatabase(config, (db) => createPlatformApiKey(db, name));
  process.stdout.write(
    [
      `platform API key "${name}" created (id ${created.id}).`,
      "Give it to the Sandbox deployment as COBRO_PRODUCTION_API_KEY; it is shown only now:",
      created.key,
      "",
    ].join("\n"),
  );
} catch (error) {
  if (error instanceof ConfigError || error instanceof CobroStartupError) fail(error.message);
  throw error;
}
