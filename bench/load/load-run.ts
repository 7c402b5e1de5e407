// One load measurement with autocannon on loopback: a short warm-up, then the measured run. The server
// under load is always another process; this one only drives it. Figures are successful answers a
// second and latency percentiles of every answer.
import autocannon, { type AutocannonOptions, type AutocannonResult } from "autocannon";
import { cpuSeconds, postgresCpuSeconds } from "../fixtures/bench-processes.ts";
import { statementFigures, type StatementCounter, type StatementFigures } from "../fixtures/statement-counts.ts";

export interface LoadFigures {
  /** 2xx answers per second over the measured run. */
  rps: number;
  p50: number;
  p99: number;
  /** Answers other than 2xx, plus connection errors and timeouts. */
  failures: number;
  statuses: string;
  /** With a server's pid: milliseconds of CPU per 2xx answer over the measured run, the server's and PostgreSQL's. */
  cpu?: { serverMs: number; postgresMs: number };
  /** With a CPU sampler of several parts: milliseconds of CPU per 2xx answer of each part over the measured run. */
  cpuByPart?: Record<string, number>;
  /** With a statement counter: the serving role's statements per 2xx answer, or why they cannot be counted. */
  statements?: StatementFigures | { unavailable: string };
}

export interface LoadSettings {
  seconds: number;
  warmupSeconds: number;
}

export function loadSettingsFromEnv(env: NodeJS.ProcessEnv): LoadSettings {
  return { seconds: Number(env.BENCH_SECONDS ?? 8), warmupSeconds: Number(env.BENCH_WARMUP_SECONDS ?? 2) };
}

/**
 * A warm-up, then the measured run. Given `serverPid`, also the CPU per answer of that process and of
 * PostgreSQL over the measured run: CPU time holds on a noisy machine where rates do not. Given
 * `statements`, also the statements per answer the serving role ran over it. Given `otherParts` (each
 * other part's CPU seconds so far: the worker, the bench's own process), also theirs (`cpuByPart`).
 */
export async function measureLoad(
  settings: LoadSettings,
  options: Omit<AutocannonOptions, "duration">,
  serverPid?: number,
  statements?: StatementCounter,
  otherParts?: () => Record<string, number>,
): Promise<LoadFigures> {
  if (settings.warmupSeconds > 0) await autocannon({ ...options, duration: settings.warmupSeconds });
  const counting = statements !== undefined && statements.unavailable === undefined;
  // The warm-up's last requests still run on the server when autocannon returns: let them end first.
  if (counting) await settle();
  const statementsBefore = counting ? await statements.snapshot() : undefined;
  const before = serverPid === undefined ? undefined : { server: cpuSeconds(serverPid), postgres: postgresCpuSeconds() };
  const othersBefore = otherParts?.();
  const result = await autocannon({ ...options, duration: settings.seconds });
  const cpuAfter = serverPid === undefined ? undefined : { server: cpuSeconds(serverPid), postgres: postgresCpuSeconds() };
  const othersAfter = otherParts?.();
  const figures: LoadFigures = figuresOf(result);
  if (othersBefore && othersAfter && result["2xx"] > 0) figures.cpuByPart = cpuPerAnswer(othersBefore, othersAfter, result["2xx"]);
  if (result["2xx"] === 0) return figures;
  if (statements?.unavailable !== undefined) figures.statements = { unavailable: statements.unavailable };
  else if (statementsBefore !== undefined) {
    await settle();
    // The requests in flight when the run stopped were not answered to autocannon but the server ran them.
    const unanswered = Math.max(0, result.requests.sent - result["2xx"] - result.non2xx - result.errors);
    figures.statements = statementFigures(statementsBefore, await statements!.snapshot(), result["2xx"] + unanswered);
  }
  if (before === undefined || cpuAfter === undefined) return figures;
  const perAnswerMs = (seconds: number) => (seconds * 1000) / result["2xx"];
  return {
    ...figures,
    cpu: { serverMs: perAnswerMs(cpuAfter.server - before.server), postgresMs: perAnswerMs(cpuAfter.postgres - before.postgres) },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 1000));

/**
 * Several autocannon runs at once (one per server process), added up: rates summed, the worst percentiles.
 * Given `cpuSeconds` (each part's CPU seconds so far, e.g. the API processes, PostgreSQL), also each
 * part's CPU per answer over the measured run.
 */
export async function measureLoadTogether(
  settings: LoadSettings,
  runs: Array<Omit<AutocannonOptions, "duration">>,
  cpuSeconds?: () => Record<string, number>,
): Promise<LoadFigures> {
  if (settings.warmupSeconds > 0) await Promise.all(runs.map((options) => autocannon({ ...options, duration: settings.warmupSeconds })));
  const before = cpuSeconds?.();
  const measured = await Promise.all(runs.map((options) => autocannon({ ...options, duration: settings.seconds })));
  const after = cpuSeconds?.();
  const answers = measured.reduce((sum, result) => sum + result["2xx"], 0);
  const results = measured.map(figuresOf);
  return {
    ...(before && after && answers > 0 ? { cpuByPart: cpuPerAnswer(before, after, answers) } : {}),
    rps: results.reduce((sum, figures) => sum + figures.rps, 0),
    p50: Math.max(...results.map((figures) => figures.p50)),
    p99: Math.max(...results.map((figures) => figures.p99)),
    failures: results.reduce((sum, figures) => sum + figures.failures, 0),
    statuses: results.map((figures) => figures.statuses).join(" | "),
  };
}

function figuresOf(result: AutocannonResult): LoadFigures {
  const statuses = Object.entries(result.statusCodeStats)
    .map(([status, { count }]) => `${status}×${count}`)
    .join(" ");
  return {
    rps: result["2xx"] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    failures: result.non2xx + result.errors + result.timeouts,
    statuses,
  };
}

/** Milliseconds of CPU per answer of each part, between two readings of its CPU seconds. */
export function cpuPerAnswer(before: Record<string, number>, after: Record<string, number>, answers: number): Record<string, number> {
  return Object.fromEntries(Object.keys(after).map((part) => [part, ((after[part]! - (before[part] ?? 0)) * 1000) / answers]));
}
