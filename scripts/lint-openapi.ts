// `npm run lint:openapi`: the three published documents (generated/openapi/{integration,auth,admin}.yaml)
// against the two common OpenAPI rulesets, Redocly's `recommended` (redocly.yaml) and Spectral's
// `spectral:oas` (.spectral.yaml). Any error or any warning of either fails: Spectral is run with
// `--fail-severity=warn`, and Redocly, which exits non-zero on errors only, is read from its JSON report,
// whose warnings count as failures too. The few places where a rule does not apply are listed with their
// reasons in .redocly.lint-ignore.yaml and in the overrides of .spectral.yaml.
//
// Offline: both linters read only local files; Redocly's telemetry and update notice are turned off.
// Prints every problem as `file:line:col severity rule message`, then one line per document and linter.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { API_NAMES } from "./normalize-openapi.ts";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const documents = API_NAMES.map((api) => `generated/openapi/${api}.yaml`);

/** The JavaScript file of a package's command (`bin`), run with this process's Node. */
function binOf(packageName: string, command: string): string {
  const manifestPath = require.resolve(`${packageName}/package.json`);
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { bin: string | Record<string, string> };
  const bin = typeof manifest.bin === "string" ? manifest.bin : manifest.bin[command];
  if (!bin) throw new Error(`${packageName} has no "${command}" command`);
  return join(dirname(manifestPath), bin);
}

interface Problem {
  document: string;
  line: number;
  col: number;
  severity: "error" | "warning" | "info" | "hint";
  rule: string;
  message: string;
}

interface LinterRun {
  name: string;
  problems: Problem[];
  /** Per document, the problems the linter was told to ignore at their place, when it reports them. */
  ignored?: Record<string, number>;
}

function run(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(process.execPath, args, { cwd: root, env, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (result.error) throw result.error;
  return result;
}

/** Redocly, one document at a time (it writes one JSON report per document, one after the other). */
function redocly(): LinterRun {
  const env = { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", REDOCLY_SUPPRESS_NOTIFICATIONS: "true" };
  const problems: Problem[] = [];
  const ignored: Record<string, number> = {};
  for (const document of documents) {
    const result = run([binOf("@redocly/cli", "redocly"), "lint", "--format=json", "--max-problems=10000", document], env);
    let report: {
      totals: { errors: number; warnings: number; ignored: number };
      problems: { ruleId: string; severity: string; message: string; location: { source: { ref: string }; start?: { line: number; col: number } }[] }[];
    };
    try {
      report = JSON.parse(result.stdout);
    } catch {
      throw new Error(`Redocly did not report on ${document} (exit ${result.status}):\n${result.stdout}${result.stderr}`);
    }
    const mine = report.problems.map((problem): Problem => {
      const location = problem.location[0];
      return {
        document: location?.source.ref ?? document,
        line: location?.start?.line ?? 0,
        col: location?.start?.col ?? 0,
        severity: problem.severity === "warn" ? "warning" : (problem.severity as Problem["severity"]),
        rule: problem.ruleId,
        message: problem.message,
      };
    });
    // The report and the exit code must agree: a failure the report does not explain is a failure too.
    if (result.status !== 0 && !mine.some((problem) => problem.severity === "error")) {
      throw new Error(`Redocly exited ${result.status} on ${document} without reporting an error:\n${result.stderr}`);
    }
    problems.push(...mine);
    ignored[document] = report.totals.ignored;
  }
  return { name: "Redocly recommended", problems, ignored };
}

function spectral(): LinterRun {
  const scratch = mkdtempSync(join(tmpdir(), "cobro-spectral-"));
  try {
    const output = join(scratch, "report.json");
    const result = run([
      binOf("@stoplight/spectral-cli", "spectral"),
      "lint",
      "--ruleset",
      ".spectral.yaml",
      "--format",
      "json",
      "--output",
      output,
      "--fail-severity",
      "warn",
      ...documents,
    ]);
    let report: { code: string; message: string; severity: number; source?: string; range: { start: { line: number; character: number } } }[];
    try {
      report = JSON.parse(readFileSync(output, "utf8"));
    } catch {
      throw new Error(`Spectral did not report (exit ${result.status}):\n${result.stdout}${result.stderr}`);
    }
    const severities = ["error", "warning", "info", "hint"] as const;
    const problems = report.map(
      (problem): Problem => ({
        document: problem.source ? relative(root, problem.source) : "?",
        line: problem.range.start.line + 1,
        col: problem.range.start.character + 1,
        severity: severities[problem.severity] ?? "error",
        rule: problem.code,
        message: problem.message,
      }),
    );
    const failures = problems.filter((problem) => problem.severity === "error" || problem.severity === "warning").length;
    if (result.status !== 0 && failures === 0)
      throw new Error(`Spectral exited ${result.status} without reporting a problem:\n${result.stdout}${result.stderr}`);
    return { name: "Spectral spectral:oas", problems };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

const runs = [redocly(), spectral()];
let failed = false;
for (const linter of runs) {
  for (const problem of linter.problems) {
    console.log(`${problem.document}:${problem.line}:${problem.col} ${problem.severity} ${problem.rule} ${problem.message} (${linter.name})`);
  }
}
for (const linter of runs) {
  for (const document of documents) {
    const mine = linter.problems.filter((problem) => problem.document === document);
    const errors = mine.filter((problem) => problem.severity === "error").length;
    const warnings = mine.filter((problem) => problem.severity === "warning").length;
    const others = mine.length - errors - warnings;
    if (errors + warnings > 0) failed = true;
    const ignored = linter.ignored?.[document] ? ` (${linter.ignored[document]} ignored where .redocly.lint-ignore.yaml says why)` : "";
    console.log(
      `${linter.name.padEnd(22)} ${document.padEnd(36)} ${errors} errors, ${warnings} warnings${others > 0 ? `, ${others} infos and hints` : ""}${ignored}`,
    );
  }
  // A problem of a file that is none of the three (a config file Redocly checks) fails as well.
  const elsewhere = linter.problems.filter(
    (problem) => !documents.includes(problem.document) && (problem.severity === "error" || problem.severity === "warning"),
  );
  if (elsewhere.length > 0) failed = true;
}
if (failed) {
  console.error(
    "The published OpenAPI documents do not pass the rulesets: fix the contract in spec/ (then npm run generate), or list a place where a rule does not apply, with its reason.",
  );
  process.exit(1);
}
