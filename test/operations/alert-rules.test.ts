// The alert rules of ops/prometheus/alerts.yml as on-call depends on them: promtool accepts them and passes
// their unit tests (alerts.test.yml), every rule is shown there both firing and not firing, every series
// and label they name exists in runtime/metrics.ts's catalogue, and every rule carries its severity,
// texts and a runbook anchor that exists in docs/operations/alerts.md (and a line in the README).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ROOT } from "../../scripts/cobro-process.ts";
import { expressionNames, metricCatalogue, namingProblems } from "../helpers/metric-catalogue.ts";
import { promtoolOr, runPromtool } from "../helpers/promtool.ts";

const RULES_PATH = join(ROOT, "ops", "prometheus", "alerts.yml");
const TESTS_PATH = join(ROOT, "ops", "prometheus", "alerts.test.yml");
const RUNBOOK_DOC = "docs/operations/alerts.md";

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface TestGroup {
  name: string;
  input_series: { series: string; values: string }[];
  alert_rule_test?: { eval_time: string; alertname: string; exp_alerts: unknown[] }[];
}

const rules: Rule[] = parse(readFileSync(RULES_PATH, "utf8")).groups.flatMap((group: { rules: Rule[] }) => group.rules);
const testFile: { rule_files: string[]; tests: TestGroup[] } = parse(readFileSync(TESTS_PATH, "utf8"));

/** GitHub's anchor for a Markdown heading. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

describe("promtool", () => {
  it("accepts alerts.yml (`promtool check rules`)", async (context) => {
    const promtool = promtoolOr((reason) => context.skip(reason));
    if (promtool === undefined) return;
    const run = await runPromtool(promtool, ["check", "rules", RULES_PATH]);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain(`SUCCESS: ${rules.length} rules found`);
  });

  it("passes every case of alerts.test.yml (`promtool test rules`)", async (context) => {
    const promtool = promtoolOr((reason) => context.skip(reason));
    if (promtool === undefined) return;
    const run = await runPromtool(promtool, ["test", "rules", TESTS_PATH]);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain("SUCCESS");
  });
});

describe("alerts.test.yml", () => {
  it("tests alerts.yml itself", () => {
    expect(testFile.rule_files).toEqual(["alerts.yml"]);
  });

  it("shows every rule firing, and not firing on series the rule reads", () => {
    const missing: string[] = [];
    for (const rule of rules) {
      const series = new Set(expressionNames(rule.expr).selectors.map((selector) => selector.name));
      const cases = testFile.tests.flatMap((group) =>
        (group.alert_rule_test ?? []).filter((test) => test.alertname === rule.alert).map((test) => ({ group, test })),
      );
      if (!cases.some(({ test }) => test.exp_alerts.length > 0)) missing.push(`${rule.alert}: no case where it fires`);
      // A "not firing" over series the rule does not read would pass whatever the rule says.
      const quiet = cases.filter(
        ({ group, test }) => test.exp_alerts.length === 0 && group.input_series.some((input) => series.has(input.series.split("{")[0]!.trim())),
      );
      if (quiet.length === 0) missing.push(`${rule.alert}: no case where it does not fire on series it reads`);
    }
    expect(missing).toEqual([]);
  });

  it("names only alerts that alerts.yml has", () => {
    const names = new Set(rules.map((rule) => rule.alert));
    const unknown = testFile.tests.flatMap((group) => (group.alert_rule_test ?? []).map((test) => test.alertname)).filter((name) => !names.has(name));
    expect(unknown).toEqual([]);
  });
});

describe("alerts.yml", () => {
  it("has rules with distinct names", () => {
    const names = rules.map((rule) => rule.alert);
    expect(names.length).toBeGreaterThan(0);
    expect(new Set(names).size).toBe(names.length);
  });

  it("names only series and labels that runtime/metrics.ts declares (plus up and Node.js's defaults)", () => {
    const catalogue = metricCatalogue();
    const problems = rules.flatMap((rule) => namingProblems(rule.expr, catalogue).map((problem) => `${rule.alert}: ${problem}`));
    expect(problems).toEqual([]);
  });

  it("gives every rule a for:, a page or ticket severity, a summary, a description and a runbook anchor that exists", () => {
    const doc = readFileSync(join(ROOT, RUNBOOK_DOC), "utf8");
    const anchors = new Set([...doc.matchAll(/^#{1,6}\s+(.+)$/gm)].map((match) => anchorOf(match[1]!)));
    const problems: string[] = [];
    for (const rule of rules) {
      if (!rule.for || !/^\d+[smh]$/.test(rule.for)) problems.push(`${rule.alert}: no for:`);
      if (!["page", "ticket"].includes(rule.labels?.severity ?? "")) problems.push(`${rule.alert}: severity ${rule.labels?.severity}`);
      if (!rule.annotations?.summary?.trim()) problems.push(`${rule.alert}: no summary`);
      if (!rule.annotations?.description?.trim()) problems.push(`${rule.alert}: no description`);
      const [path, anchor] = (rule.annotations?.runbook ?? "").split("#");
      if (path !== RUNBOOK_DOC || !anchor || !anchors.has(anchor))
        problems.push(`${rule.alert}: runbook ${rule.annotations?.runbook} is no heading of ${RUNBOOK_DOC}`);
    }
    expect(problems).toEqual([]);
  });

  it("has a line in the README's Operations section for every rule", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const operations = readme.slice(readme.indexOf("\n## Operations\n"), readme.indexOf("\n## ", readme.indexOf("\n## Operations\n") + 1));
    expect(rules.filter((rule) => !operations.includes(`\`${rule.alert}\``)).map((rule) => rule.alert)).toEqual([]);
  });
});
