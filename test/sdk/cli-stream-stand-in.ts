// A stand-in for the Admin API's event stream (GET /my-integration/events/stream, the agreed interface:
// SSE, `retry:` first, heartbeats, `since`/Last-Event-ID resume, `event` filter, 404 for an unknown
// position) until the real endpoint is merged: a loopback proxy in front of the test's Admin API that
// forwards every other request unchanged and serves the stream from the integration's real event log
// (GET /my-integration/events, polled). The log's order is the order the stand-in first saw the events in.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { EventRecord } from "../helpers/sandbox-admin.ts";

export interface StreamStandIn {
  url: string;
  /** Each stream request: its Last-Event-ID header and `since` and `event` parameters. */
  connections: Array<{ lastEventId?: string; since?: string; event?: string }>;
  /** Cut the next connection after it sent this many events (a dropped stream). */
  dropNextAfter(events: number): void;
  close(): Promise<void>;
}

export async function startStreamStandIn(adminUrl: string, options: { retryMs?: number; heartbeatMs?: number } = {}): Promise<StreamStandIn> {
  const log: EventRecord[] = [];
  const connections: StreamStandIn["connections"] = [];
  const open = new Set<ServerResponse>();
  let dropAfter: number | undefined;

  /** Appends the events not seen yet, oldest first, as the token's integration lists them. */
  async function poll(authorization: string): Promise<Response | undefined> {
    const listed = await fetch(`${adminUrl}/my-integration/events?limit=100`, { headers: { authorization } });
    if (listed.status !== 200) return listed;
    const { items } = (await listed.json()) as { items: EventRecord[] };
    const seen = new Set(log.map((event) => event.eventId));
    for (const event of items.reverse()) if (!seen.has(event.eventId)) log.push(event);
    return undefined;
  }

  async function stream(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const authorization = req.headers.authorization ?? "";
    const lastEventId = (req.headers["last-event-id"] as string | undefined) ?? undefined;
    const since = url.searchParams.get("since") ?? undefined;
    const names = (url.searchParams.getAll("event").join(",") || "").split(",").filter((name) => name !== "");
    connections.push({ lastEventId, since, event: names.join(",") || undefined });
    const refused = await poll(authorization);
    if (refused) {
      res.writeHead(refused.status, { "content-type": "application/json" }).end(await refused.text());
      return;
    }
    const after = lastEventId ?? since;
    let next = log.length;
    if (after !== undefined) {
      const at = log.findIndex((event) => event.eventId === after);
      if (at === -1) {
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ code: "EventNotFoundError", message: "Event not found" }));
        return;
      }
      next = at + 1;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
    res.write(`retry: ${options.retryMs ?? 2000}\n\n`);
    open.add(res);
    const cutAfter = dropAfter;
    dropAfter = undefined;
    let sent = 0;
    const heartbeat = setInterval(() => res.write(": heartbeat\n\n"), options.heartbeatMs ?? 1000);
    const timer = setInterval(async () => {
      if (res.destroyed) return;
      await poll(authorization);
      while (next < log.length && !res.destroyed) {
        const event = log[next++]!;
        if (names.length > 0 && !names.includes(event.event)) continue;
        const data = { eventId: event.eventId, webhookId: event.webhookId, event: event.event, createdAt: event.createdAt, payload: event.payload };
        sent += 1;
        // Cut once the event is on the wire: the client has it, and resumes after it.
        const cut = cutAfter !== undefined && sent >= cutAfter;
        res.write(`id: ${event.eventId}\nevent: ${event.event}\ndata: ${JSON.stringify(data)}\n\n`, () => {
          if (cut) res.socket?.destroy();
        });
        if (cut) break;
      }
    }, 100);
    res.on("close", () => {
      clearInterval(timer);
      clearInterval(heartbeat);
      open.delete(res);
    });
  }

  async function proxy(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !["host", "connection", "content-length"].includes(name))) as Record<
      string,
      string
    >;
    const answer = await fetch(`${adminUrl}${req.url}`, { method: req.method, headers, body: chunks.length > 0 ? Buffer.concat(chunks) : undefined });
    const body = Buffer.from(await answer.arrayBuffer());
    const contentType = answer.headers.get("content-type");
    res.writeHead(answer.status, contentType ? { "content-type": contentType } : {}).end(body);
  }

  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://stand-in");
    const handled = req.method === "GET" && url.pathname === "/my-integration/events/stream" ? stream(req, res, url) : proxy(req, res);
    handled.catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(502).end(String(error));
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections,
    dropNextAfter: (events) => {
      dropAfter = events;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
