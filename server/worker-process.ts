// `npm start`'s worker in a child process of its own (server/main.ts with `--only worker`), supervised by the
// process that serves the APIs: its log lines reach the parent's output whole, it is restarted with a backoff
// when it dies, and it is stopped before the parent closes the database it uses.
import { fork, type ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import type { Logger } from "../runtime/logger.ts";

// The child runs what the parent runs: `npm start`'s bundle (this module is then a part of it), or the
// sources when the parent runs them.
const MAIN = import.meta.url.endsWith("/worker-process.ts") ? fileURLToPath(new URL("./main.ts", import.meta.url)) : fileURLToPath(import.meta.url);

/** The variable that tells `server/main.ts` it is the supervised worker (it reports to its parent instead of printing a banner). */
export const SUPERVISED_WORKER_ENV = "COBRO_SUPERVISED_WORKER";

/** What the child sends its parent once its worker runs. */
export interface WorkerReady {
  type: "ready";
  metricsUrl?: string;
}

export interface WorkerProcessOptions {
  /** The child's environment (the parent's, with the database's connection string and its own metrics port). */
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Where the child's standard output goes, in whole lines (the parent's log output). */
  writeLines: (lines: string) => void;
  /** Called once when the worker keeps dying (a crash loop): the service stops. */
  onGiveUp: (reason: string) => void;
  /** Restart delays, doubled from `firstDelayMs` up to `maxDelayMs` (tests shorten them). */
  firstDelayMs?: number;
  maxDelayMs?: number;
  /** This many exits in a row, each sooner than `healthyAfterMs` after its start, and the parent gives up. */
  maxQuickExits?: number;
  healthyAfterMs?: number;
}

export interface WorkerProcess {
  /** The running child's pid (undefined between a crash and its restart). */
  pid(): number | undefined;
  metricsUrl(): string | undefined;
  /** Asks the worker to stop (SIGTERM: it finishes its jobs) and waits for it to exit; no restart after. */
  stop(): Promise<void>;
  /** Ends it now (SIGKILL), for a second Ctrl-C. */
  kill(): void;
}

/**
 * Starts the worker's child process and resolves once it runs; rejects if the first start fails (its
 * own error lines are already on the parent's stderr).
 */
export async function startWorkerProcess(options: WorkerProcessOptions): Promise<WorkerProcess> {
  const { logger } = options;
  const firstDelayMs = options.firstDelayMs ?? 1000;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const maxQuickExits = options.maxQuickExits ?? 5;
  const healthyAfterMs = options.healthyAfterMs ?? 60_000;

  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let metricsUrl: string | undefined;
  let stopping = false;
  let quickExits = 0;
  let restartTimer: NodeJS.Timeout | undefined;

  const spawnOnce = (): Promise<void> =>
    new Promise((resolve, reject) => {
      const startedAt = Date.now();
      let ready = false;
      const current = fork(MAIN, ["--only", "worker"], {
        env: { ...options.env, [SUPERVISED_WORKER_ENV]: "1" },
        stdio: ["ignore", "pipe", "pipe", "ipc"],
      });
      child = current;
      forwardLines(current.stdout!, options.writeLines);
      forwardLines(current.stderr!, (lines) => void process.stderr.write(lines));
      current.on("message", (message: WorkerReady) => {
        if (message?.type !== "ready") return;
        ready = true;
        metricsUrl = message.metricsUrl;
        resolve();
      });
      exited = new Promise((done) =>
        current.once("close", (code: number | null, signal: NodeJS.Signals | null) => {
          child = undefined;
          done();
          if (!ready) {
            reject(new Error(`the worker process exited while starting (${signal ?? `code ${code}`})`));
            return;
          }
          if (stopping) return;
          quickExits = Date.now() - startedAt < healthyAfterMs ? quickExits + 1 : 1;
          if (quickExits >= maxQuickExits) {
            logger.fatal({ code, signal, exits: quickExits }, "the worker process keeps exiting: stopping Cobro");
            options.onGiveUp(`the worker process exited ${quickExits} times in a row`);
            return;
          }
          const delayMs = Math.min(maxDelayMs, firstDelayMs * 2 ** (quickExits - 1));
          logger.error({ code, signal, restartInMs: delayMs }, "the worker process exited: restarting it");
          restartTimer = setTimeout(() => {
            restartTimer = undefined;
            if (stopping) return;
            spawnOnce().then(
              () => logger.info({ workerPid: child?.pid }, "the worker process restarted"),
              // A worker that ran before and now cannot start (its settings or the database changed) will not start
              // on a later try either: the service stops rather than retrying for ever.
              (error: unknown) => {
                if (stopping) return; // stopped while it was starting again
                logger.fatal({ err: error }, "the worker process does not start again: stopping Cobro");
                options.onGiveUp("the worker process does not start again");
              },
            );
          }, delayMs);
        }),
      );
    });

  await spawnOnce();
  return {
    pid: () => child?.pid,
    metricsUrl: () => metricsUrl,
    async stop() {
      stopping = true;
      clearTimeout(restartTimer);
      child?.kill("SIGTERM");
      await exited;
    },
    kill() {
      stopping = true;
      clearTimeout(restartTimer);
      child?.kill("SIGKILL");
    },
  };
}

/**
 * Copies a child's output to `to` in whole lines (a chunk's text up to its last newline in one write), so
 * that two processes' lines never interleave mid-line; what is left when the stream ends goes too.
 */
export function forwardLines(from: Readable, to: (lines: string) => void): void {
  let pending = "";
  from.setEncoding("utf8");
  from.on("data", (chunk: string) => {
    const end = chunk.lastIndexOf("\n");
    if (end === -1) {
      pending += chunk;
      return;
    }
    to(pending + chunk.slice(0, end + 1));
    pending = chunk.slice(end + 1);
  });
  from.on("end", () => {
    if (pending) to(`${pending}\n`);
    pending = "";
  });
}
