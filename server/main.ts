// `npm start`: serve the three APIs and the worker (or the parts named by `--only`) until SIGTERM/SIGINT.
// With no `--only`, the APIs serve in this process and the worker runs in a supervised child process
// (server/worker-process.ts), so each has an event loop, and a core, of its own.
import { chmodSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { loadConfig, ConfigError, requireProductionSettings, type ApiName, type Config } from "../runtime/config.ts";
import { createLogger, flushLogs, logLineWriter, type Logger } from "../runtime/logger.ts";
import { startService, type RunningService } from "./service.ts";
import { describeCredentials, shownUrl } from "./banner.ts";
import { CobroStartupError } from "../db/errors.ts";
import { installationId } from "../domain/sandbox/sandbox-bootstrap.ts";
import { startWorkerProcess, SUPERVISED_WORKER_ENV, type WorkerProcess, type WorkerReady } from "./worker-process.ts";

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  // The worker child of a default `npm start`: its parent orders its stop (SIGTERM, or by going away), and
  // its lines, on the parent's output, say they are the worker's.
  const supervisedWorker = process.env[SUPERVISED_WORKER_ENV] === "1" && process.send !== undefined;
  const rootLogger = createLogger(config.logLevel, undefined, config.logFormat);
  const logger = supervisedWorker ? rootLogger.child({ role: "worker" }) : rootLogger;
  const serviceConfig: Config = config.workerInChildProcess ? { ...config, parts: new Set([...config.parts].filter((part) => part !== "worker")) } : config;
  const running: Running = {};
  const signals = takeSignals(running, logger, supervisedWorker);

  // The service counts as up once the worker child runs too: a signal before then stops everything once it is up.
  let started: RunningService | undefined;
  try {
    started = await startService(serviceConfig, { logger, bootstrapSandbox: !supervisedWorker });
    if (config.workerInChildProcess && !signals.stopRequested()) {
      running.worker = await startWorkerProcess({
        env: workerEnv(config, started),
        logger,
        writeLines: logLineWriter(rootLogger),
        onGiveUp: (reason) => {
          process.exitCode = 1;
          logger.fatal(`cobro: ${reason}; see its lines above`);
          signals.shutdown("worker gave up");
        },
      });
    }
  } catch (error) {
    if (error instanceof CobroStartupError || started) {
      process.stderr.write(`cobro: ${(error as Error).message}\n`);
      await started?.stop();
      process.exit(1);
    }
    throw error;
  }
  running.service = started;
  if (supervisedWorker) {
    process.send!({ type: "ready", metricsUrl: started.metricsUrl } satisfies WorkerReady);
    signals.shutdownIfRequested();
    return;
  }
  const sandboxFile = started.sandboxCredentials
    ? sandboxFileOf(config.dataDir, started.database.embedded ? undefined : await installationId(started.database.db))
    : undefined;
  announce(config, started, running.worker, sandboxFile);
  // Tools (npm run sandbox:bootstrap) find this running Cobro's URLs here.
  running.runningFile = writeRunningFile(config.dataDir, started.publicUrls);
  signals.shutdownIfRequested();
}

/** The configuration, or exit 2 with what is wrong in it. */
function loadConfigOrExit(): Config {
  try {
    const config = loadConfig();
    requireProductionSettings(config);
    return config;
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
}

/** What a stop has to stop, filled in as the process starts. */
interface Running {
  service?: RunningService;
  worker?: WorkerProcess;
  runningFile?: string;
}

/**
 * Signals are taken from the start: one that arrives while starting stops the service once it is up
 * (never a half-started process leaving the embedded PostgreSQL behind).
 */
function takeSignals(running: Running, logger: Logger, supervisedWorker: boolean) {
  let stopRequested: string | undefined;
  let stopping = false;
  const shutdown = (signal: string) => {
    if (!running.service) {
      stopRequested ??= signal;
      return;
    }
    if (stopping) {
      // A second Ctrl-C forces: the worker child ends now, and the embedded PostgreSQL gets its fast shutdown at exit.
      if (supervisedWorker) return;
      logger.warn({ signal }, "stopping now, without waiting");
      running.worker?.kill();
      if (running.runningFile) rmSync(running.runningFile, { force: true });
      void flushLogs(logger).finally(() => process.exit(1));
      return;
    }
    stopping = true;
    logger.info({ signal }, "stopping");
    // The APIs stop accepting at once and finish their requests while the worker child finishes its jobs;
    // the database (the embedded PostgreSQL the child uses too) closes once both are done.
    const stopWorker = running.worker ? running.worker.stop() : Promise.resolve();
    Promise.all([stopWorker, running.service!.stopServing()])
      .then(() => running.service!.stop())
      .then(
        () => {
          if (running.runningFile) rmSync(running.runningFile, { force: true });
          logger.info("stopped");
          void flushLogs(logger).finally(() => process.exit()); // 0, or 1 when the worker gave up
        },
        (error: unknown) => {
          logger.error({ err: error }, "stop failed");
          void flushLogs(logger).finally(() => process.exit(1));
        },
      );
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  // The terminal's Ctrl-C reaches the whole process group: the worker child waits for its parent's SIGTERM.
  process.on("SIGINT", () => (supervisedWorker ? undefined : shutdown("SIGINT")));
  process.on("SIGHUP", () => (supervisedWorker ? undefined : shutdown("SIGHUP")));
  if (supervisedWorker) process.on("disconnect", () => shutdown("parent exited"));
  return {
    shutdown,
    /** The stop asked for while starting, if any. */
    stopRequested: () => stopRequested,
    /** Once up: the stop asked for while starting, now. */
    shutdownIfRequested: () => {
      if (stopRequested) shutdown(stopRequested);
    },
  };
}

/** What runs and where, on stdout; a new Sandbox's credentials also go to `sandboxFile`. */
function announce(config: Config, service: RunningService, worker: WorkerProcess | undefined, sandboxFile: string | undefined): void {
  const lines = [`Cobro (${config.serviceEnv}) is running`];
  for (const [api, url] of Object.entries(service.urls)) lines.push(`  ${api.padEnd(12)} ${shownUrl(service.publicUrls[api as ApiName], url)}`);
  if (service.urls.admin) lines.push(`  ${"portal".padEnd(12)} ${service.publicUrls.admin}/portal/ (sign in as an admin)`);
  if (config.parts.has("worker")) {
    lines.push(worker ? `  worker       running (process ${worker.pid()})` : "  worker       running");
    const channel = (provider: unknown, name: string) => `${name} ${provider ? "sent" : "simulated (no provider)"}`;
    lines.push(`  payer notifications  ${channel(config.notifications.email, "email")}, ${channel(config.notifications.whatsapp, "chat")}`);
  }
  lines.push(
    `  ${"metrics".padEnd(12)} ${service.metricsUrl ?? "off (COBRO_METRICS_PORT=0)"}${worker && service.metricsUrl ? ` (APIs, process ${process.pid})` : ""}`,
  );
  if (worker?.metricsUrl()) lines.push(`  ${"".padEnd(12)} ${worker.metricsUrl()} (worker)`);
  lines.push(config.databaseUrl ? "  database     DATABASE_URL" : `  database     embedded PostgreSQL in ${config.dataDir}`);
  const notImplemented = Object.entries(service.notImplemented).filter(([, ids]) => ids && ids.length > 0);
  for (const [api, ids] of notImplemented) lines.push(`  not implemented yet (${api}, answer 501): ${ids!.join(", ")}`);
  if (notImplemented.length === 0) lines.push("  operations   every operation of the served contracts is implemented");
  if (service.sandboxCredentials && sandboxFile) {
    const file = writeSandboxFile(sandboxFile, { ...apiUrls(service.publicUrls), ...service.sandboxCredentials });
    lines.push("", `A new Sandbox: these credentials are shown once (also in ${file}):`, ...describeCredentials(service.sandboxCredentials));
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}

/**
 * The worker child's environment: this process's, with the database this process opened (the embedded
 * one it owns, or DATABASE_URL), the APIs' public URLs as bound, the log format chosen here (the child's
 * output is a pipe), and the next metrics port.
 */
function workerEnv(config: Config, service: RunningService): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: service.database.connectionString,
    COBRO_INTEGRATION_URL: service.publicUrls.integration,
    COBRO_AUTH_URL: service.publicUrls.auth,
    COBRO_ADMIN_URL: service.publicUrls.admin,
    LOG_FORMAT: config.logFormat,
    // The pretty lines in colour when this process's are (the child's own output is a pipe).
    ...(config.logFormat === "pretty" && process.stdout.isTTY ? { FORCE_COLOR: "1" } : {}),
    COBRO_METRICS_PORT: config.metrics ? String(config.metrics.port + 1) : "0",
  };
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

/**
 * Where a new Sandbox's credentials go: `<dataDir>/sandbox.json` for the embedded database that lives in
 * that folder, `<dataDir>/sandbox.<installation id>.json` for a database of DATABASE_URL (the cluster, say),
 * so that starting on one never overwrites the credentials of the other.
 */
function sandboxFileOf(dataDir: string, externalInstallationId: string | undefined): string {
  return join(dataDir, externalInstallationId === undefined ? "sandbox.json" : `sandbox.${externalInstallationId}.json`);
}

function writeSandboxFile(file: string, content: object): string {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600); // also when the file was already there
  return file;
}

await main();
