// The process's Prometheus endpoint, on a listener of its own (COBRO_METRICS_HOST:COBRO_METRICS_PORT),
// never on the public APIs: GET /metrics answers the registry in the text format after the scrape-time
// samplers ran; anything else is a 404.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { Metrics } from "../runtime/metrics.ts";
import type { Logger } from "../runtime/logger.ts";
import { closeServer, listen, listenerUrl } from "./listening.ts";

export interface MetricsListener {
  /** http://host:port/metrics */
  url: string;
  stop(): Promise<void>;
}

export async function startMetricsListener(metrics: Metrics, where: { host: string; port: number }, logger: Logger): Promise<MetricsListener> {
  const server = createServer({ headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000 }, (req, res) => {
    const path = (req.url ?? "").split("?", 1)[0];
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "content-type": "text/plain; charset=utf-8" }).end("Not found: the metrics are at GET /metrics\n");
      return;
    }
    metrics.scrape().then(
      (text) => {
        res.writeHead(200, { "content-type": metrics.registry.contentType, "cache-control": "no-store" });
        res.end(req.method === "HEAD" ? undefined : text);
      },
      (error: unknown) => {
        logger.error({ err: error }, "metrics scrape failed");
        res.writeHead(500, { "content-type": "text/plain; charset=utf-8" }).end("metrics could not be collected\n");
      },
    );
  });
  server.maxConnections = 64;
  await listen(server, where.port, where.host, "metrics", "COBRO_METRICS_PORT (0 turns the metrics listener off)");
  const { port } = server.address() as AddressInfo;
  return { url: `${listenerUrl(where.host, port)}/metrics`, stop: () => closeServer(server) };
}
