// Sums vitest's JSON reports (one per run: `--reporter=json --outputFile.json=FILE`) into the one plain
// closing line CI ends with: `N passed, N failed` (`, N skipped` when any were skipped). A report that is
// missing or unreadable (the run died before writing it), and a test file that failed without a failing
// test (it did not load), each count as one failure, so a broken run can never read as a clean one.
// Extra failures found by other steps are passed as `--failed-steps N`. Every failing test is named just
// above that line (its file, its title and the first line of its error), so the tail of a CI log alone says
// what failed. Exits 1 when anything failed.
//
//   node scripts/test-summary.ts [--failed-steps N] report.json [report.json ...]
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

function main(argv: string[]): number {
  let failedSteps = 0;
  const reports: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === "--failed-steps") failedSteps = Number(argv[++i] ?? 0);
    else reports.push(argv[i]!);
  }
  const total: TestCounts = { passed: 0, failed: failedSteps, skipped: 0, notes: [] };
  for (const path of reports) {
    const counts = countReport(path);
    total.passed += counts.passed;
    total.failed += counts.failed;
    total.skipped += counts.skipped;
    total.notes.push(...counts.notes);
  }
  if (reports.length === 0) total.notes.push("no test report given");
  for (const note of total.notes) process.stdout.write(`note: ${note}\n`);
  const ranNothing = total.passed + total.failed === 0;
  process.stdout.write(`${summaryLine(total)}\n`);
  return total.failed > 0 || ranNothing ? 1 : 0;
}

if (import.meta.main) process.exit(main(process.argv.slice(2)));
