// `npm start`: serve the three APIs and the worker (or the parts named by `--only`) until SIGTERM/SIGINT.
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig, ConfigError, requireProductionSettings, type ApiName, type Config } from "../runtime/config.ts";
import { createLogger, flushLogs } from "../runtime/logger.ts";
import { startService, type RunningService } from "./service.ts";
import { describeCredentials, shownUrl } from "./banner.ts";
import { CobroStartupError } from "../db/errors.ts";

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
    requireProductionSettings(config);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(
        `cobro: configuration error\n${error.message
          .split("\n")
          .map((line) => `  - ${line}`)
          .join("\n")}\n`,
      );
      process.exit(2);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel, undefined, config.logFormat);

  // Signals are taken from the start: one that arrives while starting stops the service once it is up
  // (never a half-started process leaving the embedded PostgreSQL behind).
  let service: RunningService | undefined;
  let runningFile: string | undefined;
  let stopRequested: string | undefined;
  let stopping = false;
  const shutdown = (signal: string) => {
    if (!service) {
      stopRequested ??= signal;
      return;
    }
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping");
    service.stop().then(
      () => {
        if (runningFile) rmSync(runningFile, { force: true });
        logger.info("stopped");
        void flushLogs(logger).finally(() => process.exit(0));
      },
      (error: unknown) => {
        logger.error({ err: error }, "stop failed");
        void flushLogs(logger).finally(() => process.exit(1));
      },
    );
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGHUP", () => shutdown("SIGHUP"));

  try {
    service = await startService(config, { logger, bootstrapSandbox: true });
  } catch (error) {
    if (error instanceof CobroStartupError) {
      process.stderr.write(`cobro: ${(error as Error).message}\n`);
      process.exit(1);
    }
    throw error;
  }

  const lines = [`Cobro (${config.serviceEnv}) is running`];
  for (const [api, url] of Object.entries(service.urls)) lines.push(`  ${api.padEnd(12)} ${shownUrl(service.publicUrls[api as ApiName], url)}`);
  if (service.urls.admin) lines.push(`  ${"portal".padEnd(12)} ${service.publicUrls.admin}/portal/ (sign in as an admin)`);
  if (config.parts.has("worker")) {
    lines.push("  worker       running");
    const channel = (provider: unknown, name: string) => `${name} ${provider ? "sent" : "simulated (no provider)"}`;
    lines.push(`  payer notifications  ${channel(config.notifications.email, "email")}, ${channel(config.notifications.whatsapp, "chat")}`);
  }
  lines.push(`  ${"metrics".padEnd(12)} ${service.metricsUrl ?? "off (COBRO_METRICS_PORT=0)"}`);
  lines.push(config.databaseUrl ? "  database     DATABASE_URL" : `  database     embedded PostgreSQL in ${config.dataDir}`);
  const notImplemented = Object.entries(service.notImplemented).filter(([, ids]) => ids && ids.length > 0);
  for (const [api, ids] of notImplemented) lines.push(`  not implemented yet (${api}, answer 501): ${ids!.join(", ")}`);
  if (notImplemented.length === 0) lines.push("  operations   every operation of the served contracts is implemented");
  if (service.sandboxCredentials) {
    const file = writeSandboxFile(config.dataDir, { ...apiUrls(service.publicUrls), ...service.sandboxCredentials });
    lines.push("", `A new Sandbox: these credentials are shown once (also in ${file}):`, ...describeCredentials(service.sandboxCredentials));
  }
  process.stdout.write(`${lines.join("\n")}\n`);
  // Tools (npm run sandbox:bootstrap) find this running Cobro's URLs here.
  runningFile = writeRunningFile(config.dataDir, service.publicUrls);
  if (stopRequested) shutdown(stopRequested);
}

function apiUrls(publicUrls: Config["publicUrls"]) {
  return { integrationApiUrl: publicUrls.integration, authApiUrl: publicUrls.auth, adminApiUrl: publicUrls.admin };
}

/** `<dataDir>/running.json`: the pid and public URLs of the Cobro running on this data folder. */
function writeRunningFile(dataDir: string, publicUrls: Config["publicUrls"]): string {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, "running.json");
  writeFileSync(file, `${JSON.stringify({ pid: process.pid, ...apiUrls(publicUrls) }, null, 2)}\n`);
  return file;
}

function writeSandboxFile(dataDir: string, content: object): string {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, "sandbox.json");
  writeFileSync(file, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // also when the file was already there
  return file;
}

await main();
