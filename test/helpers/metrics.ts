// Reading a test service's metrics (runtime/metrics.ts): the value of one series of its registry.
import { Histogram } from "prom-client";
import type { TestService } from "./service.ts";

/**
 * The value of the series of `name` whose labels are exactly `labels` (besides the process's `role`), or
 * of a histogram's `_count` (or `_sum`) series with those labels; 0 when the series has not been written.
 */
export async function metricValue(t: TestService, name: string, labels: Record<string, string> = {}, part: "count" | "sum" = "count"): Promise<number> {
  const metric = t.service.metrics.registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name} in the registry`);
  const { values } = await metric.get();
  const wanted = Object.entries(labels);
  const found = values.find((value) => {
    if (metric instanceof Histogram && value.metricName !== `${name}_${part}`) return false;
    const own = Object.entries(value.labels).filter(([key]) => key !== "role");
    return own.length === wanted.length && wanted.every(([key, expected]) => value.labels[key] === expected);
  });
  return found?.value ?? 0;
}

/** Every series of `name` (histograms: their `_count`), as labels without `role` → value. */
export async function metricSeries(t: TestService, name: string): Promise<Array<{ labels: Record<string, string | number>; value: number }>> {
  const metric = t.service.metrics.registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name} in the registry`);
  const { values } = await metric.get();
  return values
    .filter((value) => !(metric instanceof Histogram) || value.metricName === `${name}_count`)
    .map(({ labels, value }) => ({ labels: Object.fromEntries(Object.entries(labels).filter(([key]) => key !== "role")), value }));
}
