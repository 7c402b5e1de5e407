// ops/grafana/cobro.json as Grafana would import it and a person would read it: valid JSON with a data
// source variable and role and instance filters, the rows in their order, every panel titled, saying what
// question it answers and explained in docs/operations/dashboard.md, and every query naming only series and
// labels that runtime/metrics.ts declares (plus up and Node.js's defaults) and parsing as PromQL (promtool
// has no command to check an expression, so they are checked as the recording rules of a temporary file).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { ROOT } from "../../scripts/cobro-process.ts";
import { expressionNames, metricCatalogue, namingProblems } from "../helpers/metric-catalogue.ts";
import { promtoolOr, runPromtool } from "../helpers/promtool.ts";

const DASHBOARD_PATH = join(ROOT, "ops", "grafana", "cobro.json");
const ROWS = ["Traffic", "Money", "Webhooks", "Jobs", "Notifications", "Auth", "Database", "Runtime"];
/** Grafana's own variables, with a value of the right kind for PromQL's parser. */
const BUILT_IN: Record<string, string> = { __rate_interval: "5m", __interval: "1m", __range: "6h" };
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's reference to the dashboard's data source variable
const DATASOURCE = "${datasource}";

interface Target {
  refId: string;
  expr: string;
  datasource?: { type: string; uid: string };
}
interface Panel {
  id: number;
  type: string;
  title?: string;
  description?: string;
  datasource?: { type: string; uid: string };
  gridPos: { x: number; y: number; w: number; h: number };
  targets?: Target[];
}
interface Variable {
  name: string;
  type: string;
  query: string | { query: string };
  datasource?: { type: string; uid: string };
}

const text = readFileSync(DASHBOARD_PATH, "utf8");
const dashboard = JSON.parse(text);
const panels: Panel[] = dashboard.panels;
const queryPanels = panels.filter((panel) => panel.type !== "row");
const variables: Variable[] = dashboard.templating.list;
const variableQuery = (variable: Variable) => (typeof variable.query === "string" ? variable.query : variable.query.query);
/** `label_values(<selector>, <label>)` -> the selector, a PromQL expression. */
const selectorOf = (query: string) => /^label_values\((.+),\s*\w+\)$/.exec(query.trim())?.[1];

/** Every PromQL expression of the dashboard, with where it is. */
const expressions = [
  ...queryPanels.flatMap((panel) => (panel.targets ?? []).map((target) => ({ where: `${panel.title} (${target.refId})`, expr: target.expr }))),
  ...variables
    .filter((variable) => variable.type === "query")
    .map((variable) => ({ where: `variable ${variable.name}`, expr: selectorOf(variableQuery(variable)) ?? "" })),
];

const scratch = mkdtempSync(join(tmpdir(), "cobro-dashboard-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe("the Grafana dashboard", () => {
  it("is a dashboard of Grafana's current schema", () => {
    expect(dashboard).toMatchObject({ title: "Cobro", uid: "cobro" });
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(39);
  });

  it("asks for a Prometheus data source, and filters by role and instance from Cobro's own series", () => {
    expect(variables.find((variable) => variable.name === "datasource")).toMatchObject({ type: "datasource", query: "prometheus" });
    for (const name of ["role", "instance"]) {
      const variable = variables.find((each) => each.name === name);
      expect(variable, name).toMatchObject({ type: "query", datasource: { type: "prometheus", uid: DATASOURCE } });
      expect(selectorOf(variableQuery(variable!)), name).toMatch(/^cobro_/);
    }
  });

  it("has its rows in order, each with panels", () => {
    const rows = panels.filter((panel) => panel.type === "row");
    expect(rows.map((row) => row.title)).toEqual(ROWS);
    const rowIndexes = rows.map((row) => panels.indexOf(row));
    for (const [i, index] of rowIndexes.entries()) {
      const next = rowIndexes[i + 1] ?? panels.length;
      expect(next - index - 1, `panels under ${rows[i]!.title}`).toBeGreaterThan(0);
    }
  });

  it("lays out its panels in Grafana's 24 columns, with distinct ids", () => {
    expect(new Set(panels.map((panel) => panel.id)).size).toBe(panels.length);
    for (const { title, gridPos } of panels) {
      expect(gridPos.x + gridPos.w, title).toBeLessThanOrEqual(24);
      expect(gridPos.w * gridPos.h, title).toBeGreaterThan(0);
    }
  });

  it("titles every panel and says what question it answers, reading the chosen data source", () => {
    const problems: string[] = [];
    for (const panel of queryPanels) {
      const name = panel.title ?? `panel ${panel.id}`;
      if (!panel.title?.trim()) problems.push(`${name}: no title`);
      if (!panel.description?.includes("?")) problems.push(`${name}: its description asks no question`);
      if (!panel.targets?.length) problems.push(`${name}: no query`);
      for (const source of [panel.datasource, ...(panel.targets ?? []).map((target) => target.datasource)]) {
        if (source?.uid !== DATASOURCE) problems.push(`${name}: data source ${JSON.stringify(source)}`);
      }
      if (new Set(panel.targets?.map((target) => target.refId)).size !== panel.targets?.length) problems.push(`${name}: repeated refIds`);
    }
    expect(problems).toEqual([]);
    expect(new Set(queryPanels.map((panel) => panel.title)).size).toBe(queryPanels.length);
  });

  it("queries only series and labels of the catalogue, and only variables it defines", () => {
    const catalogue = metricCatalogue();
    const defined = new Set([...variables.map((variable) => variable.name), ...Object.keys(BUILT_IN)]);
    const problems = expressions.flatMap(({ where, expr }) => [
      ...namingProblems(expr, catalogue).map((problem) => `${where}: ${problem}`),
      ...expressionNames(expr)
        .variables.filter((variable) => !defined.has(variable))
        .map((variable) => `${where}: variable $${variable} is not defined`),
    ]);
    expect(problems).toEqual([]);
  });

  it("has queries that parse as PromQL (`promtool check rules` over them as recording rules)", async (context) => {
    const promtool = promtoolOr((reason) => context.skip(reason));
    if (promtool === undefined) return;
    // A variable's value stands in for it: a duration for Grafana's, a regex for the filters.
    const rules = expressions.map(({ expr }, index) => ({
      record: `cobro_dashboard_query_${index}`,
      expr: expr.replace(/\$\{?(\w+)\}?/g, (_all, name: string) => BUILT_IN[name] ?? ".+"),
    }));
    const path = join(scratch, "dashboard-queries.yml");
    writeFileSync(path, stringify({ groups: [{ name: "dashboard", rules }] }));
    const run = await runPromtool(promtool, ["check", "rules", path]);
    const located = run.output.replace(/cobro_dashboard_query_(\d+)/g, (all, index: string) => `${all} [${expressions[Number(index)]!.where}]`);
    expect(run.code, located).toBe(0);
    expect(run.output).toContain(`SUCCESS: ${rules.length} rules found`);
  });

  it("has every panel explained in docs/operations/dashboard.md", () => {
    const doc = readFileSync(join(ROOT, "docs", "operations", "dashboard.md"), "utf8");
    expect(queryPanels.map((panel) => panel.title).filter((title) => !doc.includes(`**${title}**`))).toEqual([]);
    expect(ROWS.filter((row) => !new RegExp(`^## ${row}$`, "m").test(doc))).toEqual([]);
  });
});
