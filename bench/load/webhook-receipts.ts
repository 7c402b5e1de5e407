// The integrator's webhook receiver on loopback: answers 200 at once and notes when each event arrived
// (by its X-Service-Webhook-Id, the event's id), so enqueue→receipt can be read against the events table.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { sql, type Kysely } from "kysely";
import type { Database } from "../../db/schema.ts";
import { WEBHOOK_ID_HEADER } from "../../domain/webhooks/signature.ts";

export interface WebhookReceipts {
  url: string;
  /** Event id → when it first arrived (epoch ms). Pings and other requests without an id are not counted. */
  arrivals: Map<string, number>;
  close(): Promise<void>;
}

export async function startWebhookReceipts(): Promise<WebhookReceipts> {
  const arrivals = new Map<string, number>();
  const server = createServer((req, res) => {
    const at = Date.now();
    req.resume();
    req.on("end", () => {
      const id = req.headers[WEBHOOK_ID_HEADER.toLowerCase()];
      if (typeof id === "string" && !arrivals.has(id)) arrivals.set(id, at);
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    arrivals,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface DeliveryFigures {
  delivered: number;
  written: number;
  /** From the first event written to the last one received. */
  seconds: number;
  eventsPerSecond: number;
  /** Enqueue (the event's created_at) → receipt, in ms. */
  p50: number;
  p99: number;
}

/**
 * Waits until every event of the integration written since `from` has reached `receipts` (or the
 * deliveries make no progress for 20 s, or a minute has passed), then measures them.
 */
export async function deliveriesSince(db: Kysely<Database>, integrationClientId: string, receipts: WebhookReceipts, from: Date): Promise<DeliveryFigures> {
  const eventsSince = async () =>
    (
      await sql<{
        id: string;
        created_at: Date;
      }>`select id, created_at from events where integration_client_id = ${integrationClientId} and created_at >= ${from}`.execute(db)
    ).rows;
  let events = await eventsSince();
  let lastProgress = Date.now();
  let lastCount = -1;
  const deadline = Date.now() + 60_000;
  while (events.some((event) => !receipts.arrivals.has(event.id)) && Date.now() - lastProgress < 20_000 && Date.now() < deadline) {
    const arrived = events.filter((event) => receipts.arrivals.has(event.id)).length;
    if (arrived !== lastCount) {
      lastCount = arrived;
      lastProgress = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    events = await eventsSince();
  }
  const latencies = events.flatMap((event) => {
    const arrived = receipts.arrivals.get(event.id);
    return arrived === undefined ? [] : [arrived - event.created_at.getTime()];
  });
  latencies.sort((a, b) => a - b);
  const percentile = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? Number.NaN;
  const firstCreated = Math.min(...events.map((event) => event.created_at.getTime()));
  const lastArrival = Math.max(...events.map((event) => receipts.arrivals.get(event.id) ?? 0));
  const seconds = (lastArrival - firstCreated) / 1000;
  return {
    delivered: latencies.length,
    written: events.length,
    seconds,
    eventsPerSecond: latencies.length / seconds,
    p50: percentile(50),
    p99: percentile(99),
  };
}
