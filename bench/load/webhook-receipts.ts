// The integrator's webhook receiver on loopback: answers 200 at once and notes when each event arrived
// (by its X-Service-Webhook-Id, the event's id), so enqueue→receipt can be read against the events table.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
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
