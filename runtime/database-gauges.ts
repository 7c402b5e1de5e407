// The gauges read from the database when Prometheus scrapes: readiness (every process); the webhook backlog
// of the integrations with most waiting and today's use of the chat-message caps (worker processes). Each
// read is one indexed query (migration 2026_11_27_0032_scrape_time_reads); the reads are the domain's.
import type { Kysely } from "kysely";
import type { Database } from "../db/schema.ts";
import { chatCapUseToday } from "../domain/limits/message-caps.ts";
import { checkDatabaseAnswers } from "../domain/readiness.ts";
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

/** How long the readiness gauge waits for the database: under the scrape's wait, so a hung database reads 0, not a frozen 1. */
export const READY_CHECK_TIMEOUT_MS = 1_500;

/** Sets `cobro_ready` to 1 when the database answers /readyz's check within READY_CHECK_TIMEOUT_MS, else 0. */
export async function sampleReadiness(db: Kysely<Database>, metrics: Metrics, timeoutMs: number = READY_CHECK_TIMEOUT_MS): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const answered = checkDatabaseAnswers(db).then(
    () => true,
    () => false,
  );
  try {
    metrics.health.ready.set((await Promise.race([answered, late])) ? 1 : 0);
  } finally {
    clearTimeout(timer);
  }
}
