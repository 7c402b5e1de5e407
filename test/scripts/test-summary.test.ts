// The closing line of CI: vitest's JSON reports summed into `N passed, N failed`, where a run that died or
// a file that did not load can never read as clean.
import { describe, expect, it } from "vitest";
import { countReport, parseRun, summarize, summaryLine } from "../../scripts/test-summary.ts";

const report = (overrides: Record<string, unknown> = {}) =>
  JSON.stringify({
    numPassedTests: 10,
    numFailedTests: 0,
    numPendingTests: 0,
    numTodoTests: 0,
    testResults: [{ name: "/repo/test/a.test.ts", status: "passed", assertionResults: [{ status: "passed" }] }],
    ...overrides,
  });

describe("countReport", () => {
  it("reads passed, failed and skipped tests", () => {
    const counts = countReport("r.json", () => report({ numPassedTests: 7, numFailedTests: 2, numPendingTests: 1, numTodoTests: 1 }));
    expect(counts).toEqual({ passed: 7, failed: 2, skipped: 2, notes: [] });
  });

  it("counts a missing or unreadable report as one failure", () => {
    const missing = countReport("gone.json", () => {
      throw new Error("ENOENT");
    });
    expect(missing).toMatchObject({ passed: 0, failed: 1 });
    expect(missing.notes[0]).toContain("gone.json");
    expect(countReport("x.json", () => "{not json")).toMatchObject({ passed: 0, failed: 1 });
    expect(countReport("x.json", () => JSON.stringify({ hello: "world" }))).toMatchObject({ passed: 0, failed: 1 });
  });

  it("counts a test file that failed without a failing test (it did not load) as a failure", () => {
    const counts = countReport("r.json", () =>
      report({
        numPassedTests: 3,
        testResults: [
          { name: "/repo/test/ok.test.ts", status: "passed", assertionResults: [{ status: "passed" }] },
          { name: "/repo/test/broken.test.ts", status: "failed", assertionResults: [], message: "SyntaxError: Unexpected token\n at …" },
        ],
      }),
    );
    expect(counts.failed).toBe(1);
    expect(counts.notes).toEqual(["/repo/test/broken.test.ts: failed without a failing test (SyntaxError: Unexpected token)"]);
  });

  it("names each failing test with its file and the first line of its error", () => {
    const counts = countReport("embedded.json", () =>
      report({
        numPassedTests: 1,
        numFailedTests: 1,
        testResults: [
          {
            name: "/repo/test/a.test.ts",
            status: "failed",
            assertionResults: [
              { status: "passed", fullName: "charges are created" },
              { status: "failed", fullName: "charges are listed", failureMessages: ["AssertionError: expected 2 to be 3\n    at a.test.ts:10"] },
            ],
          },
        ],
      }),
    );
    expect(counts.failed).toBe(1);
    expect(counts.notes).toEqual(["embedded.json: /repo/test/a.test.ts > charges are listed (AssertionError: expected 2 to be 3)"]);
  });

  it("does not count a file twice when its failing tests are already counted", () => {
    const counts = countReport("r.json", () =>
      report({ numFailedTests: 1, testResults: [{ name: "/repo/test/a.test.ts", status: "failed", assertionResults: [{ status: "failed" }] }] }),
    );
    expect(counts.failed).toBe(1);
  });
});

describe("summaryLine", () => {
  it("is the plain closing line, with skipped only when there are any", () => {
    expect(summaryLine({ passed: 1290, failed: 0, skipped: 0 })).toBe("1290 passed, 0 failed");
    expect(summaryLine({ passed: 5, failed: 2, skipped: 3 })).toBe("5 passed, 2 failed, 3 skipped");
  });
});

describe("summarize: a run that broke never reads clean", () => {
  const reports: Record<string, string> = {
    "clean.json": report(),
    "empty.json": report({ numPassedTests: 0, testResults: [] }),
    "failing.json": report({
      numPassedTests: 9,
      numFailedTests: 1,
      testResults: [{ name: "/repo/test/a.test.ts", status: "failed", assertionResults: [{ status: "failed" }] }],
    }),
  };
  const read = (path: string) => {
    if (!(path in reports)) throw new Error("ENOENT");
    return reports[path]!;
  };

  it("reads each argument as a report and the run's exit status", () => {
    expect(parseRun("/tmp/r/embedded.json=1")).toEqual({ report: "/tmp/r/embedded.json", exitStatus: 1 });
    expect(parseRun("/tmp/r/embedded.json")).toEqual({ report: "/tmp/r/embedded.json" });
  });

  it("sums clean runs as they are", () => {
    expect(
      summarize(
        [
          { report: "clean.json", exitStatus: 0 },
          { report: "clean.json", exitStatus: 0 },
        ],
        0,
        read,
      ),
    ).toEqual({
      passed: 20,
      failed: 0,
      skipped: 0,
      notes: [],
    });
  });

  it("counts a run that exited failed with a clean report (an unhandled error) as one failure", () => {
    const total = summarize([{ report: "clean.json", exitStatus: 1 }], 0, read);
    expect(total).toMatchObject({ passed: 10, failed: 1 });
    expect(total.notes).toEqual([expect.stringContaining("clean.json: the run exited 1 though its report shows no failure")]);
  });

  it("does not count a failed run's exit status again when its report already has the failure", () => {
    expect(summarize([{ report: "failing.json", exitStatus: 1 }], 0, read)).toMatchObject({ passed: 9, failed: 1 });
  });

  it("counts a run that ran no test as one failure, even when the others ran many", () => {
    const total = summarize(
      [
        { report: "clean.json", exitStatus: 0 },
        { report: "empty.json", exitStatus: 0 },
      ],
      0,
      read,
    );
    expect(total).toMatchObject({ passed: 10, failed: 1 });
    expect(total.notes).toEqual([expect.stringContaining("empty.json: the run ran no test")]);
  });

  it("counts a missing report once, whatever the exit status", () => {
    expect(summarize([{ report: "gone.json", exitStatus: 1 }], 0, read)).toMatchObject({ passed: 0, failed: 1 });
  });

  it("adds the failed steps, and fails when given no report at all", () => {
    expect(summarize([{ report: "clean.json", exitStatus: 0 }], 2, read)).toMatchObject({ passed: 10, failed: 2 });
    expect(summarize([], 0, read)).toMatchObject({ passed: 0, failed: 1, notes: ["no test report given"] });
  });
});
