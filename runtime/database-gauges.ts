// The business gauges read from the database when Prometheus scrapes: the webhook backlog of the
// integrations with most waiting, and today's use of the chat-message caps. Each read is one indexed
// query (migration 2026_11_27_0032_scrape_time_reads); the reads themselves are the domain's.
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import { chatCapUseToday } from "../domain/limits/message-caps.ts";
import { integrationsWithMostWaiting } from "../domain/webhooks/waiting-events.ts";
import type { Config } from "./config.ts";
import { WAITING_EVENTS_TOP_N, type Metrics } from "./metrics.ts";

/** Sets the waiting-events and chat-cap gauges from the database as of `now`. */
export async function sampleDeliveryAndCapGauges(
  db: Kysely<Database>,
  metrics: Metrics,
  now: Date,
  caps: Pick<Config, "serviceEnv" | "globalDailyMessageCap">,
): Promise<void> {
  const [backlog, capUse] = await Promise.all([
    integrationsWithMostWaiting(db, WAITING_EVENTS_TOP_N),
    chatCapUseToday(db, { now, serviceEnv: caps.serviceEnv, globalCap: caps.globalDailyMessageCap }),
  ]);
  const { webhooks, notifications } = metrics;
  // Reset first: an integration that left the top N (or caught up) must not keep its last value.
  webhooks.eventsWaiting.reset();
  webhooks.oldestWaitingAge.reset();
  for (const integration of backlog) {
    const labels = { integration: integration.integrationClientId };
    webhooks.eventsWaiting.set(labels, integration.waiting);
    webhooks.oldestWaitingAge.set(labels, Math.max(0, now.getTime() - integration.oldestCreatedAt.getTime()) / 1000);
  }
  notifications.chatCapUse.set({ scope: "max" }, capUse.highestIntegrationRatio);
  notifications.chatCapUse.set({ scope: "at_cap" }, capUse.integrationsAtCap);
  notifications.chatCapUse.set({ scope: "global" }, capUse.global.cap > 0 ? capUse.global.messages / capUse.global.cap : 0);
}
