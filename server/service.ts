// Starts the parts of Cobro this process serves (any subset of the three APIs and the worker) over one
// database, and stops them in order: stop accepting, finish in-flight requests and jobs, close the
// database (stopping an embedded PostgreSQL cleanly).
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { openDatabase, type DatabaseHandle } from "../db/connect.ts";
import { CobroStartupError, databaseErrorKind } from "../db/errors.ts";
import { migrateToLatest } from "../db/migrate.ts";
import { prepareQueue } from "../db/job-queue.ts";
import { startWorker } from "../jobs/queue.ts";
import { productionAdminApi } from "../domain/going-live/production-admin-api.ts";
import { createTaskList, crontab } from "../jobs/tasks.ts";
import { systemClock, type Clock } from "../domain/clock.ts";
import { TransferBatcher } from "../domain/reconciliation/transfer-batcher.ts";
import { buildApiApp, type ApiAppSettings } from "./api-apps.ts";
import { SERVICE_PARTS, workerProvidersProblem, type ApiName, type Config } from "../runtime/config.ts";
import type { Services } from "../handlers/handler-types.ts";
import type { Logger } from "../runtime/logger.ts";
import { TokenService } from "../domain/sign-in/tokens.ts";
import { SealedValueError } from "../domain/secrets/keyring.ts";
import { installSecretKeyring } from "../domain/secrets/process-keyring.ts";
import { resealColumns } from "../domain/secrets/sealed-columns.ts";
import { openConfiguredKeyring } from "../runtime/secret-key-file.ts";
import { TokenCheckCache } from "../domain/sign-in/token-check-cache.ts";
import { credentialThrottle } from "../domain/sign-in/credential-throttle.ts";
import { forgetOwnAuthChanges, listenForAuthChanges } from "./auth-change-listener.ts";
import { EventLogWatcher } from "../domain/events/event-log-watcher.ts";
import { bootstrapEmptySandbox, type SandboxCredentials } from "../domain/sandbox/sandbox-bootstrap.ts";
import { SandboxTaxRegistry } from "../domain/payer-lookup/sandbox-registry.ts";
import { HttpTaxRegistry } from "../domain/payer-lookup/http-registry.ts";
import { OutboundHttpClient } from "../domain/outbound/http-client.ts";
import { SmtpEmailSender } from "../domain/outbound/smtp-email-sender.ts";
import { WhatsappSender } from "../domain/outbound/whatsapp-sender.ts";
import { simulatedSender } from "../domain/outbound/simulated-sender.ts";
import { HttpBank } from "../domain/outbound/http-bank.ts";
import { sandboxBank } from "../domain/outbound/sandbox-bank.ts";
import type { BankTransfers } from "../domain/outbound/bank-transfers.ts";
import { SandboxMailLog } from "../domain/outbound/sandbox-mail-log.ts";
import type { EmailMessage, NotificationSenders, Sender } from "../domain/outbound/sender.ts";
import { createMetrics, samplePool, type Metrics } from "../runtime/metrics.ts";
import { closeServer, drainServer, listen, listenerUrl, trackAnswers } from "./listening.ts";
import { startMetricsListener, type MetricsListener } from "./metrics-listener.ts";
import { backupSampler } from "../runtime/backup-gauges.ts";
import { sampleDeliveryAndCapGauges, sampleReadiness } from "../runtime/database-gauges.ts";

export interface RunningService {
  /** Where each served API listens. */
  urls: Partial<Record<ApiName, string>>;
  /** Where the process serves its Prometheus metrics (`http://host:port/metrics`), when the listener is on. */
  metricsUrl?: string;
  /** How each API is reached from outside (COBRO_*_URL, or the bound address). */
  publicUrls: Record<ApiName, string>;
  /** Created on the first start of an empty Sandbox (shown once). */
  sandboxCredentials?: SandboxCredentials;
  database: DatabaseHandle;
  notImplemented: Partial<Record<ApiName, string[]>>;
  metrics: Metrics;
  /** What wakes the Admin API's event streams, in a process that serves it. */
  eventLog?: EventLogWatcher;
  /**
   * Stops serving, the first phase of stop(): the event streams end with a hint to reconnect, every API listener
   * stops accepting at once, the requests in flight finish (their answers the last on their connections, cut
   * off after LISTENER_GRACE_MS), and the transfers they left in the batcher commit. The worker, the
   * database and the metrics listener are left running. Safe to call twice.
   */
  stopServing(): Promise<void>;
  /** Stops serving, then the rest in the reverse order of its start: the database, then the metrics listener, last. */
  stop(): Promise<void>;
}

export interface ServiceOptions {
  logger: Logger;
  /** Create the newcomer's accounts when a Sandbox starts on an empty database (npm start does). */
  bootstrapSandbox?: boolean;
  clock?: Clock;
  validateResponses?: boolean;
  /** The process's memory of token checks (a test may hold one to see what it remembers). */
  tokenChecks?: TokenCheckCache;
}

export async function startService(config: Config, options: ServiceOptions): Promise<RunningService> {
  const { logger } = options;
  if (config.parts.has("worker")) refuseWorkerWithoutProviders(config);
  // The ports first, before the database is touched: a taken port is reported at once, and with port 0
  // (tests, tools) the public URLs are known only once bound. Until its handler is in place a listener
  // answers 503 (still starting).
  const handlers = new Map<ApiName, RequestListener>();
  // One registry per process, labelled with the parts it runs in a fixed order (`integration,auth,admin,worker`
  // by default, whatever order --only named them in), served from the start on its own listener.
  const metrics = createMetrics(SERVICE_PARTS.filter((part) => config.parts.has(part)).join(","));
  const { servers, urls, serverStops, metricsListener } = await bindListeners(config, handlers, metrics, logger);
  const metricsUrl = metricsListener?.url;
  // The metrics listener closes last, once the worker has drained: a stopping process is still scraped.
  const stopMetrics = async (): Promise<void> => {
    await metricsListener?.stop();
  };
  // The one outbound client of the process, closed after the APIs and the worker that use it have stopped.
  const outboundHttp = new OutboundHttpClient({ allowLoopback: config.allowLoopbackUrls });
  let database: DatabaseHandle;
  try {
    // Batches' transactions (reconciliation, the delivery dispatcher's claims and outcomes) on connections of
    // their own that keep generic plans: one for each batch committing at once, and the dispatcher's two statements.
    database = await openDatabase({
      ...databaseOptions(config, config.databaseUrl, metrics, logger),
      genericPlanConnections: config.reconcileBatches.maxInFlight + 2,
    });
  } catch (error) {
    await closeAll([stopMetrics, () => outboundHttp.close(), ...serverStops]);
    throw error;
  }
  // Serving stops first (stopServing), then the rest in the reverse order of its start: the worker, the
  // auth-change listeners, the mail, the requests' pool, the outbound client, the database, the metrics listener.
  const stops: Array<() => Promise<void>> = [stopMetrics, () => database.close(), () => outboundHttp.close()];
  let services: Services | undefined;
  const attempt = async (stop: () => Promise<void> | void): Promise<void> => {
    try {
      await stop();
    } catch (error) {
      logger.error({ err: error }, "error while stopping");
    }
  };
  let servingStopped: Promise<void> | undefined;
  const stopServing = (): Promise<void> =>
    (servingStopped ??= (async () => {
      // The drain: readiness answers 503 (isStopping) while everything else is still served, until the load
      // balancer has taken the process out; only then do the listeners close.
      if (config.stopDrainMs > 0 && servers.size > 0) {
        for (const server of servers.values()) drainServer(server);
        await sleep(config.stopDrainMs);
      }
      // An open stream would hold its listener's close: the streams end first.
      await attempt(() => services?.eventLog?.stop());
      await Promise.all(serverStops.map((stop) => attempt(stop)));
      await attempt(() => services?.transfers.whenIdle());
    })());
  const stopAll = async (): Promise<void> => {
    await stopServing();
    for (const stop of stops.reverse()) await attempt(stop);
  };

  const stopSamplingMainPool = watchDatabase(database, metrics);
  try {
    await prepareDatabase(database, config, logger);
    const clock = options.clock ?? systemClock;
    const queries = await openRequestsDatabase(config, servers.size > 0, database, metrics, logger);
    if (queries !== database) {
      stops.push(() => queries.close());
      stopSamplingMainPool(); // the requests' pool is the one to watch
      samplePool(metrics, "main", queries.pool);
    }
    const publicUrls = boundPublicUrls(config, servers, urls);
    const parts = { config, publicUrls, clock, database, queries, servers, outboundHttp, metrics, logger };
    services = await buildServices(parts, options.tokenChecks, stops, () => servingStopped !== undefined);
    const sandboxCredentials = options.bootstrapSandbox && config.serviceEnv === "sandbox" ? await bootstrapEmptySandbox(database.db, clock.now()) : undefined;
    const appSettings = { services, logger, maxBodyBytes: config.maxBodyBytes, validateResponses: options.validateResponses };
    const notImplemented = await startApiApps(servers, handlers, appSettings);
    if (config.parts.has("worker")) await startWorkerPart(parts, stops);
    return {
      urls,
      metricsUrl,
      publicUrls,
      database,
      notImplemented,
      sandboxCredentials,
      metrics,
      eventLog: services.eventLog,
      stopServing,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** What the process's parts are built from, once the database is open and the listeners bound. */
interface ServiceParts {
  config: Config;
  /** How each API is reached from outside, with the ports bound (port 0) filled in. */
  publicUrls: Record<ApiName, string>;
  clock: Clock;
  /** The direct connection: start-up work, LISTEN, the worker. */
  database: DatabaseHandle;
  /** The requests' connection (through the pooler when there is one). */
  queries: DatabaseHandle;
  servers: Map<ApiName, Server>;
  outboundHttp: OutboundHttpClient;
  metrics: Metrics;
  logger: Logger;
}

function databaseOptions(config: Config, databaseUrl: string | undefined, metrics: Metrics, logger: Logger): Parameters<typeof openDatabase>[0] {
  return {
    databaseUrl,
    dataDir: config.dataDir,
    preparedStatements: config.preparedStatements,
    logger,
    onQueryError: (error) => metrics.db.queryErrors.inc({ kind: databaseErrorKind(error) }),
  };
}

/** The pools' gauges and readiness; returns what stops sampling the main pool. */
function watchDatabase(database: DatabaseHandle, metrics: Metrics): () => void {
  const stopSamplingMainPool = samplePool(metrics, "main", database.pool);
  if (database.batchesPool) samplePool(metrics, "batches", database.batchesPool);
  metrics.addSampler("readiness", () => sampleReadiness(database.db, metrics));
  return stopSamplingMainPool;
}

/** The schema brought up to date, and the secrets' keyring installed (sealing what was stored in clear). */
async function prepareDatabase(database: DatabaseHandle, config: Config, logger: Logger): Promise<void> {
  // The queue's schema first: an API-only process enqueues jobs before any worker has started.
  await prepareQueue({ pool: database.pool, logger });
  await migrateToLatest(database.db, { logger });
  let opened: Awaited<ReturnType<typeof openConfiguredKeyring>>;
  try {
    opened = await openConfiguredKeyring(config, database.db);
  } catch (error) {
    if (error instanceof SealedValueError)
      throw new CobroStartupError(`${error.message}: start with the key that sealed them (docs/secrets.md)`, { cause: error });
    throw error;
  }
  const { keyring, inClear } = opened;
  installSecretKeyring(keyring);
  if (!inClear) return;
  // Rows written in clear (before sealing existed, or by a previous version during a rolling deploy).
  const sealedNow = await resealColumns(database.db, keyring, "clear");
  for (const count of sealedNow)
    if (count.resealed > 0) logger.info({ table: count.table, column: count.column, sealed: count.resealed }, "sealed secrets stored in clear");
}

/**
 * The API's queries through the pooler when there is one (transaction pooling: each transaction may run
 * on another server connection, so nothing here relies on session state); the start-up work, the LISTEN
 * connection and the worker keep to the direct connection.
 */
async function openRequestsDatabase(config: Config, servesApis: boolean, database: DatabaseHandle, metrics: Metrics, logger: Logger): Promise<DatabaseHandle> {
  return config.pooledDatabaseUrl !== undefined && servesApis
    ? await openDatabase(databaseOptions(config, config.pooledDatabaseUrl, metrics, logger))
    : database;
}

/** The configured public URLs, with the bound address for an API listening on port 0 whose URL says `:0`. */
function boundPublicUrls(config: Config, servers: Map<ApiName, Server>, urls: Partial<Record<ApiName, string>>): Record<ApiName, string> {
  const publicUrls = { ...config.publicUrls };
  for (const api of servers.keys()) {
    if (config.ports[api] === 0 && publicUrls[api].endsWith(":0")) publicUrls[api] = urls[api]!;
  }
  return publicUrls;
}

/** What the handlers use: tokens, the payer registry, account mail, token checks kept fresh, the event log. */
async function buildServices(
  parts: ServiceParts,
  heldTokenChecks: TokenCheckCache | undefined,
  stops: Array<() => Promise<void>>,
  isStopping: () => boolean,
): Promise<Services> {
  const { config, publicUrls, clock, database, queries, servers, logger } = parts;
  const tokens = new TokenService(queries.db, clock, publicUrls.auth);
  await tokens.init().catch((error: unknown) => {
    if (error instanceof SealedValueError)
      throw new CobroStartupError(`${error.message}: start with the COBRO_SECRET_KEY that sealed it (docs/secrets.md)`, { cause: error });
    throw error;
  });
  const payerRegistry =
    config.serviceEnv === "sandbox"
      ? new SandboxTaxRegistry()
      : config.taxRegistryUrl !== undefined
        ? new HttpTaxRegistry({ url: config.taxRegistryUrl })
        : undefined;
  if (payerRegistry === undefined && config.parts.has("integration"))
    logger.warn("COBRO_TAX_REGISTRY_URL is not set: payer lookups answer 503 PayerLookupProviderUnavailableError");
  const accountMail = config.parts.has("admin") || config.parts.has("auth") ? buildAccountMail(config, logger) : undefined;
  if (accountMail) stops.push(() => accountMail.close());
  const tokenChecks = heldTokenChecks ?? new TokenCheckCache();
  // Only a process serving an API checks tokens (stopped first, requests still finishing read the database).
  if (servers.size > 0) {
    stops.push(await listenForAuthChanges(database.connectionString, tokenChecks, logger));
    stops.push(forgetOwnAuthChanges(queries.pool, tokenChecks));
  }
  // Stopped by the service's stopServing, before the listeners close: an open stream would hold its listener's close.
  const eventLog = servers.has("admin")
    ? new EventLogWatcher(queries.db, {
        intervalMs: config.eventStream.pollMs,
        onError: (error) => logger.warn({ err: error }, "could not look for new events for the event streams: trying again"),
      })
    : undefined;
  const effectiveConfig: Config = { ...config, publicUrls };
  return {
    db: queries.db,
    clock,
    config: effectiveConfig,
    tokens,
    credentialThrottle: credentialThrottle(queries.db, clock, {
      signIn: (who, outcome) => parts.metrics.auth.signIns.inc({ who, outcome }),
      throttled: (scope) => parts.metrics.auth.throttled.inc({ scope }),
    }),
    tokenChecks,
    payerRegistry,
    transfers: new TransferBatcher(queries.batches, clock, config.reconcileBatches, ({ size, waitedMs }) => {
      parts.metrics.money.reconciliationBatchSize.observe(size);
      parts.metrics.money.reconciliationBatchWait.observe(waitedMs / 1000);
    }),
    outboundHttp: parts.outboundHttp,
    accountMail,
    metrics: parts.metrics,
    eventLog,
    isStopping,
  };
}

/** Each served API's app, handed to its listener (which answered 503 until then); returns each API's operations not implemented yet. */
async function startApiApps(
  servers: Map<ApiName, Server>,
  handlers: Map<ApiName, RequestListener>,
  settings: ApiAppSettings,
): Promise<Partial<Record<ApiName, string[]>>> {
  const notImplemented: Partial<Record<ApiName, string[]>> = {};
  for (const api of servers.keys()) {
    const { app, notImplementedOperations } = await buildApiApp(api, settings);
    handlers.set(api, app);
    notImplemented[api] = notImplementedOperations;
  }
  return notImplemented;
}

/** The worker: its notification senders, its task list, and the database-wide gauges it samples. */
async function startWorkerPart(parts: ServiceParts, stops: Array<() => Promise<void>>): Promise<void> {
  const { config, database, clock, metrics, logger } = parts;
  const notificationSenders = buildNotificationSenders(config, logger);
  stops.push(() => closeSenders(notificationSenders));
  const bank = buildBank(config, logger);
  if (bank) stops.push(() => bank.close());
  const taskList = createTaskList({
    db: database.db,
    clock,
    serviceEnv: config.serviceEnv,
    draftLifetimeHours: config.draftLifetimeHours,
    webhookHttp: parts.outboundHttp,
    notificationSendsPerSecond: config.notifications.sendsPerSecond,
    notificationSenders,
    integrationPublicUrl: parts.publicUrls.integration,
    productionAdminApi: config.productionDeployment ? productionAdminApi(config.productionDeployment) : undefined,
    metrics,
    bank,
  });
  const worker = await startWorker({
    connectionString: database.connectionString,
    taskList,
    crontab,
    concurrency: config.workerConcurrency,
    heartbeatIntervalMs: config.workerHeartbeatMs,
    staleWorkerAfterMs: config.workerStaleAfterMs,
    logger,
    metrics,
    ...(config.deliveryDispatcher ? { deliveries: { db: database.batches, clock, http: parts.outboundHttp, metrics, paceMs: config.deliveryPaceMs } } : {}),
  });
  stops.push(() => worker.stop());
  // Database-wide gauges, like the queue's depth: sampled by worker processes only (aggregate with max()).
  metrics.addSampler("delivery-and-cap-gauges", () => sampleDeliveryAndCapGauges(database.db, metrics, clock.now(), config));
  if (config.backups)
    metrics.addSampler(
      "backups",
      backupSampler(database.db, metrics, config.backups, () => systemClock.now()),
    );
}

/** A Production worker without both providers would drop payer notifications, so it does not start, whatever starts it. */
function refuseWorkerWithoutProviders(config: Config): void {
  const problem = workerProvidersProblem(config);
  if (problem) throw new CobroStartupError(problem);
}

/** Each channel's sender, once per process: the configured provider, or (Sandbox only) the simulated one. */
function buildNotificationSenders(config: Config, logger: Logger): NotificationSenders {
  const { email, whatsapp } = config.notifications;
  if (!email || !whatsapp) {
    const simulated = [...(email ? [] : ["email"]), ...(whatsapp ? [] : ["chat"])].join(" and ");
    logger.info(`no ${simulated} provider: those payer notifications are rendered and recorded as simulated, and not sent`);
  }
  return {
    email: email ? new SmtpEmailSender({ smtpUrl: email.smtpUrl, from: email.from }) : simulatedSender,
    whatsapp: whatsapp ? new WhatsappSender(whatsapp) : simulatedSender,
  };
}

/** The bank returns are asked of: the configured API, the Sandbox's own bank, or (Production without one) none. */
function buildBank(config: Config, logger: Logger): BankTransfers | undefined {
  if (config.bankApi) return new HttpBank(config.bankApi);
  if (config.serviceEnv === "sandbox") return sandboxBank;
  logger.warn(
    "no COBRO_BANK_API_URL and COBRO_BANK_API_TOKEN: returns of unmatched money stay requested, and their jobs are retried, until the bank's API is set",
  );
  return undefined;
}

/**
 * The mail to people (the Admin API's welcome emails, the Auth API's password reset links). Production
 * without SMTP still serves both APIs, but the operations that would send a welcome answer 503
 * MailUnavailableError before changing anything (an admin whose temporary password nobody receives would be
 * locked out); a password reset still answers 202, as it does for any email, and logs a warning.
 */
function buildAccountMail(config: Config, logger: Logger): Sender<EmailMessage> | undefined {
  const { email } = config.notifications;
  if (email) return new SmtpEmailSender({ smtpUrl: email.smtpUrl, from: email.from });
  if (config.serviceEnv === "sandbox") {
    logger.info(
      "no COBRO_SMTP_URL: account emails (admins' welcome and password reset, payout link invitations, commission proposals) are written to the log (marked SANDBOX MAIL), not sent",
    );
    return new SandboxMailLog(logger);
  }
  logger.warn(
    "no COBRO_SMTP_URL and COBRO_MAIL_FROM: creating an integration client with its first admin, or a client admin, inviting a payout recipient, proposing a commission and provisioning an active merchant account answer 503 MailUnavailableError, and password reset links are not sent, until they are set",
  );
  return undefined;
}

async function closeSenders(senders: NotificationSenders): Promise<void> {
  await Promise.all([senders.email.close(), senders.whatsapp.close()]);
}

/**
 * Each API's listener on its port, answering 503 until `handlers` has its handler, and the metrics
 * listener when it is on. On a failure none is left open.
 */
async function bindListeners(
  config: Config,
  handlers: Map<ApiName, RequestListener>,
  metrics: Metrics,
  logger: Logger,
): Promise<{
  servers: Map<ApiName, Server>;
  urls: Partial<Record<ApiName, string>>;
  serverStops: Array<() => Promise<void>>;
  metricsListener: MetricsListener | undefined;
}> {
  const urls: Partial<Record<ApiName, string>> = {};
  const servers = new Map<ApiName, Server>();
  const serverStops: Array<() => Promise<void>> = [];
  try {
    for (const api of ["integration", "auth", "admin"] as const) {
      if (!config.parts.has(api)) continue;
      const { headersMs, requestMs, keepAliveMs } = config.httpTimeouts;
      // Slow clients (headers or a body dribbled in) are cut off, checked often enough for the limits to hold.
      const server = createServer(
        {
          headersTimeout: headersMs,
          requestTimeout: requestMs,
          keepAliveTimeout: keepAliveMs,
          connectionsCheckingInterval: Math.min(1000, Math.ceil(headersMs / 4)),
        },
        (req, res) => {
          const handle = handlers.get(api);
          if (handle) handle(req, res);
          else res.writeHead(503, { "retry-after": "1" }).end(); // still starting
        },
      );
      server.maxConnections = config.maxConnectionsPerListener;
      closeSilentConnections(server, headersMs);
      await listen(server, config.ports[api], config.host, `${api} API`, `${api.toUpperCase()}_PORT`);
      trackAnswers(server);
      serverStops.push(() => closeServer(server));
      const { port } = server.address() as AddressInfo;
      urls[api] = listenerUrl(config.host, port);
      servers.set(api, server);
    }
    const metricsListener = config.metrics ? await startMetricsListener(metrics, config.metrics, logger) : undefined;
    return { servers, urls, serverStops, metricsListener };
  } catch (error) {
    await closeAll(serverStops);
    throw error;
  }
}

/** Runs stops in reverse order, ignoring their failures (cleaning up after a failed start). */
async function closeAll(stops: Array<() => Promise<void>>): Promise<void> {
  for (const stop of [...stops].reverse()) await stop().catch(() => undefined);
}

/**
 * Node's headers timeout starts with a request's first byte, so a connection that sends nothing at all
 * would stay open for ever: one that has sent no byte when the headers timeout passes is closed.
 */
function closeSilentConnections(server: Server, headersMs: number): void {
  server.on("connection", (socket: Socket) => {
    const timer = setTimeout(() => {
      if (socket.bytesRead === 0) socket.destroy();
    }, headersMs);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
  });
}
