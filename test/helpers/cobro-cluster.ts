// Cobro as separate processes over one PostgreSQL that the test may stop and start: an embedded server of
// the test's own (a fixed port, so it comes back where the processes expect it), or a server the test runs
// itself (`databaseUrl`, e.g. the Patroni cluster of scripts/cluster.ts), API processes and worker
// processes (`npm start`'s bundle with `--only …`) that can be killed (SIGKILL) and started again.
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { openDatabase, type DatabaseHandle } from "../../db/connect.ts";
import { startEmbeddedPostgres, type EmbeddedPostgresServer } from "../../db/embedded-postgres.ts";
import { prepareQueue } from "../../db/job-queue.ts";
import { migrateToLatest } from "../../db/migrate.ts";
import { freePorts } from "../../scripts/free-ports.ts";
import { servedUrls, startCobro, waitForOutput, type StartedCobro } from "../../scripts/cobro-process.ts";
import { bearerCaller, postJson, read, type ApiCall } from "./service.ts";
import { createSandboxSet, type SandboxCredentials } from "../../domain/sandbox/sandbox-bootstrap.ts";

/** A fresh Sandbox integration with its linked merchant, and calls to the cluster's first API process as each. */
export interface ClusterIntegration {
  sandbox: SandboxCredentials;
  integrationId: string;
  adminToken: string;
  merchantToken(): string;
  /** New test tokens for the merchant (after a Sandbox clock move expired them). */
  renewMerchantToken(): Promise<void>;
  adminCall: ApiCall;
  merchantCall: ApiCall;
}

export interface CobroCluster {
  /** The test's own connection (a small pool) to the database the processes share. */
  database: DatabaseHandle;
  /** The URLs of the API process (one set of ports, reused when it is started again). */
  integrationUrl: string;
  authUrl: string;
  adminUrl: string;
  /** Starts an API process (integration, auth and admin) on the cluster's ports; waits until it serves. */
  startApi(extraEnv?: Record<string, string>): Promise<StartedCobro>;
  /** Another API process on ports of its own (its URLs are read from what it prints). */
  startExtraApi(extraEnv?: Record<string, string>): Promise<{ started: StartedCobro; integrationUrl: string; adminUrl: string }>;
  integration(): Promise<ClusterIntegration>;
  /** Starts a worker process; waits until it runs. */
  startWorker(extraEnv?: Record<string, string>): Promise<StartedCobro>;
  /** SIGKILL: no shutdown, no cleanup, as a lost machine. */
  kill(started: StartedCobro): Promise<void>;
  /** Stops PostgreSQL (fast shutdown: every session is ended). */
  stopPostgres(): Promise<void>;
  startPostgres(): Promise<void>;
  /** The lines any process started here printed (running or not) that contain `text`: an error id's log line. */
  logLines(text: string): string[];
  close(): Promise<void>;
}

/** Heartbeat and staleness short enough for a test: a dead worker's jobs run again within about 4 s. */
export const FAST_HEARTBEAT_ENV = { COBRO_WORKER_HEARTBEAT_MS: "500", COBRO_WORKER_STALE_AFTER_MS: "3000" };

/**
 * `dataDir`: the processes' COBRO_DATA_DIR (with its sealed-secrets key), kept at `close()`, for a test that
 * starts Cobro again on the same database (a restored one); a new temporary folder, removed at `close()`, otherwise.
 */
export async function startCobroCluster(env: Record<string, string> = {}, options: { databaseUrl?: string; dataDir?: string } = {}): Promise<CobroCluster> {
  // On an external database the folder holds only the processes' key file, no PostgreSQL whose lock would
  // keep another run's sweep of stale embedded folders (test/global-setup.ts) from removing it mid-test.
  const folderPrefix = options.databaseUrl === undefined ? "cobro-embedded-test-" : "cobro-cluster-data-";
  const dataDir = options.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), folderPrefix)));
  const [postgresPort, integrationPort, authPort, adminPort] = await freePorts(4);
  let postgres: EmbeddedPostgresServer | undefined =
    options.databaseUrl === undefined ? await startEmbeddedPostgres({ dataDir, port: postgresPort }) : undefined;
  const databaseUrl = options.databaseUrl ?? postgres!.connectionString;
  const database = await openDatabase({ databaseUrl, dataDir, poolSize: 4 });
  await prepareQueue({ pool: database.pool });
  await migrateToLatest(database.db);
  /** Every process started here, running or not (their output stays readable). */
  const everStarted: StartedCobro[] = [];
  const running = () => everStarted.filter(({ child }) => child.exitCode === null && child.signalCode === null);
  const host = "127.0.0.1";
  const urls = { integrationUrl: `http://${host}:${integrationPort}`, authUrl: `http://${host}:${authPort}`, adminUrl: `http://${host}:${adminPort}` };
  const baseEnv = {
    DATABASE_URL: databaseUrl,
    COBRO_DATA_DIR: dataDir,
    COBRO_ALLOW_LOOPBACK_URLS: "true",
    COBRO_INTEGRATION_URL: urls.integrationUrl,
    COBRO_AUTH_URL: urls.authUrl,
    COBRO_ADMIN_URL: urls.adminUrl,
    LOG_FORMAT: "json",
    ...FAST_HEARTBEAT_ENV,
    ...env,
  };
  const start = async (parts: string, extraEnv: Record<string, string>) => {
    const cobro = startCobro({ ...baseEnv, ...extraEnv }, ["--only", parts]);
    everStarted.push(cobro);
    await waitForOutput(cobro, /is running/, 60_000);
    return cobro;
  };
  return {
    database,
    ...urls,
    startApi: (extraEnv = {}) =>
      start("integration,auth,admin", { INTEGRATION_PORT: String(integrationPort), AUTH_PORT: String(authPort), ADMIN_PORT: String(adminPort), ...extraEnv }),
    startExtraApi: async (extraEnv = {}) => {
      const started = await start("integration,auth,admin", { INTEGRATION_PORT: "0", AUTH_PORT: "0", ADMIN_PORT: "0", ...extraEnv });
      // Its public URLs are the cluster's (those the tokens name); the banner adds where this process listens.
      const urls = servedUrls(started.output());
      return { started, integrationUrl: urls.integration!, adminUrl: urls.admin! };
    },
    startWorker: (extraEnv = {}) => start("worker", extraEnv),
    integration: async () => {
      const sandbox = await createSandboxSet(database.db, new Date());
      const login = await read(await postJson(`${urls.authUrl}/integration/admin/login`, sandbox.integrationAdmin));
      if (login.status !== 200) throw new Error(`admin login: ${login.status} ${login.text}`);
      const adminToken: string = login.json.idToken;
      const adminCall = bearerCaller(urls.adminUrl, () => adminToken);
      let merchantToken = "";
      const renewMerchantToken = async () => {
        const tokens = await adminCall("POST", "/my-integration/test-tokens");
        if (tokens.status !== 200) throw new Error(`test tokens: ${tokens.status} ${tokens.text}`);
        merchantToken = tokens.json.idToken;
      };
      await renewMerchantToken();
      const { id: integrationId } = await database.db
        .selectFrom("integration_clients")
        .select("id")
        .where("provider_client_id", "=", sandbox.integration.clientId)
        .executeTakeFirstOrThrow();
      return {
        sandbox,
        integrationId,
        adminToken,
        merchantToken: () => merchantToken,
        renewMerchantToken,
        adminCall,
        merchantCall: bearerCaller(urls.integrationUrl, () => merchantToken),
      };
    },
    kill: async (started) => {
      started.child.kill("SIGKILL");
      await started.exited;
    },
    stopPostgres: async () => {
      if (options.databaseUrl !== undefined) throw new Error("the test does not run this PostgreSQL");
      await postgres?.stop();
      postgres = undefined;
    },
    startPostgres: async () => {
      if (options.databaseUrl !== undefined) throw new Error("the test does not run this PostgreSQL");
      postgres = await startEmbeddedPostgres({ dataDir, port: postgresPort });
    },
    logLines: (text) =>
      everStarted.flatMap((cobro) =>
        cobro
          .output()
          .split("\n")
          .filter((line) => line.includes(text)),
      ),
    close: async () => {
      const stopping = running();
      for (const cobro of stopping) cobro.child.kill("SIGTERM");
      await Promise.all(stopping.map((cobro) => cobro.exited));
      await database.close();
      await postgres?.stop();
      if (options.dataDir === undefined) await rm(dataDir, { recursive: true, force: true });
    },
  };
}
