// Reading a test service's metrics (runtime/metrics.ts): the value of one series of its registry.
import { Histogram } from "prom-client";
import type { TestService } from "./service.ts";

/** A series as `get()` answers it (a histogram's carry the name of their bucket, sum or count series). */
interface SeriesValue {
  labels: Record<string, string | number | undefined>;
  value: number;
  metricName?: string;
}

async function seriesOf(t: TestService, name: string): Promise<{ histogram: boolean; values: SeriesValue[] }> {
  const metric = t.service.metrics.registry.getSingleMetric(name);
  if (!metric) throw new Error(`no metric ${name} in the registry`);
  return { histogram: metric instanceof Histogram, values: (await metric.get()).values as SeriesValue[] };
}

/**
 * The value of the series of `name` whose labels are exactly `labels` (besides the process's `role`), or
 * of a histogram's `_count` (or `_sum`) series with those labels; 0 when the series has not been written.
 */
export async function metricValue(t: TestService, name: string, labels: Record<string, string> = {}, part: "count" | "sum" = "count"): Promise<number> {
  const { histogram, values } = await seriesOf(t, name);
  const wanted = Object.entries(labels);
  const found = values.find((value) => {
    if (histogram && value.metricName !== `${name}_${part}`) return false;
    const own = Object.entries(value.labels).filter(([key]) => key !== "role");
    return own.length === wanted.length && wanted.every(([key, expected]) => value.labels[key] === expected);
  });
  return found?.value ?? 0;
}

/** Every series of `name` (histograms: their `_count`), as labels without `role` → value. */
export async function metricSeries(t: TestService, name: string): Promise<Array<{ labels: SeriesValue["labels"]; value: number }>> {
  const { histogram, values } = await seriesOf(t, name);
  return values
    .filter((value) => !histogram || value.metricName === `${name}_count`)
    .map(({ labels, value }) => ({ labels: Object.fromEntries(Object.entries(labels).filter(([key]) => key !== "role")), value }));
}
