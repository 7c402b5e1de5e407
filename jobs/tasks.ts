// The job queue's task list: each task's handler, built once per worker process with what the handlers
// need (the tasks' names and payloads are in db/job-queue.ts). Recurring tasks are in `crontab`.
import type { JobHelpers } from "graphile-worker";
import type { Kysely } from "kysely";
import type { TaskName, TaskPayloads } from "../db/job-queue.ts";
import type { Database } from "../db/schema.ts";
import type { Clock } from "../domain/clock.ts";
import { runTimeTransitions } from "../domain/charges/time-transitions.ts";
import { queueDueNotifications, type DueSweepOptions } from "../domain/notifications/due-sweep.ts";
import { deliverEvent, type DeliveryOutcome } from "../domain/webhooks/delivery.ts";
import type { OutboundHttpClient } from "../domain/outbound/http-client.ts";
import type { NotificationSenders } from "../domain/outbound/sender.ts";
import { MAX_SEND_ATTEMPTS, sendNotification, type SendNotificationOutcome } from "../domain/notifications/send.ts";
import type { ProductionAdminApi } from "../domain/going-live/production-admin-api.ts";
import { provisionInProduction } from "../domain/going-live/provisioning.ts";
import { deliveryOutcome, type Metrics } from "../runtime/metrics.ts";
import type { BankTransfers } from "../domain/outbound/bank-transfers.ts";
import { settleReturn } from "../domain/reconciliation/return-unmatched.ts";

export type TaskHandler<T extends TaskName> = (payload: TaskPayloads[T], helpers: JobHelpers) => Promise<void>;

export type TaskList = { [T in TaskName]: TaskHandler<T> };

export interface TaskDependencies {
  db: Kysely<Database>;
  clock: Clock;
  serviceEnv: "sandbox" | "production";
  draftLifetimeHours: number;
  /** The outbound client of webhook deliveries: the service's (tests may pass one with another resolver or deadline). */
  webhookHttp: OutboundHttpClient;
  /** Messages each channel's provider is sent per second at most: the notifications sweep paces the send jobs by it. */
  notificationSendsPerSecond: DueSweepOptions["sendsPerSecond"];
  /** Each channel's sender, built once per process from the providers' configuration (simulated in a Sandbox without one). */
  notificationSenders: NotificationSenders;
  /** The Integration API's public URL: the payer page's links in the messages hang from it. */
  integrationPublicUrl: string;
  /** The Production deployment's Admin API, where approved go-live requests create the integration (Sandbox with it configured only). */
  productionAdminApi?: ProductionAdminApi;
  /** The process's metrics (runtime/metrics.ts): what the tasks count. */
  metrics: Metrics;
  /** The bank returns of unmatched money are asked of: Production's (COBRO_BANK_API_URL), the Sandbox's otherwise; none in a Production worker without one. */
  bank?: BankTransfers;
}

/** graphile-worker's crontab: at most one run of each per minute across all worker processes. */
export const crontab = ["* * * * * time-transitions", "* * * * * queue-notifications"].join("\n");

export function createTaskList(deps: TaskDependencies): TaskList {
  return countedRuns(deps.metrics, {
    noop: async () => {},
    "time-transitions": async (_payload, helpers) => {
      const counts = await runTimeTransitions(deps.db, {
        now: deps.clock.now(),
        livemode: deps.serviceEnv === "production",
        draftLifetimeHours: deps.draftLifetimeHours,
      });
      if (counts.closed + counts.draftsDiscarded > 0)
        helpers.logger.info(`time transitions: ${counts.closed} closed, ${counts.expiredEvents} expired events, ${counts.draftsDiscarded} drafts discarded`);
    },
    "deliver-event": async (payload, helpers) => {
      const outcome = await deliverEvent({ db: deps.db, clock: deps.clock, http: deps.webhookHttp }, payload.eventId, String(helpers.job.id));
      reportDelivery(deps.metrics, (line) => helpers.logger.info(line), payload.eventId, outcome);
    },
    "queue-notifications": async (_payload, helpers) => {
      const queued = await queueDueNotifications(deps.db, { now: deps.clock.now(), sendsPerSecond: deps.notificationSendsPerSecond });
      if (queued > 0) helpers.logger.info(`notifications: ${queued} queued`);
    },
    "send-notification": async (payload, helpers) => {
      const { notificationId } = payload;
      const outcome = await sendNotification(
        { db: deps.db, clock: deps.clock, senders: deps.notificationSenders, integrationPublicUrl: deps.integrationPublicUrl },
        notificationId,
      );
      countNotification(deps.metrics, outcome);
      // The id and the outcome only: never the recipient, the content or the provider's words (they are in the outbox).
      switch (outcome.kind) {
        case "retry":
          // Thrown so the queue retries the job with its backoff; the reason is on the notification.
          throw new Error(`notification ${notificationId}: temporary failure at attempt ${outcome.attempt} of ${MAX_SEND_ATTEMPTS}, retried later`);
        case "failed":
          helpers.logger.warn(
            `notification ${notificationId}: failed at attempt ${outcome.attempt} (${outcome.permanent ? "refused by the provider" : "attempts exhausted"})`,
          );
          return;
        case "sent":
        case "simulated":
          helpers.logger.info(`notification ${notificationId}: ${outcome.kind} at attempt ${outcome.attempt}`);
          return;
        case "canceled":
          helpers.logger.info(`notification ${notificationId}: canceled, its charge is no longer open`);
          return;
        case "settled":
        case "not_claimed":
          return;
      }
    },
    "provision-production": async (payload, helpers) => {
      const { goLiveRequestId } = payload;
      if (!deps.productionAdminApi) {
        helpers.logger.warn(
          `go-live ${goLiveRequestId}: no Production deployment is configured in this worker (COBRO_PRODUCTION_ADMIN_URL, COBRO_PRODUCTION_API_KEY); retried later`,
        );
        throw new Error("no Production deployment configured");
      }
      const outcome = await provisionInProduction(deps.db, deps.productionAdminApi, goLiveRequestId, deps.clock.now());
      switch (outcome.kind) {
        case "retry":
          // Thrown so the queue retries with its backoff; the error is on the request for the platform to see.
          throw new Error(`go-live ${goLiveRequestId}: Production not reached, retried later (${outcome.error})`);
        case "failed":
          helpers.logger.warn(`go-live ${goLiveRequestId}: Production refused the integration; a platform admin takes over (${outcome.error})`);
          return;
        case "provisioned":
          helpers.logger.info(`go-live ${goLiveRequestId}: created in Production as ${outcome.productionIntegrationClientId}`);
          return;
        case "nothing_to_do":
          return;
      }
    },
    "return-unmatched-payment": async (payload, helpers) => {
      const { returnId } = payload;
      if (!deps.bank) {
        helpers.logger.warn(`return ${returnId}: no bank is configured in this worker (COBRO_BANK_API_URL, COBRO_BANK_API_TOKEN); retried later`);
        throw new Error("no bank configured");
      }
      const outcome = await settleReturn({ db: deps.db, clock: deps.clock, bank: deps.bank, livemode: deps.serviceEnv === "production" }, returnId);
      // The ids and the outcome only: never the accounts, the amount or the bank's words (they are on the return).
      switch (outcome.kind) {
        case "retry":
          throw new Error(`return ${returnId}: the bank was not reached, retried later`);
        case "pending":
          helpers.logger.info(`return ${returnId}: taken by the bank, checked again at ${outcome.checkAt.toISOString()}`);
          return;
        case "returned":
        case "failed":
          helpers.logger.info(`return ${returnId}: ${outcome.kind}`);
          return;
        case "settled":
          return;
      }
    },
  });
}

/** A delivery's outcome counted and logged: the event id and the outcome only, never the payload, the secret or the receiver's answer body. */
export function reportDelivery(metrics: Metrics, log: (line: string) => void, eventId: string, outcome: DeliveryOutcome): void {
  if (outcome.kind === "attempted") {
    const { result } = outcome;
    const { webhooks } = metrics;
    webhooks.deliveries.inc({ outcome: deliveryOutcome(result) });
    if (outcome.next === "delivered") {
      webhooks.attemptsToDeliver.observe(outcome.attempt);
      webhooks.receiptLatency.observe(outcome.eventAgeMs / 1000);
    }
    log(
      `webhook ${eventId} attempt ${outcome.attempt}: ${result.ok ? `delivered (${result.status})` : `${result.failure}${result.status ? ` ${result.status}` : ""}`} in ${result.durationMs} ms; ${outcome.next}`,
    );
  } else if (outcome.kind === "not_sent") {
    log(`webhook ${eventId} not sent: ${outcome.reason}`);
  }
}

/** Each task's runs counted by outcome: `success`, or `failure` when the handler throws (the queue retries it). */
function countedRuns(metrics: Metrics, tasks: TaskList): TaskList {
  const counted = {} as Record<string, TaskHandler<TaskName>>;
  for (const [task, handler] of Object.entries(tasks) as Array<[TaskName, TaskHandler<TaskName>]>) {
    const success = metrics.jobs.runs.labels(task, "success");
    const failure = metrics.jobs.runs.labels(task, "failure");
    counted[task] = async (payload, helpers) => {
      try {
        await handler(payload, helpers);
      } catch (error) {
        failure.inc();
        throw error;
      }
      success.inc();
    };
  }
  return counted as TaskList;
}

/** A message's final status once (sent, simulated, failed, canceled), and every failure of its provider. */
function countNotification(metrics: Metrics, outcome: SendNotificationOutcome): void {
  const { notifications } = metrics;
  switch (outcome.kind) {
    case "retry":
      notifications.providerErrors.inc({ channel: outcome.message.channel, class: "temporary" });
      return;
    case "failed":
      notifications.providerErrors.inc({ channel: outcome.message.channel, class: outcome.permanent ? "permanent" : "temporary" });
      notifications.messages.inc({ ...outcome.message, status: "failed" });
      return;
    case "sent":
    case "simulated":
    case "canceled":
      notifications.messages.inc({ ...outcome.message, status: outcome.kind });
      return;
    case "settled":
    case "not_claimed":
      return;
  }
}
