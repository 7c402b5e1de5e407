// Sums vitest's JSON reports (one per run: `--reporter=json --outputFile.json=FILE`) into the one plain
// closing line CI ends with: `N passed, N failed` (`, N skipped` when any were skipped). A broken run can
// never read as a clean one; each of these counts as one failure:
// - a report that is missing or unreadable (the run died before writing it);
// - a test file that failed without a failing test (it did not load);
// - a run that ran no test (its global set-up threw, or its filter matched no file: vitest still writes a
//   valid report, with 0 tests);
// - a run whose exit status says it failed while its report shows no failure (vitest exits 1 on an
//   unhandled error that its JSON report leaves out).
// Each report is given as `FILE=STATUS`, the run's exit status beside it (a bare `FILE` trusts the report
// alone). Extra failures found by other steps are passed as `--failed-steps N`. Every failure is named just
// above that line (its file, its title and the first line of its error), so the tail of a CI log alone says
// what failed. Exits 1 when anything failed.
//
//   node scripts/test-summary.ts [--failed-steps N] report.json=0 [report.json=1 ...]
import { readFileSync } from "node:fs";

interface VitestJsonReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: {
    name: string;
    status: string;
    assertionResults: { status: string; fullName?: string; failureMessages?: string[] }[];
    message?: string;
  }[];
}

export interface TestCounts {
  passed: number;
  failed: number;
  skipped: number;
  /** Why each failure was counted: a failing test, a missing report, a file that did not load. */
  notes: string[];
}

export function countReport(path: string, read: (path: string) => string = (file) => readFileSync(file, "utf8")): TestCounts {
  let report: VitestJsonReport;
  try {
    report = JSON.parse(read(path)) as VitestJsonReport;
    if (typeof report.numPassedTests !== "number" || !Array.isArray(report.testResults)) throw new Error("not a vitest JSON report");
  } catch (error) {
    return { passed: 0, failed: 1, skipped: 0, notes: [`${path}: no readable report (${(error as Error).message})`] };
  }
  const unloaded = report.testResults.filter((file) => file.status === "failed" && !file.assertionResults.some((test) => test.status === "failed"));
  const failingTests = report.testResults.flatMap((file) =>
    file.assertionResults
      .filter((test) => test.status === "failed")
      .map((test) => `${path}: ${relativeName(file.name)} > ${test.fullName ?? "(unnamed test)"}${firstLine(test.failureMessages?.[0])}`),
  );
  return {
    passed: report.numPassedTests,
    failed: report.numFailedTests + unloaded.length,
    skipped: report.numPendingTests + report.numTodoTests,
    notes: [...failingTests, ...unloaded.map((file) => `${file.name}: failed without a failing test${firstLine(file.message)}`)],
  };
}

/** ` (first line)` of an error message, or nothing. */
function firstLine(message: string | undefined): string {
  const line = message?.split("\n")[0]?.trim();
  return line ? ` (${line.length > 300 ? `${line.slice(0, 300)}…` : line})` : "";
}

function relativeName(file: string): string {
  const cwd = `${process.cwd()}/`;
  return file.startsWith(cwd) ? file.slice(cwd.length) : file;
}

export function summaryLine(counts: Pick<TestCounts, "passed" | "failed" | "skipped">): string {
  return `${counts.passed} passed, ${counts.failed} failed${counts.skipped > 0 ? `, ${counts.skipped} skipped` : ""}`;
}

/** One test run: its JSON report and, when known, the exit status of the command that wrote it. */
export interface TestRun {
  report: string;
  exitStatus?: number;
}

/** `FILE=STATUS` (or a bare `FILE`) as a run. */
export function parseRun(argument: string): TestRun {
  const match = /^(.*)=(\d+)$/.exec(argument);
  return match ? { report: match[1]!, exitStatus: Number(match[2]) } : { report: argument };
}

/** The runs summed, with one failure more for each run that ran nothing or exited failed with a clean report. */
export function summarize(runs: TestRun[], failedSteps = 0, read?: (path: string) => string): TestCounts {
  const total: TestCounts = { passed: 0, failed: failedSteps, skipped: 0, notes: [] };
  for (const run of runs) {
    const counts = countReport(run.report, read);
    // An unreadable report already counts one failure, so only a readable, empty one lands here.
    if (counts.passed + counts.failed + counts.skipped === 0) {
      counts.failed += 1;
      counts.notes.push(`${run.report}: the run ran no test (its set-up failed, or no file matched)`);
    }
    if (run.exitStatus !== undefined && run.exitStatus !== 0 && counts.failed === 0) {
      counts.failed += 1;
      counts.notes.push(`${run.report}: the run exited ${run.exitStatus} though its report shows no failure (an unhandled error? see its output above)`);
    }
    total.passed += counts.passed;
    total.failed += counts.failed;
    total.skipped += counts.skipped;
    total.notes.push(...counts.notes);
  }
  if (runs.length === 0) {
    total.failed += 1;
    total.notes.push("no test report given");
  }
  return total;
}

function main(argv: string[]): number {
  let failedSteps = 0;
  const runs: TestRun[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--failed-steps") failedSteps = Number(argv[++i] ?? 0);
    else runs.push(parseRun(argv[i]!));
  }
  const total = summarize(runs, failedSteps);
  for (const note of total.notes) process.stdout.write(`note: ${note}\n`);
  process.stdout.write(`${summaryLine(total)}\n`);
  return total.failed > 0 ? 1 : 0;
}

if (import.meta.main) process.exit(main(process.argv.slice(2)));
