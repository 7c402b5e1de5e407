// Connections that never send a byte are closed once the headers timeout passes (Node's own timeout starts
// only with a request's first byte), and each listener holds a bounded number of connections at once
// (COBRO_HTTP_MAX_CONNECTIONS): past it a new connection is closed at once. This instance is configured
// with a short headers timeout and the smallest bound so that the test waits well under a second.
import { describe, expect, it } from "vitest";
import { connect, type Socket } from "node:net";
import { serviceForFile } from "../helpers/service.ts";

const HEADERS_TIMEOUT_MS = 500;
const MAX_CONNECTIONS = 16;
const t = serviceForFile({
  env: {
    COBRO_HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    COBRO_HTTP_REQUEST_TIMEOUT_MS: "1000",
    COBRO_HTTP_MAX_CONNECTIONS: String(MAX_CONNECTIONS),
  },
});

function opened(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket));
    socket.on("error", reject);
  });
}

/** When the server closed the connection (ms after `since`), or undefined if still open after `waitMs`. */
function closedWithin(socket: Socket, since: number, waitMs: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), waitMs);
    socket.on("error", () => undefined);
    socket.once("close", () => {
      clearTimeout(timer);
      resolve(Date.now() - since);
    });
  });
}

describe("connections", () => {
  it("a connection that sends no byte is closed after the headers timeout, on every listener", async () => {
    for (const url of [t.integrationUrl, t.authUrl, t.adminUrl]) {
      const started = Date.now();
      const sockets = await Promise.all([1, 2, 3].map(() => opened(Number(new URL(url).port))));
      const closedAfter = await Promise.all(sockets.map((socket) => closedWithin(socket, started, 5000)));
      for (const after of closedAfter) {
        expect(after, url).toBeDefined();
        expect(after!, url).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS - 50);
        expect(after!, url).toBeLessThan(3000);
      }
    }
  });

  it(`a listener holds at most ${MAX_CONNECTIONS} connections: the next one is closed at once, and a place frees when one closes`, async () => {
    const port = Number(new URL(t.integrationUrl).port);
    const held = await Promise.all(Array.from({ length: MAX_CONNECTIONS }, () => opened(port)));
    try {
      const extra = await opened(port);
      expect(await closedWithin(extra, Date.now(), HEADERS_TIMEOUT_MS - 100)).toBeDefined();
      held.pop()!.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const health = await fetch(`${t.integrationUrl}/healthz`, { headers: { connection: "close" } });
      expect(health.status).toBe(200);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });
});
