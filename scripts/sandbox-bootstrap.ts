// `npm run sandbox:bootstrap [-- --json]`: create a fresh Sandbox set (platform admin, integration, its admin,
// a linked merchant) in the configured database and print its credentials. With a Cobro running on the
// embedded default, it attaches to that Cobro's PostgreSQL rather than starting another.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig, ConfigError } from "../runtime/config.ts";
import { createLogger } from "../runtime/logger.ts";
import { openDatabase } from "../db/connect.ts";
import { CobroStartupError } from "../db/errors.ts";
import { runningEmbeddedConnectionString } from "../db/embedded-postgres.ts";
import { migrateToLatest } from "../db/migrate.ts";
import { prepareQueue } from "../db/job-queue.ts";
import { createSandboxSet } from "../domain/sandbox/sandbox-bootstrap.ts";

const json = process.argv.includes("--json");

/** The URLs of the Cobro running on this data folder (server/main.ts writes them), if one runs. */
function runningUrls(dataDir: string): { integrationApiUrl: string; authApiUrl: string; adminApiUrl: string } | undefined {
  try {
    const running = JSON.parse(readFileSync(join(dataDir, "running.json"), "utf8")) as {
      pid: number;
      integrationApiUrl: string;
      authApiUrl: string;
      adminApiUrl: string;
    };
    process.kill(running.pid, 0);
    return { integrationApiUrl: running.integrationApiUrl, authApiUrl: running.authApiUrl, adminApiUrl: running.adminApiUrl };
  } catch {
    return undefined;
  }
}
try {
  const config = loadConfig(process.env, []);
  if (config.serviceEnv !== "sandbox") throw new ConfigError(["sandbox:bootstrap runs only with SERVICE_ENV=sandbox"]);
  const logger = createLogger(json ? "silent" : "warn");
  const databaseUrl = config.databaseUrl ?? runningEmbeddedConnectionString(config.dataDir);
  const database = await openDatabase({ databaseUrl, dataDir: config.dataDir, logger });
  try {
    await prepareQueue({ pool: database.pool, logger });
    await migrateToLatest(database.db, { logger });
    const credentials = await createSandboxSet(database.db, new Date());
    const output = {
      ...(runningUrls(config.dataDir) ?? {
        integrationApiUrl: config.publicUrls.integration,
        authApiUrl: config.publicUrls.auth,
        adminApiUrl: config.publicUrls.admin,
      }),
      ...credentials,
    };
    process.stdout.write(json ? `${JSON.stringify(output)}\n` : `${JSON.stringify(output, null, 2)}\n`);
  } finally {
    await database.close();
  }
} catch (error) {
  if (error instanceof ConfigError || error instanceof CobroStartupError) {
    process.stderr.write(`cobro: ${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
