// The series a Prometheus scraping Cobro can have, from runtime/metrics.ts's registry (Cobro's series and
// Node.js's defaults) plus Prometheus's own `up`, and the series and labels a PromQL expression names: so
// alert rules and dashboard queries are checked against what exists, not against what someone remembers.
// The expression reading is lexical (strings, ranges and grouping clauses taken out, then identifiers);
// promtool checks that the expressions parse.
import { Histogram } from "prom-client";
import { createMetrics } from "../../runtime/metrics.ts";

/** Labels every scraped Cobro series carries besides its own: the process's role and the target's labels. */
const TARGET_LABELS = ["job", "instance"];

/** Series name -> the label names it can carry. */
export type Catalogue = Map<string, Set<string>>;

export function metricCatalogue(): Catalogue {
  const { registry } = createMetrics("test");
  const catalogue: Catalogue = new Map([["up", new Set(TARGET_LABELS)]]);
  for (const metric of registry.getMetricsAsArray()) {
    // prom-client keeps each metric's declared label names; its types do not show them.
    const own = (metric as unknown as { labelNames?: string[] }).labelNames ?? [];
    const labels = new Set([...own, "role", ...TARGET_LABELS]);
    if (metric instanceof Histogram) {
      catalogue.set(`${metric.name}_bucket`, new Set([...labels, "le"]));
      catalogue.set(`${metric.name}_sum`, labels);
      catalogue.set(`${metric.name}_count`, labels);
    } else {
      catalogue.set(metric.name, labels);
    }
  }
  return catalogue;
}

export interface Selector {
  name: string;
  /** Label names of its matchers (`{api="x", operation!~"y"}` -> api, operation). */
  labels: string[];
}

export interface ExpressionNames {
  selectors: Selector[];
  /** Labels named by by/without/on/ignoring/group_left/group_right. */
  grouping: string[];
  /** Grafana variables ($name, ${name}) the expression uses. */
  variables: string[];
}

const KEYWORDS = new Set(["and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right", "offset", "bool", "inf", "nan"]);
const IDENTIFIER = /[a-zA-Z_:][a-zA-Z0-9_:]*/g;

/** The series, labels and variables a PromQL expression (possibly with Grafana variables) names. */
export function expressionNames(expr: string): ExpressionNames {
  const variables = [...expr.matchAll(/\$\{?(\w+)\}?/g)].map((match) => match[1]!);
  // Strings first: a regex matcher's value may hold anything, braces included.
  let rest = expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""');
  const selectors: Selector[] = [];
  rest = rest.replace(/([a-zA-Z_:][a-zA-Z0-9_:]*)?\s*\{([^}]*)\}/g, (_all, name: string | undefined, matchers: string) => {
    const labels = [...matchers.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)].map((match) => match[1]!);
    // A selector without a name (`{__name__=~"..."}`) is named "", which no series is: the check refuses it.
    if (name && KEYWORDS.has(name)) {
      selectors.push({ name: "", labels });
      return ` ${name} `;
    }
    selectors.push({ name: name ?? "", labels });
    return " ";
  });
  const grouping: string[] = [];
  rest = rest.replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g, (_all, _keyword, labels: string) => {
    grouping.push(...(labels.match(IDENTIFIER) ?? []));
    return " ";
  });
  rest = rest
    .replace(/\[[^\]]*\]/g, " ") // ranges and subqueries: [5m], [$__rate_interval], [1h:5m]
    .replace(/\$\{?\w+\}?/g, " ")
    .replace(/\boffset\s+\S+/g, " ")
    .replace(/\b\d+(?:\.\d+)?(?:e[+-]?\d+)?\b/gi, " ");
  for (const match of rest.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g)) {
    const [, identifier, call] = match;
    if (call || KEYWORDS.has(identifier!.toLowerCase())) continue;
    selectors.push({ name: identifier!, labels: [] });
  }
  return { selectors, grouping, variables };
}

/**
 * What is wrong with an expression's names against the catalogue: series that do not exist, matchers on
 * labels a series does not have, grouping by labels none of its series has, or no series at all.
 */
export function namingProblems(expr: string, catalogue: Catalogue): string[] {
  const { selectors, grouping } = expressionNames(expr);
  const problems: string[] = [];
  if (selectors.length === 0) problems.push("names no series");
  const available = new Set<string>();
  for (const { name, labels } of selectors) {
    const known = catalogue.get(name);
    if (!known) {
      problems.push(name ? `series ${name} is not in the catalogue` : "a selector without a series name");
      continue;
    }
    for (const label of known) available.add(label);
    for (const label of labels) if (!known.has(label)) problems.push(`series ${name} has no label ${label}`);
  }
  for (const label of grouping) if (!available.has(label)) problems.push(`groups by ${label}, which none of its series has`);
  return problems;
}
