// Scrape-time sampling: gauges read from the database or memory just before the registry is serialized,
// without a slow or failing sampler holding up or breaking the scrape.
import { describe, expect, it } from "vitest";
import { createMetrics } from "../../runtime/metrics.ts";
import { parseMetricsText, sampleValue } from "../helpers/metrics-text.ts";

describe("scrape-time samplers", () => {
  it("run before each scrape, so the text holds what they set", async () => {
    const metrics = createMetrics("test");
    let waiting = 3;
    metrics.addSampler("jobs", async () => {
      metrics.jobs.waiting.set({ task: "deliver-event" }, waiting);
    });
    expect(await metrics.scrape()).toContain('cobro_jobs_waiting{task="deliver-event",role="test"} 3');
    waiting = 5;
    expect(await metrics.scrape()).toContain('cobro_jobs_waiting{task="deliver-event",role="test"} 5');
  });

  it("answer without a sampler that outlasts the wait, counting it as a failure by name", async () => {
    const metrics = createMetrics("test");
    metrics.addSampler("slow", () => new Promise<void>(() => undefined));
    metrics.addSampler("quick", () => metrics.jobs.waiting.set({ task: "sweep" }, 1));
    const started = Date.now();
    const text = await metrics.scrape(100);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(text).toContain('cobro_jobs_waiting{task="sweep",role="test"} 1');
    expect(sampleValue(parseMetricsText(text), "cobro_metrics_sample_failures_total", { sampler: "slow" })).toBe(1);
  });

  it("answer when a sampler throws, keeping its gauges' previous values", async () => {
    const metrics = createMetrics("test");
    let fail = false;
    metrics.addSampler("pool", () => {
      if (fail) throw new Error("database down");
      metrics.db.poolConnections.set({ pool: "api", state: "total" }, 4);
    });
    await metrics.scrape();
    fail = true;
    const text = await metrics.scrape();
    expect(text).toContain('cobro_db_pool_connections{pool="api",state="total",role="test"} 4');
    expect(sampleValue(parseMetricsText(text), "cobro_metrics_sample_failures_total", { sampler: "pool" })).toBe(1);
  });

  it("are shared by concurrent scrapes and can be removed", async () => {
    const metrics = createMetrics("test");
    let runs = 0;
    const remove = metrics.addSampler("count", async () => {
      runs++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    });
    await Promise.all([metrics.scrape(), metrics.scrape(), metrics.scrape()]);
    expect(runs).toBe(1);
    remove();
    await metrics.scrape();
    expect(runs).toBe(1);
  });
});
